// The Piscina worker pool: threads, batching, retries and worker lifecycle; the wasm module compiled once and handed to every worker, outcomes streamed back.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel } from "node:worker_threads";

/** Memory limits of each worker thread (Node's `ResourceLimits`, in MB; see worker_threads). */
export interface ResourceLimits {
  maxYoungGenerationSizeMb?: number;
  maxOldGenerationSizeMb?: number;
  codeRangeSizeMb?: number;
  stackSizeMb?: number;
}
import { Piscina } from "piscina";
import { getWasmModule } from "../dsp/wasm.js";
import type { CallRef } from "../ingest/types.js";
import { VoxError } from "../model/errors.js";
import { errorRecord, outputWriteError, scoreBatch, toOutcome, type BatchTask, type CallOutcome, type CallReadOptions, type ScoreOptions } from "../scoring/index.js";
import { appendEncodedLines, releaseRecordLine } from "../scoring/record.js";
import type { WorkerTask } from "./worker-task.js";

/** Every option of the pool; defaults in DEFAULT_POOL_OPTIONS. */
export interface PoolOptions {
  /**
   * Worker threads; 0 scores in the calling thread (no pool).
   * @defaultValue os.availableParallelism()
   */
  workers?: number;
  /**
   * Tasks queued ahead per worker: enough to keep workers busy, few enough to keep memory flat.
   * @defaultValue 2
   */
  tasksPerWorker?: number;
  /**
   * Most calls in one task. Calls are batched until a task holds about 50 ms of work (from the mean
   * time of the calls scored so far), so per-task costs stay small on short calls; 1 sends every
   * call alone.
   * @defaultValue 16
   */
  maxCallsPerTask?: number;
  /**
   * Attempts after a worker crash (the crashed worker is replaced by Piscina).
   * @defaultValue 1
   */
  retries?: number;
  /**
   * Per-worker heap limits (a worker over them dies and its call is retried); merged over the
   * default young generation of 4 MB.
   */
  resourceLimits?: ResourceLimits;
  /**
   * Tasks Piscina holds waiting for a thread. One run keeps at most workers × tasksPerWorker tasks
   * in flight, which the default (workers², Piscina's "auto") covers; a pool shared by several
   * concurrent runs (the queue worker's jobs) needs room for all of theirs.
   * @defaultValue workers²
   */
  maxQueue?: number;
  /**
   * Longest a call may take in a worker (seconds; a task of n calls gets n times this). A call over
   * it has its worker stopped and becomes a CALL_TIMEOUT error record (not retried). With no
   * workers (0) it cannot be enforced beyond the ffmpeg decode bound.
   * @defaultValue 1800
   */
  callTimeoutSeconds?: number;
  /** Compiled worker entry; defaults to dist/pool/worker.js. */
  workerFile?: string;
  /** Stops scheduling new calls; calls in flight finish and are reported. */
  signal?: AbortSignal;
}

/** The defaults of the numeric pool options (`workers` is this machine's core count). */
export const DEFAULT_POOL_OPTIONS: Readonly<Required<Pick<PoolOptions, "workers" | "tasksPerWorker" | "maxCallsPerTask" | "retries" | "callTimeoutSeconds">>> = Object.freeze({
  workers: availableParallelism(),
  tasksPerWorker: 2,
  maxCallsPerTask: 16,
  retries: 1,
  callTimeoutSeconds: 1800,
});

/** Defaults overlaid with `partial`; a count out of range is an INVALID_OPTION naming the option. */
export function resolvePoolOptions(partial: PoolOptions = {}): PoolOptions & typeof DEFAULT_POOL_OPTIONS {
  const o = { ...partial, ...DEFAULT_POOL_OPTIONS };
  for (const key of Object.keys(DEFAULT_POOL_OPTIONS) as Array<keyof typeof DEFAULT_POOL_OPTIONS>) {
    const v = partial[key];
    if (v === undefined) continue;
    if (key === "callTimeoutSeconds") {
      if (typeof v !== "number" || !(v > 0)) throw new VoxError("INVALID_OPTION", `must be a number of seconds > 0, got ${String(v)}`, { field: key });
      o[key] = v;
      continue;
    }
    const min = key === "workers" || key === "retries" ? 0 : 1;
    if (!Number.isInteger(v) || v < min) throw new VoxError("INVALID_OPTION", `must be an integer ≥ ${min}, got ${String(v)}`, { field: key });
    o[key] = v;
  }
  return o;
}

/**
 * A small young generation per worker. Calls allocate their audio outside the JS heap and leave
 * little alive between them, so frequent small scavenges cost nothing extra, while V8's default
 * growth of the young generation made each worker's heap (and the run's peak RSS) grow with the
 * number of calls scored: measured peak RSS for 100 / 1,000 / 4,000 calls, 2 workers, went from
 * 136 / 199 / 251 MB to 117 / 137 / 154 MB.
 */
const DEFAULT_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 2048 };

/**
 * The JavaScript heap of one worker (MB): a pathological input (a huge or deeply nested JSON
 * record) that needs more kills only its worker, and becomes one WORKER_CRASHED record after the
 * retries. Audio lives outside this heap (array buffers and WebAssembly memory).
 */
export const DEFAULT_WORKER_HEAP_MB = DEFAULT_RESOURCE_LIMITS.maxOldGenerationSizeMb!;

/** A task aborted at its time limit. */
class CallTimeout extends Error {}

/** Idle workers stay alive this long (acoustics.md §8.4: ≥ 30 s for batch scoring). */
const IDLE_TIMEOUT_MS = 30_000;
/**
 * Work per task when calls are batched: long enough that the ≈ 0.1 ms task round trip and the
 * main thread's per-task work stay ≲ 1 % (acoustics.md §8.4), short enough that the run's last
 * tasks finish close together.
 */
const TARGET_TASK_MS = 50;

/**
 * The compiled worker. A .ts worker does not inherit tsx on Node 20, so even when this module runs
 * from src/ (tests, tsx) the pool uses the build output in dist/.
 */
function defaultWorkerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const file = import.meta.url.endsWith(".ts") ? resolve(here, "..", "..", "dist", "pool", "worker.js") : join(here, "worker.js");
  if (!existsSync(file)) throw new VoxError("INTERNAL", `the compiled worker ${file} is missing; run \`npm run build\``);
  return file;
}

/** A started pool: its workers boot (load the engine, instantiate the wasm) as soon as it exists. */
export interface ScoringPool {
  /** Worker threads (0 scores in the calling thread). */
  readonly workers: number;
  /** Stop the workers (after the calls in flight). */
  close(): Promise<void>;
}

interface PoolState extends ScoringPool {
  readonly piscina: Piscina | null;
  readonly options: ReturnType<typeof resolvePoolOptions>;
}

/**
 * Start the workers now, so that they boot while the caller does other work (discovering the
 * archive, say); hand the pool to `runCalls` and close it when done.
 */
export function startPool(options: PoolOptions = {}): ScoringPool {
  const pool = resolvePoolOptions(options);
  const workers = pool.workers;
  const piscina =
    workers === 0
      ? null
      : new Piscina({
          filename: pool.workerFile ?? defaultWorkerFile(),
          minThreads: workers,
          maxThreads: workers,
          idleTimeout: IDLE_TIMEOUT_MS,
          maxQueue: pool.maxQueue ?? "auto",
          concurrentTasksPerWorker: 1,
          resourceLimits: { ...DEFAULT_RESOURCE_LIMITS, ...pool.resourceLimits },
          // Workers run the compiled dist/ code in plain Node: loaders of the parent (tsx, vitest) must not leak in.
          execArgv: [],
          workerData: { wasmModule: getWasmModule() },
        });
  const state: PoolState = { workers, piscina, options: pool, close: async () => piscina?.close() };
  return state;
}

/** What every call of a run shares: how calls are read, the resolved score options and the results file workers append to. */
export interface RunOptions {
  ingest: CallReadOptions;
  score: ScoreOptions;
  appendTo?: string;
}

/**
 * Score every call, calling `onResult` as each finishes (in completion order). At most
 * workers × tasksPerWorker tasks are in flight, so memory does not grow with the archive. With
 * `appendTo`, each record is appended to that JSONL before `onResult` sees it (by the worker that
 * scored it, once per task) and the outcome's `line` is null; without, `line` is the record's
 * encoded line (its bytes transferred from the worker, not copied), for the caller to write.
 * `pool` is either the options of a pool started and closed for this run, or a pool from
 * `startPool` (left open).
 * Resolves to `interrupted: true` when the signal stopped scheduling before the end.
 */
export async function runCalls(
  refs: Iterable<CallRef>,
  options: RunOptions,
  pool: PoolOptions | ScoringPool,
  onResult: (outcome: CallOutcome) => void,
): Promise<{ interrupted: boolean }> {
  if (isStarted(pool)) return runOnPool(pool as PoolState, refs, options, onResult);
  const started = startPool(pool) as PoolState;
  try {
    return await runOnPool(started, refs, options, onResult);
  } finally {
    await started.close();
  }
}

function isStarted(pool: PoolOptions | ScoringPool): pool is ScoringPool {
  return typeof (pool as ScoringPool).close === "function";
}

async function runOnPool(
  state: PoolState,
  refs: Iterable<CallRef>,
  options: RunOptions,
  onResult: (outcome: CallOutcome) => void,
): Promise<{ interrupted: boolean }> {
  const { piscina, options: pool } = state;
  const iterator = refs[Symbol.iterator]();
  const { appendTo } = options;
  /** Hand outcomes on; a record the results file refused ends the run (a write error is no call's fault). */
  const deliver = (outcomes: CallOutcome[]) => {
    const failed = outcomes.find((o) => o.writeError !== undefined);
    if (failed) throw new VoxError("IO_ERROR", failed.writeError!);
    outcomes.forEach((outcome) => onResult(outcome));
  };
  if (piscina === null) {
    // Inline: the calls are scored one by one in this thread, as a worker scores its tasks.
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      if (pool.signal?.aborted) return { interrupted: true };
      deliver(scoreBatch({ refs: [next.value], ingest: options.ingest, score: options.score, appendTo }));
      await new Promise((r) => setImmediate(r));
    }
    return { interrupted: false };
  }

  // A crashed (or stopped) call's record is made here, and appended like the workers' ones.
  const recordCrash = (ref: CallRef, attempts: number, why: string) =>
    deliverError(ref, new VoxError("WORKER_CRASHED", `the worker scoring this call died ${attempts} time(s) (${why})`, { file: ref.displayPath }));
  const deliverError = (ref: CallRef, error: VoxError) => {
    const outcome = toOutcome(errorRecord(ref, error));
    if (appendTo !== undefined) {
      try {
        appendEncodedLines(appendTo, [outcome.line!]);
      } catch (e) {
        throw outputWriteError(appendTo, e, true);
      }
      releaseRecordLine(outcome.line!);
      outcome.line = null;
    }
    onResult(outcome);
  };

  const retries = pool.retries;
  const maxCalls = pool.maxCallsPerTask;
  let timedCalls = 0;
  let timedMs = 0;
  // Until a call has been timed, each task holds one call.
  const batchSize = () => (timedCalls === 0 ? 1 : Math.min(maxCalls, Math.max(1, Math.floor((TARGET_TASK_MS * timedCalls) / Math.max(timedMs, 1e-3)))));
  // Over its time limit, a task is aborted: Piscina stops the worker running it and starts another.
  const timeoutMs = pool.callTimeoutSeconds * 1000;
  // The clock starts when a worker picks the task up (it says so on `started`), not while it waits in the queue.
  const run = async (batch: CallRef[]) => {
    const abort = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    port1.once("message", () => {
      timer = setTimeout(() => abort.abort(), timeoutMs * batch.length);
    });
    let outcomes: CallOutcome[];
    try {
      const task: WorkerTask = { refs: batch, ingest: options.ingest, score: options.score, appendTo, started: port2 };
      outcomes = (await piscina.run(task, { signal: abort.signal, transferList: [port2] })) as CallOutcome[];
    } catch (err) {
      throw abort.signal.aborted ? new CallTimeout() : err;
    } finally {
      clearTimeout(timer);
      port1.close();
    }
    for (const { digest } of outcomes) {
      timedCalls++;
      timedMs += digest.elapsed_ms;
    }
    return outcomes;
  };

  // Only a failed task counts as a crash: an error thrown by onResult propagates.
  const runOne = async (ref: CallRef) => {
    for (let attempt = 0; ; attempt++) {
      let outcomes: CallOutcome[];
      try {
        outcomes = await run([ref]);
      } catch (err) {
        if (err instanceof CallTimeout) {
          const detail = `scoring did not finish within ${pool.callTimeoutSeconds} s (--call-timeout); its worker was stopped`;
          deliverError(ref, new VoxError("CALL_TIMEOUT", detail, { file: ref.displayPath }));
          return;
        }
        if (attempt < retries) continue;
        recordCrash(ref, attempt + 1, err instanceof Error ? err.message : String(err));
        return;
      }
      deliver(outcomes);
      return;
    }
  };
  const runBatch = async (batch: CallRef[]) => {
    if (batch.length === 1) return runOne(batch[0]);
    let outcomes: CallOutcome[];
    try {
      outcomes = await run(batch);
    } catch {
      // Which call killed the worker is unknown: each is tried alone with its own retries. One at a
      // time, so the extra tasks never overflow Piscina's queue.
      for (const ref of batch) await runOne(ref);
      return;
    }
    deliver(outcomes);
  };

  const limit = state.workers * pool.tasksPerWorker;
  const inFlight = new Set<Promise<void>>();
  let exhausted = false;
  while (!pool.signal?.aborted) {
    while (inFlight.size < limit && !exhausted) {
      const batch: CallRef[] = [];
      const size = batchSize();
      while (batch.length < size) {
        const next = iterator.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        batch.push(next.value);
      }
      if (batch.length === 0) break;
      const p: Promise<void> = runBatch(batch).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return { interrupted: !exhausted };
}
