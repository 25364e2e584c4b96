// The report API: score whole archives into resumable JSONL, an atomic summary and a CSV.
export { scoreArchive, type ScoreArchiveOptions, type ScoreArchiveResult } from "./score-archive.js";
export { ResultWriter } from "./jsonl-writer.js";
export { SummaryAccumulator, type MetricSummary, type RunSummary } from "./summary.js";
export { CsvWriter, csvRows } from "./csv.js";
export { formatSummaryTable } from "./table.js";
export { writeFileAtomic } from "../ingest/files.js";
export { ThresholdTally, failUnder, type BelowThreshold, type GateFailure, type ThresholdReport } from "./gates.js";
