// Per-input contract, located errors: a malformed http url and nesting deep enough to overflow the stack are one record each, naming the file it came from and the field (never INTERNAL).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scoreArchive } from "../../src/index.js";
import type { ResultRecord } from "../../src/scoring/record.js";
import { bareId } from "../helpers/ids.js";

const dir = mkdtempSync(join(tmpdir(), "vx-located-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function scoreFiles(files: Record<string, string>): Promise<ResultRecord[]> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const out = join(dir, "out.jsonl");
  await scoreArchive({ inputs: Object.keys(files).map((f) => join(dir, f)), out, pool: { workers: 0 } });
  return readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
}

describe("unexpected errors are located in their file", () => {
  it("a malformed http url and 200,000-deep nesting: one record each naming the file and field; the good call is scored", async () => {
    const good = JSON.stringify({ turns: [{ role: "user", content: "hi" }] });
    const records = await scoreFiles({
      "bad-url.json": JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "http://[bad", start_time: 0 } }] }),
      "deep.json": `{"turns":[{"role":"user","content":"hi","metadata":${"[".repeat(200_000)}${"]".repeat(200_000)}}]}`,
      "good.json": good,
    });
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(records).toHaveLength(3);
    expect(byId.get("bad-url.json#0")!.error).toEqual({
      code: "INVALID_AUDIO",
      message: `${dir}/bad-url.json: turns[0].audio.url: Invalid dict for Turn: {'role': 'user', 'content': 'hi', 'audio': {'url': 'http://[bad', 'start_time': 0}} (audio.url: not a valid URL or path ("http://[bad": its host is not a valid bracketed IPv6 address))`,
    });
    expect(byId.get("deep.json#0")!.error).toEqual({
      code: "LIMIT_EXCEEDED",
      message: `${dir}/deep.json: turns[0].metadata[0]…: nested 200003 levels deep, too deep to read (Maximum call stack size exceeded)`,
    });
    expect(byId.get("good.json#0")!.status).toBe("ok");
  });
});
