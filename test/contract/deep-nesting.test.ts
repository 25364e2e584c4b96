// Per-input contract, deep nesting: a deepeval test case whose bad turn carries a value nested 10,000 deep (the validator's message rendering runs out of stack) is one LIMIT_EXCEEDED record naming file, line and where the nesting starts — never INTERNAL "Maximum call stack size exceeded" — and the file's other lines still score.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/index.js";
import { deepestNesting } from "../../src/ingest/formats/deepeval-json.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { jsonLines, runBuiltCli, speechLike } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "vx-deep-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(join(root, "clip.wav"), writeWavPcm16(speechLike(16000, 1), 16000));

describe("values nested too deep to read", () => {
  it("deepestNesting finds the deepest branch iteratively and cuts its path after four segments", () => {
    expect(deepestNesting({ a: 1 })).toEqual({ depth: 1, field: "(root)" });
    expect(deepestNesting({ turns: [{ metadata: { x: [1] } }, { y: 2 }] })).toEqual({ depth: 5, field: "turns[0].metadata.x" });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(deepestNesting({ turns: [{ role: "user" }, { metadata: { a: deep } }] })).toEqual({ depth: 100_004, field: "turns[1].metadata.a…" });
  });

  it("a bad turn with metadata 10,000 deep is a LIMIT_EXCEEDED record naming file, line and field, in-process and in a worker", () => {
    let deep = "1";
    for (let i = 0; i < 10_000; i++) deep = `{"a":${deep}}`;
    const good = JSON.stringify({ name: "good", turns: [{ role: "user", content: "hi", audio: { url: "clip.wav" } }] });
    writeFileSync(join(root, "cases.jsonl"), `${good}\n{"name":"deep","turns":[{"role":"user","content":"x"},{"role":"robot","content":"x","metadata":${deep}}]}\n`);
    for (const workers of ["0", "1"]) {
      const r = runBuiltCli(["score", "--workers", workers, "cases.jsonl"], { cwd: root });
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      const byId = new Map(jsonLines(r.stdout).map((x) => [bareId(x.id), x]));
      expect(byId.get("cases.jsonl#0")!.status).toBe("ok");
      expect(byId.get("cases.jsonl#1")!.error).toEqual({
        code: "LIMIT_EXCEEDED",
        message: "cases.jsonl: line 2: turns[1].metadata.a…: nested 10003 levels deep, too deep to read (Maximum call stack size exceeded)",
      });
    }
  }, 60_000);
});
