// Discovery: every format of the sample archive detected, stable ids, forced formats, bad inputs as error references.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDeepevalJsonFile } from "../../src/ingest/formats/deepeval-json.js";
import { discoverCalls, loadCall } from "../../src/ingest/index.js";
import { displayPathOf } from "../../src/ingest/files.js";
import { REPO_ROOT } from "../helpers/shared.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");
const tmp = mkdtempSync(join(tmpdir(), "vx-disc-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("discoverCalls", () => {
  it("finds every call of the sample archive with its format", () => {
    const { calls, warnings, skipped } = discoverCalls([ARCHIVE]);
    expect(calls.map((c) => [c.id, c.format])).toEqual([
      ["calls/batch.json#0", "deepeval-json"],
      ["calls/batch.json#1", "deepeval-json"],
      ["calls/more.jsonl#0", "deepeval-jsonl"],
      ["calls/more.jsonl#1", "deepeval-jsonl"],
      ["calls/more.jsonl#2", "deepeval-jsonl"],
      ["calls/order-status.json#0", "deepeval-json"],
      ["deepeval-runs/simulation-2026-01-15_09-30-00", "deepeval-sim-folder"],
      ["recordings/call-0001.flac", "dual-channel"],
      ["voicelive-dataset.jsonl#order-help", "voicelive-dataset"],
      ["voicelive-dataset.jsonl#thanks", "voicelive-dataset"],
      ["voicelive-output/20260115_093000_voicelive-dataset.jsonl#order-help", "voicelive-output"],
    ]);
    // The sample archive warns of nothing; its mono clips are passed over by name.
    expect(warnings).toEqual([]);
    expect(skipped).toContain(`${displayPathOf(join(ARCHIVE, "clips", "user-1.wav"))}: skipped (a mono clip, not a call recording)`);
    for (const ref of calls) expect(() => loadCall(ref)).not.toThrow();
  });

  it("keeps ids independent of the working directory and relative to the common folder of several inputs", () => {
    const cwd = process.cwd();
    try {
      process.chdir(tmp);
      const a = discoverCalls([join(ARCHIVE, "calls", "more.jsonl")]).calls.map((c) => c.id);
      expect(a).toEqual(["more.jsonl#0", "more.jsonl#1", "more.jsonl#2"]);
      const b = discoverCalls([join(ARCHIVE, "calls", "batch.json"), join(ARCHIVE, "recordings")]).calls.map((c) => c.id);
      expect(b).toEqual(["calls/batch.json#0", "calls/batch.json#1", "recordings/call-0001.flac"]);
      expect(discoverCalls([join(ARCHIVE, "deepeval-runs", "simulation-2026-01-15_09-30-00")]).calls[0].id).toBe("simulation-2026-01-15_09-30-00");
    } finally {
      process.chdir(cwd);
    }
  });

  it("honours --input-format and exclusions", () => {
    const weird = join(tmp, "cases.txt");
    writeFileSync(weird, '{"turns": [{"role": "user", "content": "hi"}]}\n{"turns": [{"role": "assistant", "content": "yo"}]}\n');
    const forced = discoverCalls([weird], { inputFormat: "deepeval-jsonl" }).calls;
    expect(forced.map((c) => [c.id, c.format, c.error])).toEqual([
      ["cases.txt#0", "deepeval-jsonl", undefined],
      ["cases.txt#1", "deepeval-jsonl", undefined],
    ]);
    expect(loadCall(forced[1]).testCase.turns[0].content).toBe("yo");
    const unforced = discoverCalls([weird]).calls;
    expect(unforced[0].error?.code).toBe("UNSUPPORTED_INPUT");
    const excluded = discoverCalls([ARCHIVE], { exclude: [join(ARCHIVE, "calls")] }).calls;
    expect(excluded.some((c) => c.id.startsWith("calls/"))).toBe(false);
  });

  it("turns a missing input and a mono clip given directly into error references", () => {
    const { calls } = discoverCalls([join(tmp, "nope.json"), join(ARCHIVE, "clips", "user-1.wav")]);
    expect(calls[0].error).toMatchObject({ code: "IO_ERROR" });
    expect(calls[0].error!.message).toMatch(/nope\.json: no such file or folder/);
    expect(calls[1].error!.message).toMatch(/user-1\.wav: a mono clip, not a call recording/);
    expect(relative(tmp, calls[0].path)).toBe("nope.json");
  });

  it("reads a JSON file the same way as the library loader: the same records, the same errors", () => {
    const turns = [{ role: "user", content: "hi" }];
    const files = {
      "array.json": JSON.stringify([{ turns }, "x", { turns: [] }, { turns }]),
      "lines.jsonl": `${JSON.stringify({ turns })}\n\n{"turns": [\n${JSON.stringify({ turns, name: "b" })}\n`,
      "pretty.json": JSON.stringify({ turns, name: "p" }, null, 2),
      "broken-array.json": `[${JSON.stringify({ turns })}, {bad}]`,
      "mixed.jsonl": `${JSON.stringify({ turns })}\n${JSON.stringify({ turns, name: "p" }, null, 1)}\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      const path = join(tmp, name);
      writeFileSync(path, text);
      const library = loadDeepevalJsonFile(path);
      const { calls } = discoverCalls([path]);
      expect(calls.map((c) => c.id), name).toEqual(library.map((r) => `${name}#${r.index}`));
      const viaDiscovery = calls.map((ref) => {
        try {
          return loadCall(ref).testCase.name ?? "ok";
        } catch (e) {
          return (e as { code: string }).code;
        }
      });
      expect(viaDiscovery, name).toEqual(library.map((r) => (r.testCase ? r.testCase.name ?? "ok" : r.error!.code)));
    }
    // A .jsonl is read line by line, even when the whole file happens to be one pretty-printed object.
    const pretty = join(tmp, "pretty.jsonl");
    writeFileSync(pretty, JSON.stringify({ turns, name: "p" }, null, 2));
    expect(loadDeepevalJsonFile(pretty).map((r) => [r.line, r.error?.code])).toEqual(Array.from({ length: 9 }, (_, i) => [i + 1, "INVALID_JSON"]));
    expect(discoverCalls([pretty]).calls.map((c) => c.error?.message)).toEqual([`${pretty}: line 1 column 2: JSON syntax error: unexpected end of input (expected a property name in double quotes)`]);
  });

  it("carries the format it detected on error references (null when none was)", () => {
    writeFileSync(join(tmp, "notes.txt"), "hello");
    const { calls } = discoverCalls([join(tmp, "nope.json"), join(ARCHIVE, "clips", "user-1.wav"), join(tmp, "notes.txt")]);
    expect(calls.map((c) => [c.format, c.error?.code])).toEqual([
      [null, "IO_ERROR"],
      ["wav", "UNSUPPORTED_INPUT"],
      [null, "UNSUPPORTED_INPUT"],
    ]);
  });

  it("refuses unknown options by name before reading anything", () => {
    expect(() => discoverCalls([ARCHIVE], { inputFormat: "mp3" as "wav" })).toThrow(expect.objectContaining({ code: "INVALID_OPTION", field: "inputFormat" }));
    const [ref] = discoverCalls([join(ARCHIVE, "recordings")]).calls;
    expect(() => loadCall(ref, { agentChannel: "middle" as "left" })).toThrow(expect.objectContaining({ code: "INVALID_OPTION", field: "agentChannel" }));
  });
});
