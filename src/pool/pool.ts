// The Piscina worker pool: one task per call, the wasm module compiled once and handed to every worker, results streamed back.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResourceLimits } from "node:worker_threads";
import { Piscina } from "piscina";
import { getWasmModule } from "../dsp/wasm.js";
import type { CallRef, IngestOptions } from "../ingest/types.js";
import { VoxError } from "../model/errors.js";
import { toOutcome, type CallOutcome } from "./record.js";
import type { ScoreOptions } from "../score.js";
import { errorRecord, scoreCall, type ScoreTask } from "./score-call.js";

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
   * Attempts after a worker crash (the crashed worker is replaced by Piscina).
   * @defaultValue 1
   */
  retries?: number;
  /** Per-worker heap limits (a worker over them dies and its call is retried). */
  resourceLimits?: ResourceLimits;
  /** Compiled worker entry; defaults to dist/pool/worker.js. */
  workerFile?: string;
  /** Stops scheduling new calls; calls in flight finish and are reported. */
  signal?: AbortSignal;
}

/** Idle workers stay alive this long (acoustics.md §8.4: ≥ 30 s for batch scoring). */
const IDLE_TIMEOUT_MS = 30_000;

/**
 * The compiled worker. A .ts worker does not inherit tsx on Node 20, so even when this module runs
 * from src/ (tests, tsx) the pool uses the build output in dist/.
 */
export function defaultWorkerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const file = import.meta.url.endsWith(".ts") ? resolve(here, "..", "..", "dist", "pool", "worker.js") : join(here, "worker.js");
  if (!existsSync(file)) throw new VoxError("INTERNAL", `the compiled worker ${file} is missing; run \`npm run build\``);
  return file;
}

/** Default worker count: every core. */
export function defaultWorkerCount(): number {
  return availableParallelism();
}

/**
 * Score every call, calling `onResult` as each finishes (in completion order). At most
 * workers × tasksPerWorker calls are in flight, so memory does not grow with the archive.
 * Resolves to `interrupted: true` when the signal stopped scheduling before the end.
 */
export async function runCalls(
  refs: Iterable<CallRef>,
  options: { ingest: IngestOptions; score: ScoreOptions },
  pool: PoolOptions,
  onResult: (outcome: CallOutcome) => void,
): Promise<{ interrupted: boolean }> {
  const workers = pool.workers ?? defaultWorkerCount();
  const task = (ref: CallRef): ScoreTask => ({ ref, ingest: options.ingest, score: options.score });
  const iterator = refs[Symbol.iterator]();

  if (workers === 0) {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      if (pool.signal?.aborted) return { interrupted: true };
      onResult(toOutcome(scoreCall(task(next.value))));
      await new Promise((r) => setImmediate(r));
    }
    return { interrupted: false };
  }

  const piscina = new Piscina({
    filename: pool.workerFile ?? defaultWorkerFile(),
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: IDLE_TIMEOUT_MS,
    maxQueue: "auto",
    concurrentTasksPerWorker: 1,
    resourceLimits: pool.resourceLimits,
    // Workers run the compiled dist/ code in plain Node: loaders of the parent (tsx, vitest) must not leak in.
    execArgv: [],
    workerData: { wasmModule: getWasmModule() },
  });
  const retries = pool.retries ?? 1;
  const runOne = async (ref: CallRef) => {
    for (let attempt = 0; ; attempt++) {
      try {
        onResult((await piscina.run(task(ref))) as CallOutcome);
        return;
      } catch (err) {
        if (attempt >= retries) {
          const why = err instanceof Error ? err.message : String(err);
          onResult(toOutcome(errorRecord(ref, new VoxError("WORKER_CRASHED", `the worker scoring this call died ${attempt + 1} time(s) (${why})`, { file: ref.displayPath }))));
          return;
        }
      }
    }
  };

  const limit = workers * (pool.tasksPerWorker ?? 2);
  const inFlight = new Set<Promise<void>>();
  let exhausted = false;
  try {
    while (!pool.signal?.aborted) {
      while (inFlight.size < limit) {
        const next = iterator.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        const p: Promise<void> = runOne(next.value).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (inFlight.size === 0) break;
      await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    await piscina.close();
  }
  return { interrupted: !exhausted };
}
