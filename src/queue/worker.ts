// The queue worker: pulls batches of calls from BullMQ and scores them on this machine's Piscina pool; paths mapped for this machine's mounts, stalled jobs left to BullMQ (retried once), a graceful close.
import { accessSync, constants } from "node:fs";
import { hostname } from "node:os";
import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { CallRef } from "../ingest/types.js";
import { VoxError } from "../model/errors.js";
import { DEFAULT_POOL_OPTIONS, runCalls, startPool, type ScoringPool } from "../pool/index.js";
import { errorRecord, toOutcome, type CallOutcome } from "../scoring/index.js";
import { releaseRecordLine } from "../scoring/record.js";
import { connectRedis } from "./connection.js";
import { DEFAULT_QUEUE_OPTIONS, DEFAULT_QUEUE_WORKER_OPTIONS, mapPath, MIN_STALL_CHECK_MS, parsePathMapping, type QueueWorkerOptions } from "./options.js";
import { encodeBatch, isolatedQueueName, JOB_VERSION, RESULT_TTL_S, resultKey, type ScoreJobData, type ScoreJobResult, type ScoredBatch } from "./jobs.js";

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** What a queue worker has done so far: jobs and calls finished, jobs active, Redis connection state, uptime. */
export interface QueueWorkerStats {
  name: string;
  /** Jobs and calls finished since start. */
  jobs: number;
  calls: number;
  /** Jobs being scored now. */
  active: number;
  redis: "connected" | "reconnecting";
  uptimeS: number;
}

/** A running queue worker: its statistics, and a graceful stop that finishes the jobs in flight. */
export interface QueueWorkerHandle {
  readonly name: string;
  readonly threads: number;
  readonly concurrency: number;
  stats(): QueueWorkerStats;
  /**
   * Take no new jobs, let the ones in flight finish (and report them), then stop the pool and the
   * connection. `force` abandons jobs in flight (BullMQ hands them to another worker once their
   * lock expires).
   */
  close(force?: boolean): Promise<void>;
}

/** Connect (or fail within connectTimeoutMs), boot the pool and start taking jobs. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const queueName = options.queueName ?? DEFAULT_QUEUE_OPTIONS.name;
  const concurrency = options.concurrency ?? DEFAULT_QUEUE_WORKER_OPTIONS.concurrency;
  const threads = options.workers ?? DEFAULT_POOL_OPTIONS.workers;
  const stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_QUEUE_WORKER_OPTIONS.stallTimeoutMs;
  for (const [field, v, min] of [["concurrency", concurrency, 1], ["workers", threads, 0], ["stallTimeoutMs", stallTimeoutMs, 2 * MIN_STALL_CHECK_MS]] as const) {
    if (!Number.isInteger(v) || v < min) throw new VoxError("INVALID_OPTION", `must be an integer ≥ ${min}, got ${String(v)}`, { field });
  }
  const mappings = (options.pathMap ?? []).map(parsePathMapping);
  let redis: QueueWorkerStats["redis"] = "connected";
  const client = await connectRedis(options.url, {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_QUEUE_WORKER_OPTIONS.connectTimeoutMs,
    name: `voxmetrics-worker-${name}`,
    onReconnecting: (attempt, delayMs, error) => {
      redis = "reconnecting";
      options.onRedisEvent?.({ kind: "reconnecting", attempt, delayMs, error });
    },
    onReady: () => {
      redis = "connected";
      options.onRedisEvent?.({ kind: "ready" });
    },
  });
  // Every concurrent job may keep workers × tasksPerWorker tasks in the shared pool.
  const pool: ScoringPool = startPool({ workers: threads, workerFile: options.workerFile, maxQueue: Math.max(1, concurrency * threads * DEFAULT_POOL_OPTIONS.tasksPerWorker) });
  const t0 = performance.now();
  let jobs = 0;
  let calls = 0;
  let active = 0;

  const cannotRead = (ref: CallRef, path: string) =>
    toOutcome(
      errorRecord(
        ref,
        new VoxError(
          "IO_ERROR",
          `worker ${name} cannot read ${path}${path !== ref.path ? ` (the coordinator's ${ref.path}, mapped by --path-map)` : ""}; mount the archive at the coordinator's path or give --path-map FROM=TO`,
          { file: ref.displayPath },
        ),
      ),
    );

  const processor = async (job: Job<ScoreJobData, ScoreJobResult>): Promise<ScoreJobResult> => {
    const data = job.data;
    if (data?.v !== JOB_VERSION) throw new Error(`job ${job.id}: payload version ${String(data?.v)}, this worker reads ${JOB_VERSION} (coordinator and worker run different voxmetrics versions)`);
    active++;
    try {
      const batch: ScoredBatch = { lines: [], digests: [] };
      const keep = (o: CallOutcome) => {
        batch.lines.push(o.line!);
        batch.digests.push(o.digest);
      };
      const refs: CallRef[] = [];
      for (const ref of data.refs) {
        if (ref.error !== undefined) {
          refs.push(ref);
          continue;
        }
        const path = mapPath(ref.path, mappings);
        if (!readable(path)) keep(cannotRead(ref, path));
        else refs.push(path === ref.path ? ref : { ...ref, path });
      }
      await runCalls(refs, { ingest: data.ingest, score: data.score }, pool, keep);
      const key = resultKey(queueName, String(job.id));
      const bytes = encodeBatch(batch);
      batch.lines.forEach(releaseRecordLine);
      await client.set(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "EX", RESULT_TTL_S);
      jobs++;
      calls += data.refs.length;
      return { worker: name, key, calls: batch.lines.length };
    } finally {
      active--;
    }
  };

  const settings = {
    connection: client as Redis,
    name,
    lockDuration: stallTimeoutMs,
    stalledInterval: Math.max(MIN_STALL_CHECK_MS, Math.floor(stallTimeoutMs / 2)),
    maxStalledCount: 1,
    autorun: true,
  };
  const worker = new Worker<ScoreJobData, ScoreJobResult>(queueName, processor, { ...settings, concurrency });
  // A call of the isolation queue runs with nothing else in this process: the main worker takes no
  // job meanwhile and its jobs in flight finish first, so if this process dies, that call did it.
  const isolatedWorker = new Worker<ScoreJobData, ScoreJobResult>(
    isolatedQueueName(queueName),
    async (job) => {
      await worker.pause();
      try {
        return await processor(job);
      } finally {
        if (!closing) worker.resume();
      }
    },
    { ...settings, concurrency: 1 },
  );
  // Connection errors are retried by ioredis with back-off; they are reported through onRedisEvent.
  worker.on("error", () => {});
  isolatedWorker.on("error", () => {});

  let closing: Promise<void> | null = null;
  const close = (force = false) =>
    (closing ??= (async () => {
      await Promise.all([worker.close(force).catch(() => {}), isolatedWorker.close(force).catch(() => {})]);
      await pool.close();
      client.disconnect();
    })());
  // Ready (and counted among the queue's workers) once both workers' connections, the blocking ones too, are up.
  try {
    await Promise.all([worker.waitUntilReady(), isolatedWorker.waitUntilReady()]);
  } catch (e) {
    await close(true);
    throw e;
  }
  return {
    name,
    threads,
    concurrency,
    stats: () => ({ name, jobs, calls, active, redis, uptimeS: Math.round((performance.now() - t0) / 1000) }),
    close,
  };
}
