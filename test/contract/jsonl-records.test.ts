// Per-input contract, JSONL: a file is read record by record; a bad or non-call line (even before the first call) is one error record and the file's valid calls are scored.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scoreArchive, writeWavPcm16 } from "../../src/index.js";
import type { ResultRecord } from "../../src/scoring/record.js";
import { bareId } from "../helpers/ids.js";
import { speechLike } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "vx-jsonl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "clip.wav"), writeWavPcm16(speechLike(16000, 1), 16000));
const testCase = JSON.stringify({ name: "good", turns: [{ role: "user", content: "hi", audio: { url: "clip.wav", start_time: 0 } }] });

async function score(name: string, text: string): Promise<ResultRecord[]> {
  writeFileSync(join(dir, name), text);
  const out = join(dir, `${name}.out.jsonl`);
  await scoreArchive({ inputs: [join(dir, name)], out, pool: { workers: 0 } });
  return readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
}

const brief = (r: ResultRecord) => [bareId(r.id), r.status, r.error?.code ?? null];

describe("JSONL read record by record", () => {
  it("a first line that is null: one error record, the call after it is scored", async () => {
    const records = await score("null-first.jsonl", `null\n${testCase}\n`);
    expect(records.map(brief)).toEqual([["null-first.jsonl#0", "error", "INVALID_TEST_CASE"], ["null-first.jsonl#1", "ok", null]]);
    expect(records[0].error!.message).toBe(`${dir}/null-first.jsonl: line 1: $: a test case must be a JSON object, got NoneType`);
  });

  it("a stray object first: one error record naming the line and field, the call after it is scored", async () => {
    const records = await score("stray-first.jsonl", `{"hello": "world"}\n${testCase}\n`);
    expect(records.map(brief)).toEqual([["stray-first.jsonl#0", "error", "INVALID_TEST_CASE"], ["stray-first.jsonl#1", "ok", null]]);
    expect(records[0].error!.message).toMatch(/\/stray-first\.jsonl: line 1: turns: .*Field required/);
  });

  it("20 garbage lines before the first case: 20 error records naming their lines, then the cases", async () => {
    const garbage = Array.from({ length: 20 }, (_, i) => `garbage ${i} {\n`).join("");
    const records = await score("garbage.jsonl", `${garbage}${testCase}\n[1, 2]\n${testCase}\n`);
    expect(records).toHaveLength(23);
    records.slice(0, 20).forEach((r, i) => {
      expect(r.status).toBe("error");
      expect(r.error!.code).toBe("INVALID_JSON");
      expect(r.error!.message).toMatch(new RegExp(`/garbage\\.jsonl: line ${i + 1} column 1: JSON syntax error`));
    });
    expect(records.slice(20).map(brief)).toEqual([["garbage.jsonl#20", "ok", null], ["garbage.jsonl#21", "error", "INVALID_TEST_CASE"], ["garbage.jsonl#22", "ok", null]]);
  });

  it("Voice Live: a row without audio first is skipped with a warning; a null row is its own error record; no conversation is lost", async () => {
    const rows = [
      { Question: "no audio here", conversationID: "c1" },
      null,
      { WavPath: "clip.wav", Question: "q1", conversationID: "c1" },
      { WavPath: "clip.wav", Question: "q2", conversationID: "c2" },
    ];
    const records = await score("dataset.jsonl", rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    expect(records.map(brief)).toEqual([["dataset.jsonl#c1", "ok", null], ["dataset.jsonl#line-2", "error", "INVALID_JSON"], ["dataset.jsonl#c2", "ok", null]]);
    expect(records[0].warnings).toEqual(["line 1: no audio source found; record skipped"]);
    expect(records[1].error!.message).toBe(`${dir}/dataset.jsonl: line 2: a record must be a JSON object, got null`);
  });

  it("Voice Live: 20 garbage lines, null and a number before the first row: one error record per line; every conversation is scored", async () => {
    const garbage = Array.from({ length: 20 }, (_, i) => `garbage ${i} {\n`).join("");
    const rows = [{ WavPath: "clip.wav", Question: "q1", conversationID: "c1" }, { WavPath: "clip.wav", Question: "q2", conversationID: "c2" }];
    const records = await score("vl-garbage.jsonl", `${garbage}null\n42\n${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    expect(records).toHaveLength(24);
    records.slice(0, 20).forEach((r, i) => {
      expect([bareId(r.id), r.error!.code]).toEqual([`vl-garbage.jsonl#line-${i + 1}`, "INVALID_JSON"]);
      expect(r.error!.message).toMatch(new RegExp(`/vl-garbage\\.jsonl: line ${i + 1} column 1: JSON syntax error`));
    });
    expect(records[20].error).toEqual({ code: "INVALID_JSON", message: `${dir}/vl-garbage.jsonl: line 21: a record must be a JSON object, got null` });
    expect(records[21].error!.message).toMatch(/\/vl-garbage\.jsonl: line 22: a record must be a JSON object, got /);
    expect(records.slice(22).map(brief)).toEqual([["vl-garbage.jsonl#c1", "ok", null], ["vl-garbage.jsonl#c2", "ok", null]]);
  });
});
