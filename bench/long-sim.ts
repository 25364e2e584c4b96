// `npm run bench long-sim`: peak RSS and wall time of `voxmetrics score --workers 1` on generated deepeval voice-simulation folders (formats.md F2) of 10 min, 1 h and 4 h, whose start times are recovered by placing every turn file in the combined render; optionally against another build (before/after).
//
// A folder holds user and assistant turns of 1.5–9 s (a noisy tone under a syllable envelope, each
// turn different), 0.2–1.2 s apart, every seventh turn barging in on the previous one, and
// deepeval-conversation.wav: the clamped sum of the turns at their offsets, written as the turns are
// made (the generator never holds the render). Options (after `--`, as --name=value):
//   --durations=600,3600,14400   render lengths (s)
//   --rate=24000                 sample rate of turns and render
//   --runs=3                     runs per build and duration (medians are printed)
//   --baseline=<bin>             another build's bin/voxmetrics.js, measured too ("before"); its
//                                records must equal this build's (elapsed time aside)
//   --baseline-max-seconds=<s>   longest render given to the baseline @defaultValue 3600
//   --keep                       keep the generated folders (in $VOXMETRICS_BENCH_DIR or the temp folder)
//   --canned=N                   N assistant turns spread over the call say the same thing (one clip,
//                                N turn files): the segments they occur in are searched again together;
//                                up to 8 copies are placed in turn order, more are left unplaced (the
//                                whole search cannot tell them apart either) @defaultValue 0
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeWavPcm16 } from "../src/audio/wav-writer.js";
import { seededRandom } from "../test/helpers/random.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(REPO, "bin", "voxmetrics.js");
const TIME = "/usr/bin/time";

function wavHeader(frames: number, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + 2 * frames, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(2 * rate, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(2 * frames, 40);
  return header;
}

/**
 * Write a simulation folder of about `seconds` at `rate` into `dir`: turn files and the combined
 * render. Returns the turn offsets in samples (what locating the turns must recover) and the canned turns.
 */
export function writeLongSim(dir: string, rate: number, seconds: number, seed = 1, canned = 0): { offsets: number[]; cannedTurns: Set<number> } {
  mkdirSync(dir, { recursive: true });
  const random = seededRandom(seed);
  // The layout first (lengths and offsets), so the render's header can be written before its samples.
  const lengths: number[] = [];
  const offsets: number[] = [];
  for (let at = Math.round(0.3 * rate), i = 0; at < seconds * rate - 10 * rate; i++) {
    const len = Math.round((1.5 + 7.5 * random()) * rate);
    lengths.push(len);
    offsets.push(at);
    const barge = i % 7 === 6;
    at += len + Math.round((barge ? -(0.3 + 0.7 * random()) : 0.2 + random()) * rate);
  }
  // The canned turns: assistant turns (odd) spread evenly, all as long as the first of them.
  const cannedTurns = new Set(Array.from({ length: canned }, (_, c) => 1 + 2 * Math.floor(((c + 0.5) * (lengths.length / 2 - 1)) / canned)));
  if (canned > 0) {
    const cannedLength = lengths[Math.min(...cannedTurns)];
    // The offsets again with the canned turns' length, each gap (or barge-in) as drawn.
    const gaps = offsets.slice(1).map((o, i) => o - (offsets[i] + lengths[i]));
    for (const i of cannedTurns) lengths[i] = cannedLength;
    for (let i = 1; i < offsets.length; i++) offsets[i] = Math.max(0, offsets[i - 1] + lengths[i - 1] + gaps[i - 1]);
  }
  let cannedClip: Int16Array | null = null;
  const frames = Math.max(...offsets.map((o, i) => o + lengths[i])) + Math.round(0.5 * rate);
  const fd = openSync(join(dir, "deepeval-conversation.wav"), "w");
  try {
    writeSync(fd, wavHeader(frames, rate));
    // The render from `flushed` on, as int32 sums; written (clamped) up to the next turn's offset.
    let sum = new Int32Array(30 * rate);
    let flushed = 0;
    const out = new Int16Array(sum.length);
    const flush = (to: number) => {
      for (let start = flushed; start < to; ) {
        const n = Math.min(to - start, out.length);
        for (let k = 0; k < n; k++) out[k] = Math.max(-32768, Math.min(32767, sum[start - flushed + k]));
        writeSync(fd, new Uint8Array(out.buffer, 0, 2 * n));
        start += n;
      }
      sum.copyWithin(0, to - flushed);
      sum.fill(0, sum.length - (to - flushed));
      flushed = to;
    };
    lengths.forEach((len, i) => {
      const o = offsets[i];
      const f = 110 + 220 * random();
      const level = 3000 + 5000 * random();
      const clip = new Int16Array(len);
      for (let k = 0; k < len; k++) {
        const envelope = 0.5 + 0.5 * Math.sin((2 * Math.PI * (3 + (i % 3)) * k) / rate);
        clip[k] = Math.round(envelope * (level * Math.sin((2 * Math.PI * f * k) / rate) + 0.25 * level * (random() - 0.5)));
      }
      if (cannedTurns.has(i)) {
        cannedClip ??= clip;
        clip.set(cannedClip);
      }
      const n = Math.floor(i / 2) + 1;
      writeFileSync(join(dir, `deepeval-turn-${n}-${i % 2 ? "assistant" : "user"}.wav`), writeWavPcm16(clip, rate));
      if (o + len - flushed > sum.length) {
        const grown = new Int32Array(2 * (o + len - flushed));
        grown.set(sum);
        sum = grown;
      }
      for (let k = 0; k < len; k++) sum[o - flushed + k] += clip[k];
      flush(i + 1 < offsets.length ? Math.min(offsets[i + 1], frames) : frames);
    });
  } finally {
    closeSync(fd);
  }
  return { offsets, cannedTurns };
}

/** `--name=value` (the form bench/run.ts leaves alone: words without a dash are benchmark names). */
function flag(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** Score `dir` with `cli` under /usr/bin/time: peak RSS (MB), wall time (s) and the record (elapsed time removed). */
function measure(cli: string, dir: string, out: string): { peakMb: number; wallS: number; record: string } {
  const run = spawnSync(TIME, ["-f", "%M %e", process.execPath, cli, "score", "--workers", "1", "-q", "-o", out, dir], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`${cli} score ${dir} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const [kb, wall] = run.stderr.trim().split("\n").pop()!.split(" ").map(Number);
  const record = JSON.parse(readFileSync(out, "utf8").trim()) as Record<string, unknown>;
  delete record.elapsed_ms;
  if (record.status !== "ok") throw new Error(`${dir}: ${JSON.stringify(record.error)}`);
  return { peakMb: kb / 1024, wallS: wall, record: JSON.stringify(record) };
}

export async function benchLongSim(): Promise<void> {
  if (!existsSync(TIME)) {
    process.stdout.write(`${TIME} not found (install the Debian package \`time\`): long-sim benchmark skipped\n`);
    return;
  }
  if (!existsSync(join(REPO, "dist", "pool", "worker.js"))) throw new Error("run `npm run build` first");
  const durations = (flag("durations") ?? "600,3600,14400").split(",").map(Number);
  const rate = Number(flag("rate") ?? 24000);
  const runs = Number(flag("runs") ?? 3);
  const baseline = flag("baseline") ? resolve(flag("baseline")!) : null;
  const baselineMax = Number(flag("baseline-max-seconds") ?? 3600);
  const keep = process.argv.includes("--keep");
  const canned = Number(flag("canned") ?? 0);
  const root = process.env.VOXMETRICS_BENCH_DIR ?? join(tmpdir(), "voxmetrics-long-sim");
  for (const seconds of durations) {
    const dir = join(root, `sim-${seconds}s-${rate}`);
    const t0 = performance.now();
    const { offsets, cannedTurns } = writeLongSim(dir, rate, seconds, 1, canned);
    process.stdout.write(`generated ${dir}: ${offsets.length} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const builds: Array<[string, string]> = [["this", CLI]];
    if (baseline && seconds <= baselineMax) builds.push(["baseline", baseline]);
    const records = new Map<string, string>();
    for (const [name, cli] of builds) {
      const got = Array.from({ length: runs }, () => measure(cli, dir, join(root, `${name}.jsonl`)));
      records.set(name, got[0].record);
      // Every turn placed where it was rendered.
      const turns = (JSON.parse(got[0].record) as { turns: Array<{ start_time: number | null }> }).turns;
      // Canned turns: placed in turn order up to 8 copies, unplaced beyond (8 offsets at most tell copies apart).
      const wrong = turns.findIndex((t, i) => t.start_time !== (cannedTurns.has(i) && canned > 8 ? null : offsets[i] / rate));
      if (turns.length !== offsets.length || wrong >= 0) throw new Error(`${name}: ${dir}: turn ${wrong} has start_time ${turns[wrong]?.start_time}, rendered at ${offsets[wrong] / rate}`);
      process.stdout.write(
        `${name.padEnd(8)} ${String(seconds).padStart(6)} s  peak RSS median ${median(got.map((g) => g.peakMb)).toFixed(1)} MB (${got.map((g) => g.peakMb.toFixed(1)).join(", ")})  wall median ${median(got.map((g) => g.wallS)).toFixed(1)} s (${got.map((g) => g.wallS.toFixed(1)).join(", ")})  ${turns.filter((t) => t.start_time !== null).length} of ${turns.length} turns placed\n`,
      );
    }
    // This build names the turns its budget left unplaced in a warning of their own; the baseline (a
    // whole search) names them with the others not placed. Which turns are placed is in the turns.
    const comparable = (record: string) => record.replace(/start_time left null for [^"]*/g, "start_time left null for …");
    if (records.size === 2 && comparable(records.get("this")!) !== comparable(records.get("baseline")!)) throw new Error(`${dir}: the baseline's record differs from this build's`);
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  for (const f of ["this.jsonl", "baseline.jsonl"]) rmSync(join(root, f), { force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await benchLongSim();
