// The worker pool API: run calls in parallel and get one result record per call.
export { defaultWorkerCount, defaultWorkerFile, runCalls, startPool, type PoolOptions, type ScoringPool } from "./pool.js";
export { errorRecord, scoreCall, type BatchTask, type ScoreTask } from "./score-call.js";
export { isResultRecord, toOutcome, type CallOutcome, type MetricDigest, type RecordDigest, type RecordError, type ResultRecord } from "./record.js";
