// The multi-machine API: deterministic shards and their part headers, the BullMQ coordinator (enqueue and collect) and the queue worker.
export {
  canonicalJson,
  describeRunOptions,
  formatShard,
  hashRunOptions,
  parsePartHeader,
  parseShard,
  partHeader,
  partHeaderLine,
  PART_HEADER_KEY,
  readPartHeader,
  sameRun,
  shardOfId,
  type PartHeader,
  type RunOptionsRecord,
  type ShardSpec,
} from "./shard.js";
export {
  checkRedisUrl,
  DEFAULT_QUEUE_OPTIONS,
  DEFAULT_QUEUE_WORKER_OPTIONS,
  mapPath,
  parsePathMapping,
  reconnectDelayMs,
  resolveQueueOptions,
  type PathMapping,
  type QueueOptions,
  type QueueStatus,
  type QueueWorkerOptions,
} from "./options.js";
export { batchJobId, singleJobId, type ScoreJobData, type ScoreJobResult } from "./jobs.js";
export type { QueueWorkerHandle, QueueWorkerStats } from "./worker.js";

type Coordinator = typeof import("./coordinator.js");
type QueueWorker = typeof import("./worker.js");

/**
 * Score calls through the queue (see coordinator.ts). bullmq and ioredis are loaded on the first
 * call, so that every other command starts without them.
 */
export async function runCallsOnQueue(...args: Parameters<Coordinator["runCallsOnQueue"]>): ReturnType<Coordinator["runCallsOnQueue"]> {
  const { runCallsOnQueue: run } = await import("./coordinator.js");
  return run(...args);
}

/** Start a queue worker (see worker.ts); bullmq and ioredis are loaded on the first call. */
export async function startQueueWorker(...args: Parameters<QueueWorker["startQueueWorker"]>): ReturnType<QueueWorker["startQueueWorker"]> {
  const { startQueueWorker: start } = await import("./worker.js");
  return start(...args);
}
