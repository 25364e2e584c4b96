// Discovery: every format of the sample archive detected, stable ids, forced formats, bad inputs as error references.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDeepevalJsonFile } from "../../src/ingest/formats/deepeval-json.js";
import { discoverCalls, loadCall } from "../../src/ingest/index.js";
import { displayPathOf } from "../../src/ingest/files.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");
const tmp = mkdtempSync(join(tmpdir(), "vx-disc-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("discoverCalls", () => {
  it("finds every call of the sample archive with its format", () => {
    const { calls, warnings, skipped } = discoverCalls([ARCHIVE]);
    expect(calls.map((c) => [bareId(c.id), c.format])).toEqual([
      ["batch.json#0", "deepeval-json"],
      ["batch.json#1", "deepeval-json"],
      ["more.jsonl#0", "deepeval-jsonl"],
      ["more.jsonl#1", "deepeval-jsonl"],
      ["more.jsonl#2", "deepeval-jsonl"],
      ["order-status.json#0", "deepeval-json"],
      ["simulation-2026-01-15_09-30-00", "deepeval-sim-folder"],
      ["call-0001.flac", "dual-channel"],
      ["voicelive-dataset.jsonl#order-help", "voicelive-dataset"],
      ["voicelive-dataset.jsonl#thanks", "voicelive-dataset"],
      ["20260115_093000_voicelive-dataset.jsonl#order-help", "voicelive-output"],
    ]);
    for (const c of calls) expect(c.id).toMatch(/@[0-9a-f]{10}$/);
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    // The sample archive warns of nothing; its mono clips are passed over by name.
    expect(warnings).toEqual([]);
    expect(skipped).toContain(`${displayPathOf(join(ARCHIVE, "clips", "user-1.wav"))}: skipped (a mono clip, not a call recording)`);
    for (const ref of calls) expect(() => loadCall(ref)).not.toThrow();
  });

  it("gives a call the same id whichever folder, parent folder or files were passed, whatever the working directory", () => {
    const cwd = process.cwd();
    const idsByPath = (inputs: string[]) => new Map(discoverCalls(inputs).calls.map((c) => [`${c.path}|${bareId(c.id)}`, c.id]));
    const whole = idsByPath([ARCHIVE]);
    try {
      process.chdir(tmp);
      const runs = [
        idsByPath([join(ARCHIVE, "..")]),
        idsByPath([join(ARCHIVE, "calls", "more.jsonl")]),
        idsByPath([join(ARCHIVE, "calls", "batch.json"), join(ARCHIVE, "recordings")]),
        idsByPath([join(ARCHIVE, "deepeval-runs", "simulation-2026-01-15_09-30-00")]),
        idsByPath([join(ARCHIVE, "voicelive-output", "20260115_093000_voicelive-dataset.jsonl"), join(ARCHIVE, "voicelive-dataset.jsonl")]),
      ];
      for (const run of runs) for (const [where, id] of run) if (whole.has(where)) expect(id, where).toBe(whole.get(where));
      expect(runs.slice(1).reduce((n, r) => n + r.size, 0)).toBe(3 + 3 + 1 + 3);
    } finally {
      process.chdir(cwd);
    }
    // The digest follows the content: a changed record gets a new id, the others keep theirs.
    const copy = join(tmp, "more.jsonl");
    const lines = readFileSync(join(ARCHIVE, "calls", "more.jsonl"), "utf8").trim().split("\n");
    writeFileSync(copy, [lines[0], lines[1].replace('"inline-audio"', '"inline-audio-2"'), lines[2]].join("\n"));
    const before = discoverCalls([join(ARCHIVE, "calls", "more.jsonl")]).calls.map((c) => c.id);
    const after = discoverCalls([copy]).calls.map((c) => c.id);
    expect([after[0] === before[0], after[1] === before[1], after[2] === before[2]]).toEqual([true, false, true]);
  });

  it("honours --input-format and exclusions", () => {
    const weird = join(tmp, "cases.txt");
    writeFileSync(weird, '{"turns": [{"role": "user", "content": "hi"}]}\n{"turns": [{"role": "assistant", "content": "yo"}]}\n');
    const forced = discoverCalls([weird], { inputFormat: "deepeval-jsonl" }).calls;
    expect(forced.map((c) => [bareId(c.id), c.format, c.error])).toEqual([
      ["cases.txt#0", "deepeval-jsonl", undefined],
      ["cases.txt#1", "deepeval-jsonl", undefined],
    ]);
    expect(loadCall(forced[1]).testCase.turns[0].content).toBe("yo");
    const unforced = discoverCalls([weird]).calls;
    expect(unforced[0].error?.code).toBe("UNSUPPORTED_INPUT");
    const excluded = discoverCalls([ARCHIVE], { exclude: [join(ARCHIVE, "calls")] }).calls;
    expect(excluded.some((c) => c.path.startsWith(join(ARCHIVE, "calls")))).toBe(false);
    expect(excluded.length).toBeGreaterThan(0);
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
      expect(calls.map((c) => bareId(c.id)), name).toEqual(library.map((r) => `${name}#${r.index}`));
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
