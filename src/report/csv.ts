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
  "wer",
  "cer",
] as const;

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const s = typeof value === "string" ? value : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV rows of one record. */
export function csvRows(r: RecordDigest): string[] {
  const head = [r.id, r.name, r.source.format, r.source.path, r.status, r.error?.code, r.error?.message];
  const metrics = Object.entries(r.metrics ?? {});
  // The call's word and character error rates (transcript_accuracy), repeated on each of its rows.
  const rates = [r.transcript_accuracy?.wer, r.transcript_accuracy?.cer];
  if (metrics.length === 0) return [[...head, "", "", "", "", "", "", "", "", ...rates].map(csvField).join(",")];
  return metrics.map(([name, m]) => [...head, name, m.score, m.threshold, m.success, m.skipped, m.strict_mode, m.error, m.reason, ...rates].map(csvField).join(","));
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
