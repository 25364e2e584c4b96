// The report API: score whole archives into resumable JSONL, an atomic summary and a CSV; the HTML report of a results file.
export { scoreArchive, type ScoreArchiveOptions, type ScoreArchiveResult } from "./score-archive.js";
export { ResultWriter } from "./jsonl-writer.js";
export { SummaryAccumulator, type ConversationSummary, type MetricSummary, type RunSummary } from "./summary.js";
export { CsvWriter, csvRows } from "./csv.js";
export { formatSummaryTable } from "./table.js";
export { mergeParts, type MergeOptions, type MergeResult } from "./merge.js";
export { writeFileAtomic } from "../ingest/files.js";
export { DEFAULT_HTML_REPORT_OPTIONS, resolveHtmlReportOptions, writeHtmlReportOfResults, type HtmlReportOptions } from "./html/html-report.js";
export { readReportData, ReportDataBuilder, type CallDetail, type ReportData, type ReportDataOptions, type ReportMetric, type ReportRunInfo } from "./html/report-data.js";
export { renderHtmlReport, writeHtmlReport } from "./html/html-writer.js";
export { createTurnAudioLocator, type TurnAudioOptions } from "./html/turn-audio.js";
export { ThresholdTally, failUnder, type BelowThreshold, type GateFailure, type ThresholdReport } from "./gates.js";
