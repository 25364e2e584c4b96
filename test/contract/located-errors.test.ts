// Per-input contract, unexpected errors: an error no reader anticipated (a malformed http url, nesting deep enough to overflow the stack) is still one record, naming the file it came from.
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
  it("a malformed http url and 200,000-deep nesting: one record each naming the file; the good call is scored", async () => {
    const good = JSON.stringify({ turns: [{ role: "user", content: "hi" }] });
    const records = await scoreFiles({
      "bad-url.json": JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "http://[bad", start_time: 0 } }] }),
      "deep.json": `{"turns":[{"role":"user","content":"hi","metadata":${"[".repeat(200_000)}${"]".repeat(200_000)}}]}`,
      "good.json": good,
    });
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(records).toHaveLength(3);
    expect(byId.get("bad-url.json#0")!.error).toEqual({ code: "INTERNAL", message: `${dir}/bad-url.json: Invalid URL` });
    expect(byId.get("deep.json#0")!.error).toEqual({ code: "INTERNAL", message: `${dir}/deep.json: Maximum call stack size exceeded` });
    expect(byId.get("good.json#0")!.status).toBe("ok");
  });
});
