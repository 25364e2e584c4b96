// The result record of `score` (interfaces.md): one JSON line per call, ok or error; produced by the pool, written by report.
import type { MetricResult } from "../metrics/base-metric.js";
import type { ErrorCode } from "../model/errors.js";
import type { TurnRecord } from "../score.js";
import type { InputFormat } from "../ingest/types.js";

export interface RecordError {
  code: ErrorCode;
  message: string;
}

/** One call's result; error records carry no `metrics` and no `turns`. */
export interface ResultRecord {
  id: string;
  name: string | null;
  source: { format: InputFormat; path: string };
  status: "ok" | "error";
  error: RecordError | null;
  metrics?: Record<string, MetricResult>;
  turns?: TurnRecord[];
  /** Non-fatal observations made while reading the call (additive to interfaces.md). */
  warnings?: string[];
  elapsed_ms: number;
}

/** True when a parsed JSON value looks like a result record (has a string id and a status). */
export function isResultRecord(value: unknown): value is ResultRecord {
  return value !== null && typeof value === "object" && typeof (value as ResultRecord).id === "string" && typeof (value as ResultRecord).status === "string";
}

/** A metric result without its breakdown: what summaries and CSV rows need. */
export type MetricDigest = Omit<MetricResult, "score_breakdown">;

/** A record without turns and breakdowns (full records are digests too). */
export interface RecordDigest extends Omit<ResultRecord, "metrics" | "turns"> {
  metrics?: Record<string, MetricDigest>;
}

/**
 * What a worker sends back: the record already serialised (the main thread only writes it), or null
 * when the worker appended it to the results file itself, and a small digest for the running summary
 * and the CSV, so per-call work stays in the workers.
 */
export interface CallOutcome {
  line: string | null;
  digest: RecordDigest;
}

/** Serialise a record and digest it. */
export function toOutcome(record: ResultRecord): CallOutcome {
  const { turns: _turns, metrics, ...rest } = record;
  const digest: RecordDigest = { ...rest };
  if (metrics) {
    digest.metrics = Object.fromEntries(Object.entries(metrics).map(([name, { score_breakdown: _b, ...m }]) => [name, m]));
  }
  return { line: JSON.stringify(record), digest };
}
