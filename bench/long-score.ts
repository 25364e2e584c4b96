// `npm run bench long-score`: peak RSS of the whole `voxmetrics score` process (--workers 1 and 2) on generated dual-channel recordings of 10 min, 1 h and 4 h at 24 kHz and 48 kHz, optionally against another build (before/after).
//
// Each recording is written block by block (test/helpers/long-recording.ts) into a scratch folder
// and scored by the built CLI under `/usr/bin/time -f %M` (peak resident set of the process, which
// holds the worker threads too). Options (after `--`, as --name=value):
//   --durations=600,3600,14400   recording lengths (s)
//   --rates=24000,48000          sample rates (Hz)
//   --workers=1,2                worker counts
//   --repeat=N                   runs per recording and worker count; the highest peak is kept
//                                (peak RSS varies by a few MB from run to run with garbage-collection timing) @defaultValue 1
//   --compat=deepeval            score under --compat deepeval (the recording is read in place in both modes)
//   --baseline=<bin>             another build's bin/voxmetrics.js, measured too ("before"); its
//                                records must equal this build's (elapsed time aside)
//   --baseline-max-seconds=<s>   longest recording given to the baseline (it decodes recordings
//                                whole: 4 h at 48 kHz would take many GB) @defaultValue 3600
//   --keep                       keep the generated recordings (in $VOXMETRICS_BENCH_DIR or the temp folder)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeLongRecording } from "../test/helpers/long-recording.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(REPO, "bin", "voxmetrics.js");
const TIME = "/usr/bin/time";

interface Run {
  build: "this" | "baseline";
  seconds: number;
  rate: number;
  workers: number;
  peakMb: number;
  wallS: number;
  turns: number;
}

/** `--name=value` (the form bench/run.ts leaves alone: words without a dash are benchmark names). */
function flag(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}
const list = (name: string, fallback: number[]) => (flag(name) ?? "").split(",").filter(Boolean).map(Number).concat(flag(name) ? [] : fallback);

/** Score `file` with `cli` under /usr/bin/time; the record (elapsed time removed) and the peak RSS. */
function measure(cli: string, file: string, workers: number, out: string): { peakMb: number; wallS: number; record: Record<string, unknown> } {
  const repeat = Math.max(1, Number(flag("repeat") ?? 1));
  let best: { peakMb: number; wallS: number; record: Record<string, unknown> } | null = null;
  for (let i = 0; i < repeat; i++) {
    const run = measureOnce(cli, file, workers, out);
    if (best && JSON.stringify(best.record) !== JSON.stringify(run.record)) throw new Error(`${file}: two runs of the same build gave different records`);
    if (!best || run.peakMb > best.peakMb) best = run;
  }
  return best!;
}

function measureOnce(cli: string, file: string, workers: number, out: string): { peakMb: number; wallS: number; record: Record<string, unknown> } {
  rmSync(out, { force: true });
  const compat = flag("compat") ? ["--compat", flag("compat")!] : [];
  const run = spawnSync(TIME, ["-f", "%M %e", process.execPath, cli, "score", "--workers", String(workers), ...compat, "-o", out, file], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`${cli} score ${file} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const last = run.stderr.trim().split("\n").pop()!;
  const [kb, wall] = last.split(" ").map(Number);
  const record = JSON.parse(readFileSync(out, "utf8").trim()) as Record<string, unknown>;
  delete record.elapsed_ms;
  if (record.status !== "ok") throw new Error(`${file}: ${JSON.stringify(record.error)}`);
  return { peakMb: kb / 1024, wallS: wall, record };
}

function label(seconds: number): string {
  if (seconds >= 3600) return `${+(seconds / 3600).toFixed(2)} h`;
  return seconds >= 60 ? `${+(seconds / 60).toFixed(1)} min` : `${seconds} s`;
}

export async function benchLongScore(): Promise<Run[]> {
  if (!existsSync(TIME)) {
    process.stdout.write(`${TIME} not found (install the Debian package \`time\`): long-score benchmark skipped\n`);
    return [];
  }
  if (!existsSync(join(REPO, "dist", "pool", "worker.js"))) throw new Error("run `npm run build` first");
  const durations = list("durations", [600, 3600, 14400]);
  const rates = list("rates", [24000, 48000]);
  const workerCounts = list("workers", [1, 2]);
  const baseline = flag("baseline") ? resolve(flag("baseline")!) : null;
  const baselineMax = Number(flag("baseline-max-seconds") ?? 3600);
  const keep = process.argv.includes("--keep");
  const dir = process.env.VOXMETRICS_BENCH_DIR ?? join(tmpdir(), "voxmetrics-long-score");
  mkdirSync(dir, { recursive: true });

  const runs: Run[] = [];
  const row = (r: Run) =>
    process.stdout.write(`${r.build.padEnd(8)} ${String(r.rate).padStart(6)} Hz ${label(r.seconds).padStart(7)}  --workers ${r.workers}  peak RSS ${r.peakMb.toFixed(1).padStart(8)} MB  ${r.wallS.toFixed(1).padStart(6)} s  ${r.turns} turns\n`);
  for (const rate of rates) {
    for (const seconds of durations) {
      const file = join(dir, `call-${seconds}s-${rate}.wav`);
      const bytes = 44 + Math.round(seconds * rate) * 4;
      if (!existsSync(file) || statSync(file).size !== bytes) {
        const t0 = performance.now();
        writeLongRecording(file, { seconds, sampleRate: rate, seed: 11 });
        process.stdout.write(`generated ${file} (${(bytes / 2 ** 20).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      }
      for (const workers of workerCounts) {
        const mine = measure(CLI, file, workers, join(dir, "this.jsonl"));
        const turns = (mine.record.turns as unknown[]).length;
        runs.push({ build: "this", seconds, rate, workers, peakMb: mine.peakMb, wallS: mine.wallS, turns });
        row(runs[runs.length - 1]);
        if (baseline && seconds <= baselineMax) {
          const before = measure(baseline, file, workers, join(dir, "baseline.jsonl"));
          const same = JSON.stringify(before.record) === JSON.stringify(mine.record);
          runs.push({ build: "baseline", seconds, rate, workers, peakMb: before.peakMb, wallS: before.wallS, turns: (before.record.turns as unknown[]).length });
          row(runs[runs.length - 1]);
          if (!same) throw new Error(`${file}: the baseline's record differs from this build's`);
        }
      }
      if (!keep) rmSync(file, { force: true });
    }
  }
  rmSync(join(dir, "this.jsonl"), { force: true });
  rmSync(join(dir, "baseline.jsonl"), { force: true });

  // Growth from the shortest to the longest recording, per rate and worker count (this build).
  const shortest = Math.min(...durations);
  const longest = Math.max(...durations);
  if (longest > shortest) {
    for (const rate of rates) {
      for (const workers of workerCounts) {
        const at = (s: number) => runs.find((r) => r.build === "this" && r.rate === rate && r.workers === workers && r.seconds === s)!;
        const growth = at(longest).peakMb - at(shortest).peakMb;
        const peak = Math.max(...runs.filter((r) => r.build === "this" && r.rate === rate && r.workers === workers).map((r) => r.peakMb));
        // Issue 11's bar: peak RSS under 150 MB, and less than 20 MB more for the longest recording than for the shortest.
        const met = peak < 150 && growth < 20;
        process.stdout.write(`growth ${label(shortest)} → ${label(longest)}, ${rate} Hz, --workers ${workers}: ${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MB (peak ${at(longest).peakMb.toFixed(1)} MB; < 150 MB and < 20 MB growth: ${met ? "met" : "NOT met"})\n`);
      }
    }
  }
  return runs;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await benchLongScore();
