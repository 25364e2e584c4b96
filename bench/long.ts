// Benchmark of long recordings (issue 11): peak RSS and wall time of `analyze` (each --set) and `score` on generated 10-min, 1-h and 4-h recordings; `analyze --set loudness` against ffmpeg's ebur128 filter, whole process against whole process, on a quiet machine and with 8 GB held by another process; a WMA-in-WAV decompression bomb.
//
// `npm run bench long` (all sizes) or `npm run bench long -- --quick` (10 minutes only); `--pairs=N`
// (ebur128 pairs, default 3) and `--hog-gb=N` (memory held by the other process, default 8);
// `--repeat=N` (runs per measurement, default 1: the median counts), `--durations=600,14400` (seconds),
// `--sets=standards,all` (analyze sets), `--layouts=48000x2` (rate x channels), `--rss-only` (no ebur128 comparison, no bomb). The
// recordings are written under the temp folder chunk by chunk (never whole in memory here either)
// and deleted at the end. Every run is a child process of the built CLI under /usr/bin/time (peak
// RSS of the process, wall time); a child whose RSS passes --rss-cap-mb=N (default 3000) is stopped
// and reported as such, so a path that still holds the recording cannot exhaust a shared machine.
// The machine's load average is printed before and after: figures from a loaded machine are noisy.
// The CLI runs as users run it (`voxmetrics …`, `npx voxmetrics …`): bin/voxmetrics.js executed, so
// its shebang's V8 options (a small young generation) apply.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "bin", "voxmetrics.js");
const TIME = "/usr/bin/time";
const SETS = ["loudness", "standards", "parity", "all"] as const;
/** The bar of issue 11: peak RSS of each run, and its growth from the shortest to the longest recording (MB). */
const BAR_PEAK_MB = 150;
const BAR_GROWTH_MB = 20;
/** RSS of a run on an empty recording, for projecting growth from one measured length. */
const BASELINE_MB = 60;

interface Layout {
  rate: number;
  channels: number;
}
const LAYOUTS: Layout[] = [
  { rate: 24000, channels: 1 },
  { rate: 48000, channels: 2 },
];

/** `--name=a,b,c` as text items, or undefined when absent. */
function listText(name: string): string[] | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3).split(",").filter(Boolean) : undefined;
}
/** `--name=1,2,3` as numbers (each a positive integer), or undefined when absent. */
function list(name: string): number[] | undefined {
  const items = listText(name);
  if (!items) return undefined;
  const values = items.map(Number);
  if (!values.length || values.some((v) => !Number.isInteger(v) || v < 1)) throw new Error(`--${name}: expected positive integers separated by commas, got ${items.join(",")}`);
  return values;
}

function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
/** `--name=value` (the form bench/run.ts passes through: a bare value would read as a benchmark name). */
function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
}

/**
 * One minute of speech-like sound: voiced "syllables" (a gliding 90–220 Hz glottal tone with
 * formant-like harmonics, 120–300 ms each) in phrases of 1–4 s separated by 0.3–1.5 s pauses, a
 * faint noise floor; channel 1 (the agent) speaks in the other's pauses.
 */
function speechMinute(rate: number, channels: number, seed: number): Int16Array {
  let s = seed >>> 0 || 1;
  const random = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 0x100000000);
  const frames = rate * 60;
  const out = new Int16Array(frames * channels);
  for (let c = 0; c < channels; c++) {
    let k = c === 0 ? 0 : Math.floor(rate * 0.8);
    while (k < frames) {
      const phraseEnd = Math.min(frames, k + Math.floor(rate * (1 + 3 * random())));
      while (k < phraseEnd) {
        const len = Math.floor(rate * (0.12 + 0.18 * random()));
        const f0 = (c === 0 ? 110 : 180) * (0.8 + 0.4 * random());
        const glide = (random() - 0.5) * 40;
        const amp = 4000 + 6000 * random();
        let phase = 0;
        for (let i = 0; i < len && k + i < frames; i++) {
          const t = i / len;
          phase += (2 * Math.PI * (f0 + glide * t)) / rate;
          const env = Math.sin(Math.PI * t);
          const v = amp * env * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase) + 0.15 * Math.sin(5 * phase));
          out[(k + i) * channels + c] = Math.round(v + 30 * (random() - 0.5));
        }
        k += len + Math.floor(rate * 0.03 * random());
      }
      const pauseEnd = Math.min(frames, k + Math.floor(rate * (0.3 + 1.2 * random())));
      for (; k < pauseEnd; k++) out[k * channels + c] = Math.round(30 * (random() - 0.5));
    }
  }
  return out;
}

/** A 16-bit PCM WAV of `seconds`, written a minute at a time (each minute at a different level, so no two are equal). */
export function writeLongWav(path: string, { rate, channels }: Layout, seconds: number): void {
  const frames = rate * seconds;
  const dataBytes = frames * channels * 2;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(dataBytes, 40);
  const fd = openSync(path, "w");
  try {
    writeSync(fd, header);
    const minutes = [1, 2, 3].map((seed) => speechMinute(rate, channels, seed * 7919 + rate));
    const scaled = new Int16Array(rate * 60 * channels);
    for (let m = 0; m * 60 < seconds; m++) {
      const minute = minutes[m % minutes.length];
      const gain = 0.55 + 0.45 * Math.abs(Math.sin(m * 1.7));
      const n = Math.min(60, seconds - m * 60) * rate * channels;
      for (let i = 0; i < n; i++) scaled[i] = Math.round(minute[i] * gain);
      writeSync(fd, new Uint8Array(scaled.buffer, 0, n * 2));
    }
  } finally {
    closeSync(fd);
  }
}

interface Measured {
  seconds: number;
  rssMb: number;
  code: number | null;
  capped: boolean;
}

/** Children of a process (Linux /proc), for watching the RSS of what /usr/bin/time runs. */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, "utf8").trim().split(/\s+/)) if (task) out.push(Number(task));
    } catch {
      // gone
    }
  }
  return out;
}
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Run `argv` under /usr/bin/time: wall seconds and peak RSS (MB); stopped when any process of it passes `capMb`. */
function measure(argv: string[], capMb: number): Promise<Measured> {
  const report = join(tmpdir(), `vx-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  return new Promise((done) => {
    const child = spawn(TIME, ["-f", "%e %M", "-o", report, ...argv], { stdio: ["ignore", "ignore", "ignore"] });
    let capped = false;
    const watch = setInterval(() => {
      for (const pid of processTree(child.pid!)) {
        if (rssMb(pid) > capMb) {
          capped = true;
          for (const p of processTree(child.pid!).reverse()) {
            try {
              process.kill(p, "SIGKILL");
            } catch {
              // already gone
            }
          }
        }
      }
    }, 100);
    child.on("exit", (code) => {
      clearInterval(watch);
      let seconds = NaN, rss = NaN;
      if (existsSync(report)) {
        const last = readFileSync(report, "utf8").trim().split("\n").pop() ?? "";
        const m = /^([\d.]+) (\d+)$/.exec(last);
        if (m) [seconds, rss] = [Number(m[1]), Number(m[2]) / 1024];
        rmSync(report, { force: true });
      }
      done({ seconds, rssMb: rss, code, capped });
    });
  });
}

const durationLabel = (s: number) => (s % 3600 === 0 ? `${s / 3600} h` : `${+(s / 60).toFixed(2)} min`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (m: Measured) => (m.capped ? `stopped: RSS passed the cap` : `${m.rssMb.toFixed(0).padStart(6)} MB ${m.seconds.toFixed(2).padStart(8)} s${m.code ? ` (exit ${m.code})` : ""}`);
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

/** A process holding `gb` GB of touched memory until killed; resolves once it holds it all. */
function memoryHog(gb: number): Promise<ChildProcess> {
  const code = `const held=[];for(let i=0;i<${gb * 4};i++){const b=Buffer.alloc(256*1024*1024,1);held.push(b);}process.stdout.write("ready\\n");setInterval(()=>held.length,1e6);`;
  const hog = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok, fail) => {
    hog.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && ok(hog));
    hog.on("exit", (c) => fail(new Error(`the memory hog exited (${c}) before holding ${gb} GB`)));
  });
}

export async function benchLong(): Promise<void> {
  const quick = flag("quick");
  const capMb = option("rss-cap-mb", 3000);
  const durations = quick ? [600] : list("durations") ?? [600, 3600, 14400];
  const repeat = Math.max(1, option("repeat", 1));
  const sets = (listText("sets") ?? [...SETS]) as Array<(typeof SETS)[number]>;
  const bad = sets.filter((x) => !(SETS as readonly string[]).includes(x));
  if (bad.length) throw new Error(`--sets: unknown set ${bad.join(", ")} (known: ${SETS.join(", ")})`);
  const dir = mkdtempSync(join(tmpdir(), "vx-bench-long-"));
  const ffmpeg = spawnSync("sh", ["-c", "command -v ffmpeg"], { encoding: "utf8" }).stdout.trim();
  process.stdout.write(`load average at start: ${load()} (2 cores shared: figures are noisy under load)\n`);
  try {
    const layouts = listText("layouts")?.map((l) => {
      const m = /^(\d+)x(\d+)$/.exec(l);
      if (!m) throw new Error(`--layouts: expected RATExCHANNELS items (24000x1,48000x2), got ${l}`);
      return { rate: Number(m[1]), channels: Number(m[2]) };
    }) ?? LAYOUTS;
    for (const layout of layouts) {
      const rows: string[] = [];
      const byRun = new Map<string, number[]>();
      for (const seconds of durations) {
        const name = `${seconds / 60}min-${layout.rate / 1000}k-${layout.channels}ch`;
        const wav = join(dir, `${name}.wav`);
        writeLongWav(wav, layout, seconds);
        const runs: Array<[string, string[]]> = sets.map((set) => [`analyze --set ${set}`, [CLI, "analyze", "--json", "--set", set, wav]]);
        if (layout.channels === 2) {
          runs.push(["score (dual-channel recording)", [CLI, "score", "--workers", "1", wav]]);
        } else {
          const json = join(dir, `${name}.json`);
          writeFileSync(json, JSON.stringify({ turns: [{ role: "user", content: "hello", audio: { url: wav, start_time: 0 } }] }));
          runs.push(["score (test case, one turn)", [CLI, "score", "--workers", "1", json]]);
        }
        for (const [label, argv] of runs) {
          // A run whose RSS grows with length is not repeated where it would pass the cap: projected linearly from the shorter files (from a 60 MB baseline at length 0 after the first).
          const seen = byRun.get(label) ?? [];
          const last = seen[seen.length - 1];
          const previous = seen.length >= 2 ? seen[seen.length - 2] : BASELINE_MB;
          const [d0, d1] = seen.length >= 2 ? [durations[seen.length - 2], durations[seen.length - 1]] : [0, durations[0]];
          const projected = seen.length === 0 ? 0 : Number.isNaN(last) ? Infinity : last + ((last - previous) / (d1 - d0)) * (seconds - d1);
          if (projected > capMb) {
            rows.push(`  ${name.padEnd(18)} ${label.padEnd(32)} skipped: RSS grows with length (projected ${Number.isFinite(projected) ? projected.toFixed(0) + " MB" : "past the cap"} > cap ${capMb} MB)`);
            process.stdout.write(rows[rows.length - 1] + "\n");
            byRun.set(label, [...seen, NaN]);
            continue;
          }
          // --repeat=N runs: the median peak RSS and wall time count (RSS varies by several MB from run to run: when V8 collects).
          const ms: Measured[] = [];
          for (let r = 0; r < repeat && !ms.some((x) => x.capped); r++) ms.push(await measure(argv, capMb));
          const m = ms.some((x) => x.capped) ? ms.find((x) => x.capped)! : { ...ms[0], rssMb: median(ms.map((x) => x.rssMb)), seconds: median(ms.map((x) => x.seconds)) };
          const spread = ms.length > 1 && !m.capped ? ` (median of ${ms.length}: ${ms.map((x) => x.rssMb.toFixed(0)).join(", ")} MB)` : "";
          rows.push(`  ${name.padEnd(18)} ${label.padEnd(32)} ${fmt(m)}${spread}`);
          process.stdout.write(rows[rows.length - 1] + "\n");
          byRun.set(label, [...(byRun.get(label) ?? []), m.capped ? NaN : m.rssMb]);
        }
        rmSync(wav, { force: true });
      }
      if (durations.length > 1) {
        for (const [label, rss] of byRun) {
          const growth = rss[rss.length - 1] - rss[0];
          // Issue 11's bar: peak RSS under 150 MB at every length, and under 20 MB of growth from 10 min to 4 h.
          const met = rss.every((r) => r < BAR_PEAK_MB) && growth < BAR_GROWTH_MB;
          process.stdout.write(`  ${layout.rate / 1000} kHz ${layout.channels} ch, ${label}: peak RSS ${rss.map((r) => (Number.isNaN(r) ? "capped" : r.toFixed(0))).join(" → ")} MB, growth ${durationLabel(durations[0])} → ${durationLabel(durations[durations.length - 1])} ${Number.isNaN(growth) ? "n/a" : growth.toFixed(0) + " MB"} (< ${BAR_PEAK_MB} MB and < ${BAR_GROWTH_MB} MB growth: ${met ? "met" : "NOT met"})\n`);
        }
      }
    }

    if (flag("rss-only")) return;
    if (!ffmpeg) {
      process.stdout.write("ffmpeg not found: the ebur128 comparison and the bomb are skipped\n");
      return;
    }
    // analyze --set loudness against ffmpeg's ebur128 (true peak on), whole process against whole process.
    const seconds = quick ? 600 : 3600;
    const wav = join(dir, "ebur128-24k.wav");
    writeLongWav(wav, LAYOUTS[0], seconds);
    const pairs = option("pairs", 3);
    const compare = async (label: string) => {
      const ours: number[] = [], theirs: number[] = [];
      for (let i = 0; i < pairs; i++) {
        const order = i % 2 === 0 ? ["ours", "theirs"] : ["theirs", "ours"];
        for (const who of order) {
          const m = who === "ours" ? await measure([CLI, "analyze", "--json", "--set", "loudness", wav], capMb) : await measure([ffmpeg, "-nostats", "-i", wav, "-af", "ebur128=peak=true", "-f", "null", "-"], capMb);
          (who === "ours" ? ours : theirs).push(m.seconds);
        }
      }
      const [a, b] = [median(ours), median(theirs)];
      process.stdout.write(`  ${label}: analyze --set loudness ${a.toFixed(2)} s, ffmpeg ebur128=peak=true ${b.toFixed(2)} s (median of ${pairs} alternating pairs): ${(b / a).toFixed(1)}× faster (runs: ours ${ours.map((x) => x.toFixed(2)).join(", ")}; ffmpeg ${theirs.map((x) => x.toFixed(2)).join(", ")})\n`);
    };
    process.stdout.write(`\nloudness vs ffmpeg ebur128 on the ${seconds / 60}-min 24 kHz mono file (load ${load()})\n`);
    await compare("quiet machine");
    const hogGb = option("hog-gb", 8);
    const hog = await memoryHog(hogGb);
    try {
      await compare(`with ${hogGb} GB held by another process`);
    } finally {
      hog.kill("SIGKILL");
    }
    rmSync(wav, { force: true });

    // A decompression bomb: five minutes of WMA v2 (format tag 0x161) in a WAV whose header declares 2 s.
    const bomb = join(dir, "bomb.wav");
    execFileSync(ffmpeg, ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=220:d=300:sample_rate=16000", "-ac", "2", "-c:a", "wmav2", "-b:a", "32k", "-f", "wav", bomb]);
    const b = readFileSync(bomb);
    let at = 12;
    while (b.toString("latin1", at, at + 4) !== "data") at += 8 + b.readUInt32LE(at + 4) + (b.readUInt32LE(at + 4) & 1);
    b.writeUInt32LE(Math.floor(b.readUInt32LE(at + 4) / 2), 28);
    writeFileSync(bomb, b);
    process.stdout.write(`\ntag-0x161 bomb (${(b.length / 1024).toFixed(0)} KB, declares 2 s, holds 300 s)\n`);
    process.stdout.write(`  analyze: ${fmt(await measure([CLI, "analyze", "--json", bomb], capMb))}\n`);
    process.stdout.write(`  score:   ${fmt(await measure([CLI, "score", "--workers", "1", bomb], capMb))}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`load average at end: ${load()}\n`);
  }
}
