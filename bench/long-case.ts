// `npm run bench long-case`: peak RSS of `voxmetrics score --workers 1` on a deepeval test case (four turns) whose assistant turn's `url` names a generated long WAV of 10 min, 1 h and 4 h (24 kHz mono and 48 kHz stereo), with the parity set only, with --acoustics, and with the voxmetrics profile; optionally against another build (before/after).
//
// The long WAV is written minute by minute (bench/long.ts writeLongWav) into a scratch folder next
// to three short clips and the test case, and scored by the built CLI under `/usr/bin/time -f %M`
// (peak resident set of the process, worker thread included). Options (after `--`, as --name=value):
//   --durations=600,3600,14400   lengths of the long clip (s)
//   --layouts=24000x1,48000x2    sample rate x channels of the long clip
//   --modes=parity,acoustics,profile   what to score: deepeval's metrics (the parity set), with
//                                --acoustics, with --profile voxmetrics (integrity block too)
//   --baseline=<bin>             another build's bin/voxmetrics.js, measured too ("before"); its
//                                records must equal this build's (elapsed time aside)
//   --baseline-max-seconds=<s>   longest clip given to the baseline (a build that reads the clip
//                                whole takes GBs) @defaultValue 3600
//   --keep                       keep the generated files (in $VOXMETRICS_BENCH_DIR or the temp folder)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeLongWav } from "./long.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(REPO, "bin", "voxmetrics.js");
const TIME = "/usr/bin/time";
const MODES: Record<string, string[]> = { parity: [], acoustics: ["--acoustics"], profile: ["--profile", "voxmetrics"] };

interface Run {
  build: "this" | "baseline";
  layout: string;
  seconds: number;
  mode: string;
  peakMb: number;
  wallS: number;
}

/** `--name=value` (the form bench/run.ts leaves alone: words without a dash are benchmark names). */
function flag(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}
const list = (name: string, fallback: string[]) => (flag(name) ? flag(name)!.split(",").filter(Boolean) : fallback);

function label(seconds: number): string {
  if (seconds >= 3600) return `${+(seconds / 3600).toFixed(2)} h`;
  return seconds >= 60 ? `${+(seconds / 60).toFixed(1)} min` : `${seconds} s`;
}

/** Score `file` with `cli` under /usr/bin/time: the peak RSS and the record (elapsed time removed). */
function measure(cli: string, file: string, mode: string, out: string): { peakMb: number; wallS: number; record: Record<string, unknown> } {
  const run = spawnSync(TIME, ["-f", "%M %e", process.execPath, cli, "score", "--workers", "1", "-q", ...MODES[mode], "-o", out, file], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`${cli} score ${file} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const [kb, wall] = run.stderr.trim().split("\n").pop()!.split(" ").map(Number);
  const record = JSON.parse(readFileSync(out, "utf8").trim()) as Record<string, unknown>;
  delete record.elapsed_ms;
  if (record.status !== "ok") throw new Error(`${file}: ${JSON.stringify(record.error)}`);
  return { peakMb: kb / 1024, wallS: wall, record };
}

/** The test case: a caller's clip, the assistant's long clip, another exchange of short clips, each placed on the call clock. */
function writeCase(dir: string, longName: string, seconds: number): string {
  const turns = [
    { role: "user", content: "Hi, I need help with my order.", audio: { url: "clips/user-1.wav", start_time: 0 } },
    { role: "assistant", content: "Sure. Let me read you the whole policy.", audio: { url: `clips/${longName}`, start_time: 3.5 } },
    { role: "user", content: "Thanks, that is all.", audio: { url: "clips/user-2.wav", start_time: 3.5 + seconds + 0.6 } },
    { role: "assistant", content: "You are welcome. Goodbye.", audio: { url: "clips/agent-2.wav", start_time: 3.5 + seconds + 4.2 } },
  ];
  const file = join(dir, `case-${longName.replace(/\.wav$/, "")}.json`);
  writeFileSync(file, JSON.stringify({ name: `long ${label(seconds)}`, turns }));
  return file;
}

export async function benchLongCase(): Promise<Run[]> {
  if (!existsSync(TIME)) {
    process.stdout.write(`${TIME} not found (install the Debian package \`time\`): long-case benchmark skipped\n`);
    return [];
  }
  if (!existsSync(join(REPO, "dist", "pool", "worker.js"))) throw new Error("run `npm run build` first");
  const durations = list("durations", ["600", "3600", "14400"]).map(Number);
  const layouts = list("layouts", ["24000x1", "48000x2"]).map((l) => l.split("x").map(Number) as [number, number]);
  const modes = list("modes", Object.keys(MODES));
  for (const m of modes) if (!MODES[m]) throw new Error(`unknown mode ${m}; choose from ${Object.keys(MODES).join(", ")}`);
  const baseline = flag("baseline") ? resolve(flag("baseline")!) : null;
  const baselineMax = Number(flag("baseline-max-seconds") ?? 3600);
  const keep = process.argv.includes("--keep");
  const dir = process.env.VOXMETRICS_BENCH_DIR ?? join(tmpdir(), "voxmetrics-long-case");
  mkdirSync(join(dir, "clips"), { recursive: true });
  // The short clips: 3 s each, at 16 kHz mono (the long clip's format does not matter to them).
  for (const [name, seed] of [["user-1.wav", 3], ["user-2.wav", 2], ["agent-2.wav", 4]] as const) writeLongWav(join(dir, "clips", name), { rate: 16000, channels: 1 }, seed);

  const runs: Run[] = [];
  const row = (r: Run) =>
    process.stdout.write(`${r.build.padEnd(8)} ${r.layout.padEnd(14)} ${label(r.seconds).padStart(7)}  ${r.mode.padEnd(9)} peak RSS ${r.peakMb.toFixed(1).padStart(8)} MB  ${r.wallS.toFixed(1).padStart(6)} s\n`);
  for (const [rate, channels] of layouts) {
    const layout = `${rate / 1000} kHz ${channels === 1 ? "mono" : channels === 2 ? "stereo" : `${channels} ch`}`;
    for (const seconds of durations) {
      const longName = `long-${seconds}s-${rate}x${channels}.wav`;
      const wav = join(dir, "clips", longName);
      const bytes = 44 + seconds * rate * channels * 2;
      if (!existsSync(wav) || statSync(wav).size !== bytes) {
        const t0 = performance.now();
        writeLongWav(wav, { rate, channels }, seconds);
        process.stdout.write(`generated ${wav} (${(bytes / 2 ** 20).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      }
      const file = writeCase(dir, longName, seconds);
      for (const mode of modes) {
        const mine = measure(CLI, file, mode, join(dir, "this.jsonl"));
        runs.push({ build: "this", layout, seconds, mode, peakMb: mine.peakMb, wallS: mine.wallS });
        row(runs[runs.length - 1]);
        if (baseline && seconds <= baselineMax) {
          const before = measure(baseline, file, mode, join(dir, "baseline.jsonl"));
          runs.push({ build: "baseline", layout, seconds, mode, peakMb: before.peakMb, wallS: before.wallS });
          row(runs[runs.length - 1]);
          if (JSON.stringify(before.record) !== JSON.stringify(mine.record)) throw new Error(`${file} (${mode}): the baseline's record differs from this build's`);
        }
      }
      if (!keep) rmSync(wav, { force: true });
    }
  }
  for (const f of ["this.jsonl", "baseline.jsonl"]) rmSync(join(dir, f), { force: true });

  // Growth from the shortest to the longest clip, per layout and mode (this build).
  const shortest = Math.min(...durations);
  const longest = Math.max(...durations);
  if (longest > shortest) {
    for (const [rate, channels] of layouts) {
      const layout = `${rate / 1000} kHz ${channels === 1 ? "mono" : channels === 2 ? "stereo" : `${channels} ch`}`;
      for (const mode of modes) {
        const at = (s: number) => runs.find((r) => r.build === "this" && r.layout === layout && r.mode === mode && r.seconds === s)!;
        const growth = at(longest).peakMb - at(shortest).peakMb;
        process.stdout.write(`growth ${label(shortest)} → ${label(longest)}, ${layout}, ${mode}: ${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MB (peak ${at(longest).peakMb.toFixed(1)} MB)\n`);
      }
    }
  }
  if (!keep) rmSync(dir, { recursive: true, force: true });
  return runs;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await benchLongCase();
