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
export { checkRedisUrl, reconnectDelayMs } from "./connection.js";
export { DEFAULT_QUEUE_OPTIONS, resolveQueueOptions, runCallsOnQueue, type QueueOptions, type QueueStatus } from "./coordinator.js";
export { batchJobId, singleJobId, type ScoreJobData, type ScoreJobResult } from "./jobs.js";
export {
  DEFAULT_QUEUE_WORKER_OPTIONS,
  mapPath,
  parsePathMapping,
  startQueueWorker,
  type PathMapping,
  type QueueWorkerHandle,
  type QueueWorkerOptions,
  type QueueWorkerStats,
} from "./worker.js";
