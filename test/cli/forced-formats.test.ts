// --input-format through the built CLI: every value works or is a usage error; JSON forced on binary and audio forced on JSON are one error each.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORCIBLE_INPUT_FORMATS, INPUT_FORMATS } from "../../src/index.js";
import { ensureBuilt } from "../helpers/dist.js";
import { jsonLines, runVoxmetrics } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const SAMPLE = join(REPO_ROOT, "fixtures", "sample-archive");
const FLAC = join(SAMPLE, "recordings", "call-0001.flac");
const MORE = join(SAMPLE, "calls", "more.jsonl");
const tmp = mkdtempSync(join(tmpdir(), "vx-forced-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The format each forcible value reads, with an input it reads and what it yields. */
const WORKING: Record<string, { input: string; ids: string[] }> = {
  "deepeval-json": { input: join(SAMPLE, "calls", "batch.json"), ids: ["batch.json#0", "batch.json#1"] },
  "deepeval-jsonl": { input: MORE, ids: ["more.jsonl#0", "more.jsonl#1", "more.jsonl#2"] },
  "deepeval-sim-folder": { input: join(SAMPLE, "deepeval-runs", "simulation-2026-01-15_09-30-00"), ids: ["simulation-2026-01-15_09-30-00"] },
  "voicelive-dataset": { input: join(SAMPLE, "voicelive-dataset.jsonl"), ids: ["voicelive-dataset.jsonl#order-help", "voicelive-dataset.jsonl#thanks"] },
  "voicelive-output": { input: join(SAMPLE, "voicelive-output", "20260115_093000_voicelive-dataset.jsonl"), ids: ["20260115_093000_voicelive-dataset.jsonl#order-help"] },
  "dual-channel": { input: FLAC, ids: ["call-0001.flac"] },
};

describe("--input-format", () => {
  it("covers every forcible format here, and only wav is not forcible", () => {
    expect(Object.keys(WORKING).sort()).toEqual([...FORCIBLE_INPUT_FORMATS].sort());
    expect(INPUT_FORMATS.filter((f) => !FORCIBLE_INPUT_FORMATS.includes(f))).toEqual(["wav"]);
  });

  it.each(Object.entries(WORKING))("%s reads its format", (format, { input, ids }) => {
    const r = runVoxmetrics(["score", input, "--input-format", format, "--metrics", "integrity", "--workers", "0"]);
    expect(r.code).toBe(0);
    const records = jsonLines(r.stdout);
    expect(records.map((x) => bareId(x.id)).sort()).toEqual(ids);
    expect(records.every((x) => x.status === "ok" && x.source.format === format)).toBe(true);
  });

  it("refuses wav (a clip holds no call) and an unknown value as usage errors", () => {
    const wav = runVoxmetrics(["score", FLAC, "--input-format", "wav"]);
    expect(wav.code).toBe(1);
    expect(wav.stdout).toBe("");
    expect(wav.stderr).toContain(`argument 'wav' is invalid. "wav" (a single mono clip) holds no call: score reads two-channel call recordings (--input-format dual-channel); \`voxmetrics analyze\` measures clips`);
    const bogus = runVoxmetrics(["timeline", FLAC, "--input-format", "mp3"]);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toContain("argument 'mp3' is invalid. expected one of deepeval-json, deepeval-jsonl, deepeval-sim-folder, voicelive-dataset, voicelive-output, dual-channel");
  });

  it.each(["deepeval-json", "deepeval-jsonl", "voicelive-dataset", "voicelive-output"])("%s forced on binary audio is one error record", (format) => {
    const wav = join(tmp, `${format}.wav`);
    copyFileSync(join(SAMPLE, "clips", "user-1.wav"), wav);
    const r = runVoxmetrics(["score", FLAC, wav, "--input-format", format, "--workers", "0"]);
    expect(r.code).toBe(1);
    const records = jsonLines(r.stdout);
    expect(records).toHaveLength(2);
    expect(records.map((x) => x.error)).toEqual([
      { code: "UNSUPPORTED_INPUT", message: `${FLAC}: --input-format ${format} expects JSON text, but this is a FLAC audio file` },
      { code: "UNSUPPORTED_INPUT", message: `${wav}: --input-format ${format} expects JSON text, but this is a WAV audio file` },
    ]);
    expect(r.stderr).toContain("voxmetrics: every call errored (2 of 2)");
  });

  it("dual-channel forced on JSON, and a folder format forced on a file, are one error record each", () => {
    const a = runVoxmetrics(["score", MORE, "--input-format", "dual-channel", "--workers", "0"]);
    expect(jsonLines(a.stdout).map((x) => x.error.message)).toEqual([`${MORE}: --input-format dual-channel expects an audio file, but this is JSON text`]);
    const b = runVoxmetrics(["score", MORE, "--input-format", "deepeval-sim-folder", "--workers", "0"]);
    expect(jsonLines(b.stdout).map((x) => x.error.message)).toEqual([`${MORE}: --input-format deepeval-sim-folder reads folders, and this is a file`]);
  });
});
