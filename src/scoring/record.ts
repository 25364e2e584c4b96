// The result record of `score` (interfaces.md): one JSON line per call, ok or error, and the one append of such lines to a results file.
//
// The append lives with the record rather than in report/ because the workers (pool/, below report
// in the layers) write their own records; report's JSONL writer appends through it too.
import { closeSync, openSync, writeSync } from "node:fs";
import type { InputFormat } from "../ingest/types.js";
import type { MetricResult } from "../metrics/base-metric.js";
import type { MetricProfile } from "../metrics/index.js";
import { VoxError, type ErrorCode } from "../model/errors.js";
import { statsOfTurnRecords, type CallStats } from "./call-stats.js";
import type { TurnRecord } from "./score-test-case.js";
import type { TranscriptAccuracy } from "./transcript-accuracy.js";

/** The `error` of an error record: a stable code and a message naming the file, place and field. */
export interface RecordError {
  code: ErrorCode;
  message: string;
}

/** One call's result; error records carry no `metrics` and no `turns`. */
export interface ResultRecord {
  id: string;
  name: string | null;
  /** The format of the input as detected (null when nothing could be detected, e.g. a missing path). */
  source: { format: InputFormat | null; path: string };
  status: "ok" | "error";
  error: RecordError | null;
  /** The scoring profile that produced `metrics` (ok records). */
  profile?: MetricProfile;
  metrics?: Record<string, MetricResult>;
  turns?: TurnRecord[];
  /** WER / CER of the call's transcript pairs (transcript-accuracy.ts), when it has any. */
  transcript_accuracy?: TranscriptAccuracy;
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
export interface RecordDigest extends Omit<ResultRecord, "metrics" | "turns" | "transcript_accuracy"> {
  metrics?: Record<string, MetricDigest>;
  /** The call's conversation figures (ok records with turns): CSV columns, summed up in the summary. */
  stats?: CallStats;
  /** The call's response latencies (ms), pooled into the archive's percentiles. */
  latencies_ms?: number[];
  /** The call's rates without the per-turn list. */
  transcript_accuracy?: Omit<TranscriptAccuracy, "turns">;
}

/**
 * What a worker sends back: the record's line already encoded (encodeRecordLine: UTF-8 with its line
 * break, in a buffer of its own that the pool transfers to the main thread rather than copies, and
 * that the main thread only writes), or null when the worker appended it to the results file
 * itself, and a small digest for the running summary and the CSV, so per-call work stays in the
 * workers.
 */
export interface CallOutcome {
  line: Uint8Array | null;
  digest: RecordDigest;
  /**
   * Set when the worker could not append the record to the results file (a full disk…): the run
   * must end, and `line` still holds the record, which was not written.
   */
  writeError?: string;
}

/**
 * A results, summary or CSV file that cannot be written: the run ends with this one line. A results
 * file keeps every complete record written before, so `--resume` continues it.
 */
export function outputWriteError(path: string, err: unknown, resumable: boolean): VoxError {
  const e = err as NodeJS.ErrnoException;
  const why = e.code ? `${e.code}${e.code === "ENOSPC" ? ", no space left on the device" : ""}` : String(e?.message ?? err);
  const detail = `cannot write to ${path} (${why}); the run stopped${resumable ? ": the file keeps every complete record so far, rerun with --resume to continue" : ""}`;
  return new VoxError("IO_ERROR", detail);
}

/** A record's digest: metrics without breakdowns, turns replaced by the call's conversation figures. */
export function digestRecord(record: ResultRecord): RecordDigest {
  const { turns, metrics, transcript_accuracy, ...rest } = record;
  const digest: RecordDigest = { ...rest };
  if (transcript_accuracy) {
    const { turns: _t, ...call } = transcript_accuracy;
    digest.transcript_accuracy = call;
  }
  if (metrics) {
    digest.metrics = Object.fromEntries(Object.entries(metrics).map(([name, { score_breakdown: _b, ...m }]) => [name, m]));
  }
  if (record.status === "ok" && Array.isArray(turns)) {
    const { stats, latenciesMs } = statsOfTurnRecords(turns);
    digest.stats = stats;
    digest.latencies_ms = latenciesMs;
  }
  return digest;
}

/** Encode a record's line and digest it. */
export function toOutcome(record: ResultRecord): CallOutcome {
  return { line: encodeRecordLine(record), digest: digestRecord(record) };
}

/**
 * The record's line in UTF-8 with its line break: byte for byte `JSON.stringify(record) + "\n"`,
 * serialised in pieces (each turn, metric and breakdown entry on its own) into a buffer of the exact
 * size, so a call of hours (a record of megabytes) never has its whole text as a string, nor the
 * string builder's copies of it. releaseRecordLine gives the buffer back once it is written.
 */
export function encodeRecordLine(record: ResultRecord): Uint8Array {
  let size = 1;
  jsonPieces(record, (piece) => {
    size += Buffer.byteLength(piece, "utf8");
  });
  const out = Buffer.from(new ResizableArrayBuffer(size, { maxByteLength: size }), 0, size);
  let at = 0;
  jsonPieces(record, (piece) => {
    at += out.write(piece, at, "utf8");
  });
  out[at++] = 0x0a;
  if (at !== size) throw new Error(`a record took ${at} bytes, ${size} were counted`); // never: both passes emit the same pieces
  return out;
}

/** ArrayBuffer's constructor with its resizable form (ES2024; the library's TypeScript target predates it). */
const ResizableArrayBuffer = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;

/**
 * Give back the memory of a line from encodeRecordLine now (it is left empty). Its buffer is a
 * resizable ArrayBuffer, whose pages the engine maps itself and unmaps on shrinking: a long call's
 * megabytes of record go back to the system at once, rather than to malloc's free lists after the
 * next collection.
 */
export function releaseRecordLine(line: Uint8Array): void {
  const buffer = line.buffer as ArrayBuffer & { resizable?: boolean; resize?: (n: number) => void };
  if (buffer.resizable) buffer.resize!(0);
}

/** Levels of arrays and plain objects serialised piece by piece; below them, values are stringified whole. */
const PIECE_DEPTH = 5;

/**
 * `JSON.stringify(value)` handed out in consecutive pieces: arrays and plain objects down to `depth`
 * levels are written member by member (with JSON.stringify's rules: members that are undefined,
 * functions or symbols are left out of objects and are `null` in arrays), anything else (a
 * primitive, an object with toJSON, a class instance) by JSON.stringify itself.
 */
function jsonPieces(value: unknown, emit: (piece: string) => void, depth = PIECE_DEPTH): void {
  const container = depth > 0 && value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON !== "function";
  if (container && Array.isArray(value)) {
    emit("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) emit(",");
      const v: unknown = value[i];
      if (v === undefined || typeof v === "function" || typeof v === "symbol") emit("null");
      else jsonPieces(v, emit, depth - 1);
    }
    emit("]");
    return;
  }
  const proto = container ? Object.getPrototypeOf(value) : undefined;
  if (container && (proto === Object.prototype || proto === null)) {
    emit("{");
    let first = true;
    for (const key of Object.keys(value as object)) {
      const v: unknown = (value as Record<string, unknown>)[key];
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      emit(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      jsonPieces(v, emit, depth - 1);
    }
    emit("}");
    return;
  }
  emit(JSON.stringify(value));
}

/**
 * Append lines already encoded (each with its line break, as encodeRecordLine gives them) to the
 * results file `path` in a single write: a single line is written from its own buffer, several are
 * first copied into this thread's reused buffer.
 */
export function appendEncodedLines(path: string, lines: Uint8Array[]): void {
  if (lines.length === 0) return;
  if (lines.length === 1) return writeAppend(path, lines[0], lines[0].length);
  let size = 0;
  for (const line of lines) size += line.length;
  if (encoded.length < size) encoded = Buffer.allocUnsafeSlow(size);
  let length = 0;
  for (const line of lines) {
    encoded.set(line, length);
    length += line.length;
  }
  writeAppend(path, encoded, length);
}

/** One write of `bytes[0, length)` at the end of `path` (the loop only finishes a short write). */
function writeAppend(path: string, bytes: Uint8Array, length: number): void {
  const fd = openSync(path, "a");
  try {
    for (let done = 0; done < length; ) done += writeSync(fd, bytes, done, length - done);
  } finally {
    closeSync(fd);
  }
}

/**
 * Append whole lines (each without its line break) to the results file `path` in a single write.
 * Writes to a regular file opened with O_APPEND land whole at the end even when several workers
 * append at once; the loop only finishes a short write (a full disk, say), which then surfaces as
 * the error it is.
 */
export function appendRecordLines(path: string, lines: string[]): void {
  if (lines.length === 0) return;
  // Encoded line by line into a buffer this thread reuses: no joined copy of the text, and no fresh
  // memory to fault in for every batch. The buffer has the exact size of the largest batch so far
  // (not a bound of 3 bytes per character, nor a doubling: a call of hours has a record of megabytes).
  let size = 0;
  for (const line of lines) size += Buffer.byteLength(line, "utf8") + 1;
  if (encoded.length < size) encoded = Buffer.allocUnsafeSlow(size);
  let length = 0;
  for (const line of lines) {
    length += encoded.write(line, length, "utf8");
    encoded[length++] = 0x0a;
  }
  writeAppend(path, encoded, length);
}

/** The encoding buffer of appendRecordLines and appendEncodedLines (as large as the largest batch so far). */
let encoded = Buffer.alloc(0);
