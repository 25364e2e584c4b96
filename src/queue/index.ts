// The multi-machine API: deterministic shards and their part headers (more in later files: the BullMQ coordinator and worker).
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
