// Parity-analysis throughput: analyzeParity in seconds of audio per second of compute (single thread), against deepeval's Python figures.
//
// Decoding is excluded (PCM is in memory before timing); the copy into WebAssembly memory and the
// whole measurement record are included. Each figure is the median of RUNS runs, a run repeating
// the analysis for at least RUN_SECONDS. Inputs: the real deepeval-sim WAVs when ../shared is present,
// a deterministic 10-minute speech-like 24 kHz call, and espeak-ng speech when espeak-ng is installed.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { analyzeParity, assembleParityMeasurements } from "../src/analysis/parity.js";
import { decodeAudio, downmixTruncating } from "../src/audio/index.js";
import { memoryPcmSource } from "../src/audio/pcm-source.js";
import { measureParityStream } from "../src/dsp/parity-stream.js";
import { seededRandom } from "../test/helpers/random.js";

/** deepeval python-v4.1.10 analyze_audio throughput (× realtime) measured on these files. */
const DEEPEVAL_REALTIME: Record<string, number> = {
  "deepeval-turn-1-assistant.wav": 48,
  "deepeval-conversation.wav": 83,
};
/** The goal: 100 × deepeval's speed on its own files, ≥ 5,000 × realtime. */
const GOAL_REALTIME = 5000;
const RUNS = 7;
const RUN_SECONDS = 0.25;
const SYNTHETIC_SECONDS = 600;
const SYNTHETIC_RATE = 24000;

export interface ParityBenchRow {
  name: string;
  sampleRate: number;
  audioSeconds: number;
  /** Median seconds of audio analysed per second of compute. */
  realtimeFactor: number;
  /** The same through measureParityStream over the clip in memory (chunks of the source's default size). */
  streamRealtimeFactor: number;
  /** The same with the WAV decode (bytes → int16 mono mix) included, for clips read from files. */
  withDecodeFactor: number | null;
  /** realtimeFactor / deepeval's, when deepeval's figure for the file is known. */
  vsDeepeval: number | null;
}

export interface ParityBenchResult {
  benchmark: "parity";
  runs: number;
  goalRealtimeFactor: number;
  rows: ParityBenchRow[];
  /** Time-weighted over the deepeval-sim files: their total audio / their total compute. */
  deepevalSimOverall: number | null;
}

interface Clip {
  name: string;
  pcm: Int16Array;
  sampleRate: number;
  /** The file's bytes, when it came from a file (then decoding is timed too). */
  bytes?: Uint8Array;
}

/** The engine's own path from WAV bytes to the int16 mono mix (deepeval's acceptance rules). */
function decodeMono(bytes: Uint8Array): { pcm: Int16Array; sampleRate: number } {
  const d = decodeAudio(bytes, { compat: "deepeval" });
  return { pcm: downmixTruncating(d.samples, d.channels), sampleRate: d.sampleRate };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median realtime factor of `work` (one analysis of the clip) over RUNS runs. */
function measureRealtimeFactor(clip: Clip, work: () => void): number {
  const audioSeconds = clip.pcm.length / clip.sampleRate;
  const warmUpEnd = performance.now() + 1000 * RUN_SECONDS;
  while (performance.now() < warmUpEnd) work();
  const factors: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let calls = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      work();
      calls++;
      elapsed = (performance.now() - start) / 1000;
    } while (elapsed < RUN_SECONDS);
    factors.push((calls * audioSeconds) / elapsed);
  }
  return median(factors);
}

function deepevalSimClips(): Clip[] {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = [process.env.VOXMETRICS_SHARED, join(repoRoot, "..", "shared")].find((d) => d && existsSync(join(d, "parity", "deepeval-sim")));
  if (!shared) return [];
  const folder = join(shared, "parity", "deepeval-sim");
  return readdirSync(folder)
    .filter((f) => f.endsWith(".wav"))
    .sort()
    .flatMap((f) => {
      const bytes = new Uint8Array(readFileSync(join(folder, f)));
      return [{ name: f, bytes, ...decodeMono(bytes) }];
    });
}


/**
 * A speech-like call: talk spurts of 2–8 s separated by 0.3–2 s of faint noise; spurts are
 * syllables of fricative noise and a voiced part (glottal pulses at a drifting 85–260 Hz through two
 * formant resonators), with 20–150 ms gaps between words.
 */
function syntheticCall(seconds: number, sampleRate: number, seed: number): Int16Array {
  const random = seededRandom(seed);
  const n = Math.round(seconds * sampleRate);
  const x = new Float64Array(n);
  const floorNoise = () => (random() * 2 - 1) * 30;
  let i = 0;
  const fill = (count: number, sample: () => number) => {
    for (const end = Math.min(n, i + count); i < end; i++) x[i] = sample();
  };
  while (i < n) {
    const spurtEnd = i + Math.round((2 + 6 * random()) * sampleRate);
    let f0 = 85 + 175 * random();
    while (i < Math.min(n, spurtEnd)) {
      const gain = 2000 + 12000 * random();
      fill(Math.round((0.02 + 0.06 * random()) * sampleRate), () => (random() * 2 - 1) * gain * 0.3);
      const formants = [300 + 600 * random(), 900 + 1500 * random()].map((hz) => {
        const r = 0.97;
        return { a1: 2 * r * Math.cos((2 * Math.PI * hz) / sampleRate), a2: -r * r, y1: 0, y2: 0 };
      });
      const voiced = Math.round((0.08 + 0.22 * random()) * sampleRate);
      let phase = 0;
      for (let k = 0; k < voiced && i < n; k++, i++) {
        f0 = Math.min(260, Math.max(85, f0 + (random() - 0.5) * 0.5));
        phase += f0 / sampleRate;
        let excitation = 0;
        if (phase >= 1) {
          phase -= 1;
          excitation = 1;
        }
        let y = excitation;
        for (const f of formants) {
          const out = y + f.a1 * f.y1 + f.a2 * f.y2;
          f.y2 = f.y1;
          f.y1 = out;
          y = out;
        }
        x[i] = Math.sin((Math.PI * k) / voiced) * gain * 0.004 * y + floorNoise();
      }
      fill(Math.round((0.02 + 0.13 * random()) * sampleRate), floorNoise);
    }
    fill(Math.round((0.3 + 1.7 * random()) * sampleRate), floorNoise);
  }
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/** About a minute of espeak-ng speech (22.05 kHz), or null when espeak-ng is not installed. */
function espeakClip(): Clip | null {
  const text = Array.from(
    { length: 8 },
    (_, k) =>
      `Thank you for calling, this is the order desk, line ${k + 1}. I can see your order was placed last Tuesday ` +
      `and it left our warehouse this morning. The courier expects to deliver it on Friday between nine and twelve. ` +
      `Is there anything else I can help you with today?`,
  ).join(" ");
  try {
    const wav = decodeMono(execFileSync("espeak-ng", ["--stdout", text], { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }));
    return wav.pcm.length > 0 ? { name: "espeak-ng speech", ...wav } : null;
  } catch {
    return null;
  }
}

function formatFactor(v: number): string {
  return `${Math.round(v).toLocaleString("en-US")}×`;
}

/** Runs the benchmark, prints a table to stdout and returns the figures. */
export async function benchParity(): Promise<ParityBenchResult> {
  const sim = deepevalSimClips();
  const extra: Clip[] = [{ name: `synthetic speech-like call (${SYNTHETIC_SECONDS / 60} min)`, pcm: syntheticCall(SYNTHETIC_SECONDS, SYNTHETIC_RATE, 1), sampleRate: SYNTHETIC_RATE }];
  const espeak = espeakClip();
  if (espeak) extra.push(espeak);
  if (sim.length === 0) process.stdout.write("(../shared/parity/deepeval-sim is absent: real deepeval WAVs skipped)\n");

  const rows: ParityBenchRow[] = [];
  for (const clip of [...sim, ...extra]) {
    const realtimeFactor = measureRealtimeFactor(clip, () => analyzeParity(clip.pcm, clip.sampleRate));
    const mono = { sampleRate: clip.sampleRate, channels: 1, frames: clip.pcm.length, samples: clip.pcm, format: "bench/int16", warnings: [] };
    const streamRealtimeFactor = measureRealtimeFactor(clip, () => assembleParityMeasurements(measureParityStream(memoryPcmSource(mono))));
    const bytes = clip.bytes;
    const withDecodeFactor = bytes
      ? measureRealtimeFactor(clip, () => {
          const { pcm, sampleRate } = decodeMono(bytes);
          analyzeParity(pcm, sampleRate);
        })
      : null;
    const deepeval = DEEPEVAL_REALTIME[clip.name];
    rows.push({
      name: clip.name,
      sampleRate: clip.sampleRate,
      audioSeconds: clip.pcm.length / clip.sampleRate,
      realtimeFactor,
      streamRealtimeFactor,
      withDecodeFactor,
      vsDeepeval: deepeval ? realtimeFactor / deepeval : null,
    });
  }
  const simRows = rows.filter((r) => sim.some((c) => c.name === r.name));
  const simAudio = simRows.reduce((s, r) => s + r.audioSeconds, 0);
  const simCompute = simRows.reduce((s, r) => s + r.audioSeconds / r.realtimeFactor, 0);
  const deepevalSimOverall = simRows.length ? simAudio / simCompute : null;

  const lines = [
    `analyzeParity, single thread, median of ${RUNS} runs (goal ≥ ${formatFactor(GOAL_REALTIME)} realtime = 100 × deepeval); streamed = measureParityStream over the clip in memory`,
    `${"clip".padEnd(44)} ${"rate".padStart(6)} ${"audio s".padStart(9)} ${"× realtime".padStart(12)} ${"+ WAV decode".padStart(13)} ${"vs deepeval".padStart(12)} ${"streamed".padStart(10)}`,
    ...rows.map(
      (r) =>
        `${basename(r.name).padEnd(44)} ${String(r.sampleRate).padStart(6)} ${r.audioSeconds.toFixed(2).padStart(9)} ` +
        `${formatFactor(r.realtimeFactor).padStart(12)} ${(r.withDecodeFactor === null ? "" : formatFactor(r.withDecodeFactor)).padStart(13)} ` +
        `${(r.vsDeepeval === null ? "" : `${r.vsDeepeval.toFixed(0)}× faster`).padStart(12)} ${formatFactor(r.streamRealtimeFactor).padStart(10)}`,
    ),
  ];
  if (deepevalSimOverall !== null) lines.push(`${"deepeval-sim overall (time-weighted)".padEnd(61)} ${formatFactor(deepevalSimOverall).padStart(12)}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return { benchmark: "parity", runs: RUNS, goalRealtimeFactor: GOAL_REALTIME, rows, deepevalSimOverall };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await benchParity();
