// Benchmark of queue mode (issue 16): the same archive scored by a local pool of 2 workers and through Redis by 2 worker processes of 1 thread each; throughput ratio and the queue's overhead per call (medians of interleaved pairs).
//
// redis-server (Debian package) runs on a free loopback port without persistence; the two
// `voxmetrics worker` processes are started once and stay up across runs, as in a deployment. Each
// run is a fresh child process running dist/ that times discovery, scoring and writing the records,
// and reports its own CPU time; the queue's overhead is the CPU that Redis, the coordinator and the
// worker processes used beyond a local run's.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateArchive } from "./archive.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CALLS = 1000;
const REPEATS = 5;
const QUEUE_NAME = "bench";
/** Calls per job (`score --batch-size`): short calls amortise the per-job Redis work over 64 calls. */
const BATCH_SIZE = 64;
const REDIS_SERVER = "/usr/bin/redis-server";

interface Run {
  seconds: number;
  calls: number;
  errors: number;
  cpuSeconds: number;
  /** CPU spent loading the queue modules before the timed part (queue runs). */
  loadCpuSeconds: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** CPU seconds a process has used so far (utime + stime from /proc). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * One timed run in a fresh child process running dist/: discovery, scoring and writing every record
 * to a JSONL file. The local pool is started and warmed by one untimed pass first, as the queue's
 * long-running workers are warm; the timed pass then measures both modes in steady state.
 */
function runChild(archive: string, mode: "local" | { queue: string }): Run {
  const dist = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, "dist", p)).href);
  const out = join(tmpdir(), `voxmetrics-bench-queue-${process.pid}.jsonl`);
  const score = "{ ...DEFAULT_SCORE_OPTIONS }";
  const body =
    mode === "local"
      ? `
    const pool = startPool({ workers: 2 });
    await runCalls(discoverCalls([archive]).calls, { ingest: {}, score: ${score} }, pool, () => {});
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { calls } = discoverCalls([archive]);
    let n = 0, errors = 0;
    await runCalls(calls, { ingest: {}, score: ${score}, appendTo: out }, pool, (o) => { n++; if (o.digest.status !== "ok") errors++; });
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    await pool.close();`
      : `
    // Loaded before the clock starts, as the local pool is started and warmed before it: bullmq and
    // ioredis cost a fixed ~0.2-0.5 s of CPU per coordinator process, whatever the archive's size.
    const l0 = process.cpuUsage();
    await import(${dist("queue/coordinator.js")});
    const l = process.cpuUsage(l0);
    loadCpuSeconds = (l.user + l.system) / 1e6;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { calls } = discoverCalls([archive]);
    let n = 0, errors = 0;
    await runCallsOnQueue(calls, () => false, { ingest: {}, score: ${score} }, { url: ${JSON.stringify(mode.queue)}, name: ${JSON.stringify(QUEUE_NAME)}, batchSize: ${BATCH_SIZE} }, (o) => { appendEncodedLines(out, [o.line]); n++; if (o.digest.status !== "ok") errors++; });
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);`;
  const script = `
    import { discoverCalls } from ${dist("ingest/index.js")};
    import { startPool, runCalls } from ${dist("pool/index.js")};
    import { runCallsOnQueue } from ${dist("queue/index.js")};
    import { DEFAULT_SCORE_OPTIONS } from ${dist("scoring/index.js")};
    import { appendEncodedLines } from ${dist("scoring/record.js")};
    import { writeFileSync } from "node:fs";
    const archive = ${JSON.stringify(archive)};
    const out = ${JSON.stringify(out)};
    writeFileSync(out, "");
    let loadCpuSeconds = 0;
    ${body}
    console.log(JSON.stringify({ calls: n, errors, seconds, cpuSeconds: (c.user + c.system) / 1e6, loadCpuSeconds }));
    process.exit(0);`;
  const text = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 1 << 24 });
  rmSync(out, { force: true });
  return JSON.parse(text.trim().split("\n").pop()!) as Run;
}

async function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  let text = "";
  await new Promise<void>((res, rej) => {
    child.stderr!.on("data", (d: Buffer) => {
      text += d.toString();
      if (pattern.test(text)) res();
    });
    child.once("exit", (code) => rej(new Error(`exited (${code}) before "${pattern}": ${text}`)));
  });
}

export async function benchQueue(): Promise<{ ratio: number; overheadMsPerCall: number }> {
  if (!existsSync(join(ROOT, "dist", "report", "index.js"))) throw new Error("run `npm run build` first (the benchmark runs dist/)");
  if (!existsSync(REDIS_SERVER)) {
    process.stdout.write(`${REDIS_SERVER} not found (Debian package redis-server): queue benchmark skipped\n`);
    return { ratio: NaN, overheadMsPerCall: NaN };
  }
  const archive = generateArchive(CALLS);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "vx-bench-redis-"));
  const redis = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}/0`;
  const workers: ChildProcess[] = [];
  try {
    await new Promise((r) => setTimeout(r, 300));
    for (let k = 1; k <= 2; k++) {
      const w = spawn(process.execPath, [join(ROOT, "bin", "voxmetrics.js"), "worker", "--queue", url, "--queue-name", QUEUE_NAME, "--workers", "1", "--name", `bench-${k}`], { stdio: ["ignore", "ignore", "pipe"] });
      workers.push(w);
      await waitForLine(w, /ready:/);
    }
    // One queue run to warm the page cache and the workers' code (local runs warm their own pool).
    runChild(archive, { queue: url });
    const pairs: Array<{ local: Run; queued: Run; redisCpu: number; workersCpu: number }> = [];
    let warmup = NaN;
    const pids = [redis.pid!, ...workers.map((w) => w.pid!)];
    const load0 = loadavg()[0];
    // One more pair, not counted: the first pair after start-up ran cold (0.47 against 0.77-0.94
    // for the others in an earlier run: page cache, JIT of the worker processes' scoring path).
    for (let i = -1; i < REPEATS; i++) {
      const local = runChild(archive, "local");
      const before = pids.map(cpuOf);
      const queued = runChild(archive, { queue: url });
      const used = pids.map((pid, k) => cpuOf(pid) - before[k]);
      if (queued.calls !== CALLS || local.calls !== CALLS) throw new Error(`scored ${queued.calls} / ${local.calls} of ${CALLS} calls`);
      if (i < 0) {
        warmup = queued.calls / queued.seconds / (local.calls / local.seconds);
        continue;
      }
      pairs.push({ local, queued, redisCpu: used[0], workersCpu: used[1] + used[2] });
    }
    const load1 = loadavg()[0];
    const rate = (r: Run) => r.calls / r.seconds;
    const ratio = median(pairs.map((p) => rate(p.queued) / rate(p.local)));
    const perCall = (seconds: number) => (seconds * 1000) / CALLS;
    const wallMsPerCall = median(pairs.map((p) => perCall(p.queued.seconds - p.local.seconds)));
    // CPU of everything the queue run used (Redis, coordinator, both workers) minus the local run's.
    const overheadMsPerCall = median(pairs.map((p) => perCall(p.redisCpu + p.queued.cpuSeconds + p.workersCpu - p.local.cpuSeconds)));
    const redisMsPerCall = median(pairs.map((p) => perCall(p.redisCpu)));
    const coordinatorMsPerCall = median(pairs.map((p) => perCall(p.queued.cpuSeconds)));
    const workersMsPerCall = median(pairs.map((p) => perCall(p.workersCpu)));
    const localMsPerCall = median(pairs.map((p) => perCall(p.local.cpuSeconds)));
    const lines = [
      `archive: ${CALLS} generated ~30 s calls in mixed formats; ${REPEATS} interleaved pairs, both modes warm (local pool warmed by an untimed pass, queue workers long-running)`,
      `local --workers 2: ${median(pairs.map((p) => rate(p.local))).toFixed(1)} calls/s (median); queue (--batch-size ${BATCH_SIZE}), 2 worker processes × 1 thread: ${median(pairs.map((p) => rate(p.queued))).toFixed(1)} calls/s`,
      `throughput queue / local: ${ratio.toFixed(2)} (pairs ${pairs.map((p) => (rate(p.queued) / rate(p.local)).toFixed(2)).join(", ")}; warm-up pair, not counted: ${warmup.toFixed(2)}; target ≥ 0.85); load average ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end (2 cores: above ~0.5 other work competes and the ratio is not this machine's)`,
      `queue overhead per call: ${overheadMsPerCall.toFixed(3)} ms of CPU (redis-server ${redisMsPerCall.toFixed(3)} + coordinator ${coordinatorMsPerCall.toFixed(3)} + 2 workers ${workersMsPerCall.toFixed(3)} ms/call, against ${localMsPerCall.toFixed(3)} ms/call for the whole local run); loading bullmq and ioredis, once per coordinator process and outside the timing: ${median(pairs.map((p) => p.queued.loadCpuSeconds * 1000)).toFixed(0)} ms of CPU; wall time ${wallMsPerCall.toFixed(3)} ms/call (queue − local run time, per call; medians)`,
    ];
    process.stdout.write(lines.join("\n") + "\n");
    return { ratio, overheadMsPerCall };
  } finally {
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once("exit", r)))));
    redis.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}
