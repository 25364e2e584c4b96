// Memory of deepeval's parity set on long recordings: measureParityStream (chunk by chunk) against the whole-clip path, on generated speech-like audio.
//
// Run one case per process, so that the WebAssembly memory and the peak RSS belong to that case only:
//   node --import tsx bench/parity-memory.ts <10m-24k-mono|1h-24k-mono|10m-48k-stereo|4h-24k-mono> <stream-generated|stream-memory|whole>
// or with no arguments to run every case in child processes and print a table.
//   stream-generated  measureParityStream over a source that synthesises each chunk as it is read (nothing held)
//   stream-memory     measureParityStream over memoryPcmSource of the whole generated recording
//   whole             ClipKernels.parityFrames() over the whole recording (today's path)
// Figures: wasm memory (the arena's high-water mark: memory never shrinks), peak RSS (getrusage), the
// RSS of the held recording before measuring, and the per-frame summaries' bytes (per hour).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { memoryPcmSource, type PcmChunk, type PcmSource } from "../src/audio/pcm-source.js";
import type { DecodedAudio } from "../src/audio/types.js";
import { ClipKernels } from "../src/dsp/clip-kernels.js";
import type { ParityFrames } from "../src/dsp/parity.js";
import { measureParityStream } from "../src/dsp/parity-stream.js";
import { getKernels, withArena } from "../src/dsp/wasm.js";
import { seededRandom } from "../test/helpers/random.js";

const CASES: Record<string, { seconds: number; sampleRate: number; channels: number }> = {
  "10m-24k-mono": { seconds: 600, sampleRate: 24000, channels: 1 },
  "1h-24k-mono": { seconds: 3600, sampleRate: 24000, channels: 1 },
  "10m-48k-stereo": { seconds: 600, sampleRate: 48000, channels: 2 },
  "4h-24k-mono": { seconds: 4 * 3600, sampleRate: 24000, channels: 1 },
};
const MODES = ["stream-generated", "stream-memory", "whole"] as const;
type Mode = (typeof MODES)[number];

/**
 * A deterministic speech-like signal, generated in order: talk spurts of syllables (a tone at a
 * drifting 90–250 Hz under a 4 Hz envelope, with noise), 40–200 ms word gaps of digital silence,
 * 0.3–2 s pauses of faint noise, and now and then a clipped burst; the second channel is a scaled,
 * slightly noisier copy.
 */
class SpeechLike {
  private readonly random: () => number;
  private phase = 0;
  private hz = 150;
  private left = 0;
  private kind = 0;
  private gain = 8000;
  private t = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly channels: number,
    seed: number,
  ) {
    this.random = seededRandom(seed);
  }

  /** Fills `out` (interleaved) with the next `frames` frames. */
  fill(out: Int16Array, frames: number): void {
    const { random, sampleRate, channels } = this;
    for (let i = 0; i < frames; i++) {
      if (this.left <= 0) {
        const r = random();
        this.kind = r < 0.6 ? 0 : r < 0.8 ? 1 : r < 0.97 ? 2 : 3;
        const seconds = this.kind === 0 ? 0.15 + 0.35 * random() : this.kind === 1 ? 0.04 + 0.16 * random() : this.kind === 2 ? 0.3 + 1.7 * random() : 0.05;
        this.left = Math.round(seconds * sampleRate);
        this.gain = 2000 + 14000 * random();
        this.hz = Math.min(250, Math.max(90, this.hz + (random() - 0.5) * 40));
      }
      this.left--;
      this.t++;
      let v = 0;
      if (this.kind === 0 || this.kind === 3) {
        this.phase += this.hz / sampleRate;
        if (this.phase >= 1) this.phase -= 1;
        const envelope = 0.55 + 0.45 * Math.sin((2 * Math.PI * 4 * this.t) / sampleRate);
        v = (this.kind === 3 ? 45000 : this.gain * envelope) * Math.sin(2 * Math.PI * this.phase) + (random() - 0.5) * 100;
      } else if (this.kind === 2) {
        v = (random() - 0.5) * 60;
      }
      const s = Math.max(-32768, Math.min(32767, Math.round(v)));
      out[i * channels] = s;
      for (let c = 1; c < channels; c++) out[i * channels + c] = Math.max(-32768, Math.min(32767, Math.round(0.7 * s + (random() - 0.5) * 200)));
    }
  }
}

/** A PcmSource that synthesises the recording again at each reading, chunk by chunk (holds one chunk). */
function generatedSource(seconds: number, sampleRate: number, channels: number): PcmSource {
  const frames = Math.round(seconds * sampleRate);
  return {
    sampleRate,
    channels,
    format: "generated/speech-like",
    frames,
    warnings: [],
    *chunks(maxFrames = 65536): Iterable<PcmChunk> {
      const generator = new SpeechLike(sampleRate, channels, 42);
      const buffer = new Int16Array(maxFrames * channels);
      for (let at = 0; at < frames; at += maxFrames) {
        const n = Math.min(maxFrames, frames - at);
        generator.fill(buffer, n);
        yield { frames: n, samples: buffer.subarray(0, n * channels) };
      }
    },
  };
}

function generatedAudio(seconds: number, sampleRate: number, channels: number): DecodedAudio {
  const frames = Math.round(seconds * sampleRate);
  const samples = new Int16Array(frames * channels);
  new SpeechLike(sampleRate, channels, 42).fill(samples, frames);
  return { sampleRate, channels, frames, samples, format: "generated/speech-like", warnings: [] };
}

interface MemoryRow {
  case: string;
  mode: Mode;
  seconds: number;
  wasmMemoryBytes: number;
  heldRssBytes: number;
  peakRssBytes: number;
  summaryBytes: number;
  summaryBytesPerHour: number;
  computeSeconds: number;
  loopEvents: number;
}

/** The compact per-frame summaries the streamed measurement keeps: f64 per 20 ms frame, i32 + u64 per full 250 ms window (an upper bound: only loud windows are kept); pitches are summed as they come. */
function summaryBytes(p: ParityFrames): number {
  return 8 * p.frameCount + 12 * Math.floor(p.sampleCount / Math.trunc(p.sampleRate * 0.25));
}

function runCase(name: string, mode: Mode): MemoryRow {
  const c = CASES[name];
  const k = getKernels();
  let result: ParityFrames;
  let audio: DecodedAudio | null = null;
  if (mode !== "stream-generated") audio = generatedAudio(c.seconds, c.sampleRate, c.channels);
  const heldRssBytes = process.memoryUsage().rss;
  const start = performance.now();
  if (mode === "stream-generated") result = measureParityStream(generatedSource(c.seconds, c.sampleRate, c.channels));
  else if (mode === "stream-memory") result = measureParityStream(memoryPcmSource(audio!));
  else result = withArena((arena) => new ClipKernels(arena, { samples: audio!.samples, channels: audio!.channels, sampleRate: audio!.sampleRate }).parityFrames());
  const computeSeconds = (performance.now() - start) / 1000;
  const bytes = summaryBytes(result);
  return {
    case: name,
    mode,
    seconds: c.seconds,
    wasmMemoryBytes: k.memory.buffer.byteLength,
    heldRssBytes,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    summaryBytes: bytes,
    summaryBytesPerHour: (bytes * 3600) / c.seconds,
    computeSeconds,
    loopEvents: result.loopEvents,
  };
}

const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;

/** Runs every case and mode in child processes, prints a table and returns the rows. */
export async function benchParityMemory(): Promise<MemoryRow[]> {
  const self = fileURLToPath(import.meta.url);
  const rows: MemoryRow[] = [];
  for (const caseName of ["10m-24k-mono", "1h-24k-mono", "10m-48k-stereo"]) {
    for (const m of MODES) {
      const out = execFileSync(process.execPath, ["--import", "tsx", self, caseName, m], { encoding: "utf8", maxBuffer: 1 << 20 });
      rows.push(JSON.parse(out.trim().split("\n").pop()!) as MemoryRow);
    }
  }
  const lines = [
    `${"case".padEnd(16)} ${"mode".padEnd(17)} ${"wasm memory".padStart(12)} ${"held RSS".padStart(11)} ${"peak RSS".padStart(11)} ${"summaries".padStart(11)} ${"per hour".padStart(10)} ${"compute s".padStart(10)}`,
    ...rows.map(
      (r) =>
        `${r.case.padEnd(16)} ${r.mode.padEnd(17)} ${mb(r.wasmMemoryBytes).padStart(12)} ${mb(r.heldRssBytes).padStart(11)} ${mb(r.peakRssBytes).padStart(11)} ` +
        `${mb(r.summaryBytes).padStart(11)} ${mb(r.summaryBytesPerHour).padStart(10)} ${r.computeSeconds.toFixed(2).padStart(10)}`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return rows;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [name, mode] = process.argv.slice(2);
  if (!name) await benchParityMemory();
  else if (!CASES[name] || !MODES.includes(mode as Mode)) throw new Error(`usage: parity-memory.ts [<${Object.keys(CASES).join("|")}> <${MODES.join("|")}>]`);
  else process.stdout.write(`${JSON.stringify(runCase(name, mode as Mode))}\n`);
}
