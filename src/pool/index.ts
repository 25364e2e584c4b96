// The worker pool API: run calls in parallel and get one outcome per call.
export { DEFAULT_POOL_OPTIONS, DEFAULT_WORKER_HEAP_MB, resolvePoolOptions, runCalls, startPool, type PoolOptions, type RunOptions, type ScoringPool } from "./pool.js";
