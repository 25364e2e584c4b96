// The Piscina worker pool: threads, batching, retries and worker lifecycle; the wasm module compiled once and handed to every worker, outcomes streamed back.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
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
import { appendRecordLines, errorRecord, scoreBatch, toOutcome, type BatchTask, type CallOutcome, type CallReadOptions, type ScoreOptions } from "../scoring/index.js";

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
  /** Compiled worker entry; defaults to dist/pool/worker.js. */
  workerFile?: string;
  /** Stops scheduling new calls; calls in flight finish and are reported. */
  signal?: AbortSignal;
}

/** The defaults of the numeric pool options (`workers` is this machine's core count). */
export const DEFAULT_POOL_OPTIONS: Readonly<Required<Pick<PoolOptions, "workers" | "tasksPerWorker" | "maxCallsPerTask" | "retries">>> = Object.freeze({
  workers: availableParallelism(),
  tasksPerWorker: 2,
  maxCallsPerTask: 16,
  retries: 1,
});

/** Defaults overlaid with `partial`; a count out of range is an INVALID_OPTION naming the option. */
export function resolvePoolOptions(partial: PoolOptions = {}): PoolOptions & typeof DEFAULT_POOL_OPTIONS {
  const o = { ...partial, ...DEFAULT_POOL_OPTIONS };
  for (const key of Object.keys(DEFAULT_POOL_OPTIONS) as Array<keyof typeof DEFAULT_POOL_OPTIONS>) {
    const v = partial[key];
    if (v === undefined) continue;
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
const DEFAULT_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4 };

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
          maxQueue: "auto",
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
 * scored it, once per task) and the outcome's `line` is null. `pool` is either the options of a
 * pool started and closed for this run, or a pool from `startPool` (left open).
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
  if (piscina === null) {
    // Inline: the calls are scored one by one in this thread, as a worker scores its tasks.
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      if (pool.signal?.aborted) return { interrupted: true };
      scoreBatch({ refs: [next.value], ingest: options.ingest, score: options.score, appendTo }).forEach(onResult);
      await new Promise((r) => setImmediate(r));
    }
    return { interrupted: false };
  }

  // A crashed call's record is made here, and appended like the workers' ones.
  const recordCrash = (ref: CallRef, attempts: number, why: string) => {
    const outcome = toOutcome(errorRecord(ref, new VoxError("WORKER_CRASHED", `the worker scoring this call died ${attempts} time(s) (${why})`, { file: ref.displayPath })));
    if (appendTo !== undefined) {
      appendRecordLines(appendTo, [outcome.line!]);
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
  const run = async (batch: CallRef[]) => {
    const outcomes = (await piscina.run({ refs: batch, ingest: options.ingest, score: options.score, appendTo } satisfies BatchTask)) as CallOutcome[];
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
        if (attempt < retries) continue;
        recordCrash(ref, attempt + 1, err instanceof Error ? err.message : String(err));
        return;
      }
      outcomes.forEach((outcome) => onResult(outcome));
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
    outcomes.forEach((outcome) => onResult(outcome));
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
