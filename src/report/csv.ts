// Results as CSV: one row per call and metric (one row for an error record), streamed to a temporary file and renamed at the end.
import { closeSync, openSync, renameSync, writeSync } from "node:fs";
import type { RecordDigest } from "../scoring/record.js";

const CSV_COLUMNS = [
  "id",
  "name",
  "format",
  "path",
  "status",
  "error_code",
  "error_message",
  "metric",
  "score",
  "threshold",
  "success",
  "skipped",
  "strict_mode",
  "metric_error",
  "reason",
  "latency_p50_ms",
  "latency_p90_ms",
  "latency_p95_ms",
  "latency_p99_ms",
  "talk_ratio",
  "overlap_s",
  "user_barge_ins",
  "agent_overlaps",
  "longest_silence_s",
  "wer",
  "cer",
] as const;

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const s = typeof value === "string" ? value : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The call's conversation figures, repeated on each of its rows (empty without a timeline). */
function statsFields(r: RecordDigest): unknown[] {
  const s = r.stats;
  if (!s || s.timed_turns === 0) return ["", "", "", "", "", "", "", "", ""];
  return [s.latency_ms.p50, s.latency_ms.p90, s.latency_ms.p95, s.latency_ms.p99, s.talk_ratio, s.overlap_s, s.user_barge_ins, s.agent_overlaps, s.longest_silence_s];
}

/** The CSV rows of one record. */
export function csvRows(r: RecordDigest): string[] {
  const head = [r.id, r.name, r.source.format, r.source.path, r.status, r.error?.code, r.error?.message];
  const tail = statsFields(r);
  const metrics = Object.entries(r.metrics ?? {});
  // The call's word and character error rates (transcript_accuracy), repeated on each of its rows.
  tail.push(r.transcript_accuracy?.wer, r.transcript_accuracy?.cer);
  if (metrics.length === 0) return [[...head, "", "", "", "", "", "", "", "", ...tail].map(csvField).join(",")];
  return metrics.map(([name, m]) => [...head, name, m.score, m.threshold, m.success, m.skipped, m.strict_mode, m.error, m.reason, ...tail].map(csvField).join(","));
}

/** Streams rows to `<path>.<pid>.tmp`; `finish()` renames it over `path`, so the CSV is always whole. */
export class CsvWriter {
  private readonly tmp: string;
  private readonly fd: number;

  constructor(private readonly path: string) {
    this.tmp = `${path}.${process.pid}.tmp`;
    this.fd = openSync(this.tmp, "w");
    this.writeLine(CSV_COLUMNS.join(","));
  }

  add(record: RecordDigest): void {
    for (const row of csvRows(record)) this.writeLine(row);
  }

  finish(): void {
    closeSync(this.fd);
    renameSync(this.tmp, this.path);
  }

  private writeLine(line: string): void {
    writeSync(this.fd, line + "\r\n");
  }
}
