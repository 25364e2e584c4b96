// The fuzzing harness: seeded mutated inputs, written in batches and run through the built CLI (analyze and score), checking the per-input contract: one record per input, no signal deaths, no time-outs, no stack traces, bounded peak RSS.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { mutatedJson, mutatedWav, Rng, type FuzzInput } from "./mutators.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(REPO, "bin", "voxmetrics.js");
const RSS_REPORTER = join(REPO, "scripts", "fuzz", "rss-reporter.mjs");

export interface FuzzOptions {
  seed: number;
  /** Mutated inputs in all (about half WAV, half JSON/JSONL). */
  count: number;
  /** Inputs per CLI run. */
  batch: number;
  /** Worker threads of `score`. */
  workers: number;
  /** A CLI run taking longer is a time-out failure (ms). */
  timeoutMs: number;
  /** A CLI run peaking above this is a memory failure (MB, the whole process). */
  maxRssMb: number;
  /** Where the inputs of failing batches are copied (null: not kept). */
  failuresDir: string | null;
  /** The CLI run under fuzzing (the built bin/voxmetrics.js; another only to test the harness itself). */
  cli?: string;
  /** Progress lines (stderr) . */
  log?: (line: string) => void;
}

export const DEFAULT_FUZZ_OPTIONS: Readonly<FuzzOptions> = Object.freeze({
  seed: 1,
  count: 10_000,
  batch: 100,
  workers: 2,
  timeoutMs: 180_000,
  maxRssMb: 1024,
  failuresDir: "fuzz-failures",
});

export interface FuzzFailure {
  batch: number;
  command: "analyze" | "score";
  reason: string;
  /** Inputs the failure is about (empty: the whole batch). */
  inputs: string[];
}

export interface FuzzReport {
  seed: number;
  inputs: number;
  batches: number;
  records: { ok: number; error: number };
  /** Error codes seen, with counts. */
  codes: Record<string, number>;
  /** Error records whose message does not name their input file (each is also a failure). */
  unnamedMessages: number;
  /** A few messages of the codes that point at a gap (INTERNAL, KERNEL_ERROR, WORKER_CRASHED) and of unnamed ones (each is also a failure). */
  samples: string[];
  peakRssMb: number;
  failures: FuzzFailure[];
  seconds: number;
}

interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  rssMb: number | null;
}

/** Run the built CLI in `cwd`, bounded by `timeoutMs`, reporting its peak RSS. */
function runCli(cli: string, args: string[], cwd: string, timeoutMs: number): Promise<CliResult> {
  const rssFile = join(cwd, `.rss-${args[0]}`);
  rmSync(rssFile, { force: true });
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", `file://${RSS_REPORTER}`, cli, ...args], {
      cwd,
      env: { ...process.env, VOXMETRICS_FUZZ_RSS: rssFile },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const rss = existsSync(rssFile) ? Number(readFileSync(rssFile, "utf8")) / 1024 : null;
      done({ code, signal: timedOut ? null : signal, timedOut, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), rssMb: rss });
    });
  });
}

/**
 * Error codes that point at a gap in the readers rather than at the input: each is a failure (a bad
 * input must be named for what is wrong with it, never an internal error, a kernel's refusal or a
 * worker's death).
 */
const GAP_CODES = new Set(["INTERNAL", "KERNEL_ERROR", "WORKER_CRASHED"]);
const MAX_SAMPLES = 20;

const STACK_LINE = /^\s+at .+[:(]\d+:\d+\)?$/m;

function parseLines(text: string): { records: Array<Record<string, any>>; bad: string[] } {
  const records: Array<Record<string, any>> = [];
  const bad: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      bad.push(line.slice(0, 200));
    }
  }
  return { records, bad };
}

/** Generate the inputs of batch `b` (deterministic in seed and batch). */
export function batchInputs(seed: number, b: number, size: number, clipBase64: string): FuzzInput[] {
  const rng = new Rng((seed * 1_000_003 + b * 7919) >>> 0);
  return Array.from({ length: size }, (_, i) => (rng.chance(0.5) ? mutatedWav(rng, b * size + i) : mutatedJson(rng, b * size + i, clipBase64)));
}

/** A short clean clip every JSON input may point at (`clip.wav`) or embed. */
function cleanClip(): Uint8Array {
  const rate = 16000;
  const n = rate;
  const bytes = new Uint8Array(44 + 2 * n);
  const v = new DataView(bytes.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => (bytes[at + i] = c.charCodeAt(0)));
  ascii(0, "RIFF");
  v.setUint32(4, 36 + 2 * n, true);
  ascii(8, "WAVEfmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, rate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  ascii(36, "data");
  v.setUint32(40, 2 * n, true);
  for (let i = 0; i < n; i++) v.setInt16(44 + 2 * i, Math.round(8000 * Math.sin((2 * Math.PI * 180 * i) / rate) * (0.5 + 0.5 * Math.sin((2 * Math.PI * 4 * i) / rate))), true);
  return bytes;
}

/** Run the whole campaign; resolves to its report (failures listed, never thrown). */
export async function runFuzz(partial: Partial<FuzzOptions> = {}): Promise<FuzzReport> {
  const o: FuzzOptions = { ...DEFAULT_FUZZ_OPTIONS, ...partial };
  if (!o.cli && !existsSync(join(REPO, "dist", "cli", "main.js"))) throw new Error("the CLI is not built: run `npm run build` first");
  const t0 = performance.now();
  const clip = cleanClip();
  const clipBase64 = Buffer.from(clip).toString("base64");
  const report: FuzzReport = { seed: o.seed, inputs: 0, batches: 0, records: { ok: 0, error: 0 }, codes: {}, unnamedMessages: 0, samples: [], peakRssMb: 0, failures: [], seconds: 0 };
  const batches = Math.ceil(o.count / o.batch);
  for (let b = 0; b < batches; b++) {
    const size = Math.min(o.batch, o.count - b * o.batch);
    const inputs = batchInputs(o.seed, b, size, clipBase64);
    const dir = mkdtempSync(join(tmpdir(), "voxmetrics-fuzz-"));
    try {
      writeFileSync(join(dir, "clip.wav"), clip);
      for (const input of inputs) writeFileSync(join(dir, input.name), input.bytes);
      const failures = await checkBatch(b, dir, inputs, o, report);
      report.failures.push(...failures);
      if (failures.length > 0 && o.failuresDir) keepFailure(o, b, dir, inputs, failures);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    report.inputs += size;
    report.batches++;
    o.log?.(`batch ${b + 1}/${batches}: ${report.inputs} inputs, ${report.failures.length} failure(s), peak RSS ${report.peakRssMb.toFixed(0)} MB`);
  }
  report.seconds = (performance.now() - t0) / 1000;
  return report;
}

async function checkBatch(b: number, dir: string, inputs: FuzzInput[], o: FuzzOptions, report: FuzzReport): Promise<FuzzFailure[]> {
  const failures: FuzzFailure[] = [];
  const fail = (command: FuzzFailure["command"], reason: string, names: string[] = []) => failures.push({ batch: b, command, reason, inputs: names });
  const cli = o.cli ?? CLI;
  const wavs = inputs.filter((i) => i.name.endsWith(".wav")).map((i) => i.name);
  const all = inputs.map((i) => i.name);

  const common = (command: FuzzFailure["command"], r: CliResult) => {
    if (r.timedOut) fail(command, `timed out after ${o.timeoutMs} ms`);
    if (r.signal) fail(command, `killed by ${r.signal}`);
    if (r.code !== null && r.code !== 0 && r.code !== 1) fail(command, `exit code ${r.code}`);
    if (STACK_LINE.test(r.stderr)) fail(command, `stack trace on stderr: ${r.stderr.slice(0, 500)}`);
    if (r.rssMb !== null) {
      report.peakRssMb = Math.max(report.peakRssMb, r.rssMb);
      if (r.rssMb > o.maxRssMb) fail(command, `peak RSS ${r.rssMb.toFixed(0)} MB above ${o.maxRssMb} MB`);
    } else if (!r.timedOut && !r.signal) fail(command, "no RSS report (the process did not exit normally)");
  };
  const account = (command: FuzzFailure["command"], rec: Record<string, any>, file: string) => {
    if (rec.status === "ok") report.records.ok++;
    else {
      report.records.error++;
      const code = String(rec.error?.code);
      report.codes[code] = (report.codes[code] ?? 0) + 1;
      const unnamed = typeof rec.error?.message !== "string" || !rec.error.message.includes(file);
      if (unnamed) report.unnamedMessages++;
      if ((unnamed || GAP_CODES.has(code)) && report.samples.length < MAX_SAMPLES) report.samples.push(`${code} ${file}: ${String(rec.error?.message).slice(0, 300)}`);
      if (GAP_CODES.has(code)) fail(command, `${code} record: ${String(rec.error?.message).slice(0, 300)}`, [file]);
      else if (unnamed) fail(command, `the ${code} message does not name the file: ${String(rec.error?.message).slice(0, 300)}`, [file]);
    }
  };

  if (wavs.length > 0) {
    const r = await runCli(cli, ["analyze", "--json", "--set", "all", ...wavs], dir, o.timeoutMs);
    common("analyze", r);
    const { records, bad } = parseLines(r.stdout);
    if (bad.length) fail("analyze", `non-JSON output line: ${bad[0]}`);
    if (!r.timedOut && !r.signal) {
      if (records.length !== wavs.length) fail("analyze", `${records.length} records for ${wavs.length} inputs`, wavs);
      records.forEach((rec, i) => {
        if (rec.path !== wavs[i]) fail("analyze", `record ${i} is for ${rec.path}, expected ${wavs[i]}`, [wavs[i]]);
        else account("analyze", rec, wavs[i]);
      });
    }
  }

  const r = await runCli(cli, ["score", "--workers", String(o.workers), "--call-timeout", String(Math.ceil(o.timeoutMs / 3000)), "-o", "results.jsonl", ...all], dir, o.timeoutMs);
  common("score", r);
  if (r.code !== 0 && !r.timedOut && !r.signal) fail("score", `exit code ${r.code}: ${r.stderr.trim().split("\n").pop()}`);
  const { records, bad } = parseLines(existsSync(join(dir, "results.jsonl")) ? readFileSync(join(dir, "results.jsonl"), "utf8") : "");
  if (bad.length) fail("score", `non-JSON results line: ${bad[0]}`);
  const ids = new Set<string>();
  const perFile = new Map<string, number>();
  for (const rec of records) {
    if (ids.has(rec.id)) fail("score", `duplicate record id ${rec.id}`);
    ids.add(rec.id);
    const file = String(rec.source?.path ?? "");
    perFile.set(file, (perFile.get(file) ?? 0) + 1);
    account("score", rec, file);
  }
  if (!r.timedOut && !r.signal) {
    for (const name of all) {
      const n = perFile.get(name) ?? 0;
      if (n === 0) fail("score", `no record for ${name}`, [name]);
      else if (name.endsWith(".wav") && n !== 1) fail("score", `${n} records for ${name}`, [name]);
    }
    for (const file of perFile.keys()) if (!all.includes(file)) fail("score", `a record for ${file}, which is not an input`);
  }
  return failures;
}

function keepFailure(o: FuzzOptions, b: number, dir: string, inputs: FuzzInput[], failures: FuzzFailure[]): void {
  const target = resolve(o.failuresDir!, `seed-${o.seed}-batch-${b}`);
  mkdirSync(target, { recursive: true });
  cpSync(dir, target, { recursive: true });
  const recipes = Object.fromEntries(inputs.map((i) => [i.name, i.recipe]));
  writeFileSync(join(target, "FAILURES.json"), JSON.stringify({ failures, recipes }, null, 2));
}
