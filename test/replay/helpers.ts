// Shared pieces of the replay tests: run options against a local agent, JSONL reading, synthetic caller clips as WAV datasets.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveSessionConfig, NO_STUB_TOOLS, writeWavPcm16, type ReplayRunOptions, type ReplaySessionConfig } from "../../src/index.js";
import { synthesizeSpeech } from "../../examples/synthetic-speech.js";

export const REPO = join(import.meta.dirname, "..", "..");
export const BUNDLED_DATASET = join(REPO, "fixtures", "replay-dataset", "dataset.jsonl");
export const BUNDLED_TOOLS = join(REPO, "fixtures", "replay-dataset", "tools.json");

/** Run options for a local agent, short drains and gaps (the tests are real time). */
export function runOptions(input: string, out: string, url: string, over: Partial<ReplayRunOptions> = {}, session: Partial<ReplaySessionConfig> = {}): ReplayRunOptions {
  return {
    input,
    out,
    url,
    config: resolveSessionConfig({}, session).config,
    tools: NO_STUB_TOOLS,
    resampler: "band-limited",
    grouping: "per-conversation",
    concurrency: 1,
    resume: false,
    legacyNames: false,
    vadSplit: "send-whole",
    postClipSilence: "paced",
    drainMs: 600,
    drainIdleMs: 150,
    turnTimeoutMs: 8000,
    turnGapMs: 200,
    connectTimeoutS: 5,
    apiVersion: "beta",
    suffix: "",
    ...over,
  };
}

export function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Synthetic caller speech (deterministic), `silenceS` of digital silence before and after. */
export function speechClip(text: string, rate: number, seed = 3): Int16Array {
  return synthesizeSpeech(text, { sampleRate: rate, pitchHz: 120, seed });
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Write a dataset folder: WAV clips and one JSONL line per row. */
export function writeDataset(dir: string, name: string, rows: Array<{ clip: Int16Array; rate: number; wav: string; line: Record<string, unknown> }>): string {
  mkdirSync(join(dir, "clips"), { recursive: true });
  for (const r of rows) writeFileSync(join(dir, "clips", r.wav), writeWavPcm16(r.clip, r.rate));
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => JSON.stringify({ WavPath: `clips/${r.wav}`, ...r.line })).join("\n") + "\n");
  return path;
}
