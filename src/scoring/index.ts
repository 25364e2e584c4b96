// The scoring pipeline: one test case, one loaded call, one call reference (and a worker's batch of them), one audio file, one call's timeline; the result record.
export { analyzeFile, analyzeFileAt, DEFAULT_ANALYZE_FILE_OPTIONS, MEASUREMENT_SETS, resolveAnalyzeFileOptions, type AnalyzeFileError, type AnalyzeFileOk, type AnalyzeFileOptions, type AnalyzeFileResult, type MeasurementSet } from "./analyze-file.js";
export { LATENCY_PERCENTILES, latencyPercentilesMs, statsOfTimeline, statsOfTurnRecords, timelineOfTurnRecords, type CallStats, type LatencyPercentilesMs } from "./call-stats.js";
export { timelineOfCall, type CallTimeline, type TimelineRecord } from "./call-timeline.js";
export { DEFAULT_SCORE_OPTIONS, resolveScoreOptions, type ScoreOptions, type ScoreOptionsInput } from "./options.js";
export { appendRecordLines, digestRecord, isResultRecord, outputWriteError, toOutcome, type CallOutcome, type MetricDigest, type RecordDigest, type RecordError, type ResultRecord } from "./record.js";
export { errorRecord, scoreBatch, scoreCall, type BatchTask, type CallReadOptions, type ScoreTask } from "./score-call.js";
export { scoreLoadedCall, scoreTestCase, type ScoreResult, type TurnRecord } from "./score-test-case.js";
export { transcriptAccuracy, type ErrorCountsRecord, type TranscriptAccuracy, type TranscriptPairKind, type TurnTranscriptAccuracy } from "./transcript-accuracy.js";
