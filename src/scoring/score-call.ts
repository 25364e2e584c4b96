// Scores one call reference into a result record, and a worker's batch of them; never throws (a call that cannot be read becomes an error record).
import { withCallBuffer } from "../audio/call-buffer.js";
import { loadCall } from "../ingest/index.js";
import type { CallRef, IngestOptions } from "../ingest/types.js";
import { toVoxError, VoxError } from "../model/errors.js";
import type { ScoreOptions } from "./options.js";
import { appendEncodedLines, digestRecord, encodeRecordLine, outputWriteError, releaseRecordLine, toOutcome, type CallOutcome, type ResultRecord } from "./record.js";
import { scoreLoadedCall } from "./score-test-case.js";
import { transcriptAccuracy } from "./transcript-accuracy.js";

/** How calls are read: everything of IngestOptions but compat, which the score options decide for reading and analysis alike. */
export type CallReadOptions = Omit<IngestOptions, "compat">;

/** One call to score: a path-based reference and the resolved options, never PCM. */
export interface ScoreTask {
  ref: CallRef;
  ingest: CallReadOptions;
  score: ScoreOptions;
}

/** What a worker receives: calls scored one after the other with the options they share. */
export interface BatchTask {
  refs: CallRef[];
  ingest: CallReadOptions;
  score: ScoreOptions;
  /**
   * Results JSONL the task's records are appended to (one write for the whole task, after the last
   * call), so record text never crosses threads; absent, records travel back as lines.
   */
  appendTo?: string;
}

/** The error record of a call that could not be read or scored. */
export function errorRecord(ref: CallRef, err: unknown, elapsedMs = 0): ResultRecord {
  // An unexpected error ("Invalid URL", a stack overflow on deep nesting) says nothing of where: it is located in the call's file.
  const located = err instanceof VoxError && (err.file !== undefined || err.message.includes(ref.displayPath));
  const e = located ? (err as VoxError) : toVoxError(err, { file: ref.displayPath });
  return {
    id: ref.id,
    name: null,
    source: { format: ref.format, path: ref.displayPath },
    status: "error",
    error: { code: e.code, message: e.message },
    elapsed_ms: Math.round(elapsedMs * 1000) / 1000,
  };
}

/**
 * Load, score and describe one call. Its audio files and clips live in the thread's reused call
 * buffer (withCallBuffer): nothing of them outlives the record made from them.
 */
export function scoreCall(task: ScoreTask): ResultRecord {
  return withCallBuffer(() => scoreCallNow(task));
}

function scoreCallNow({ ref, ingest, score }: ScoreTask): ResultRecord {
  const t0 = performance.now();
  try {
    // compat is decided once, in the score options: the call is read and its clips analysed in the same mode.
    const loaded = loadCall(ref, { ...ingest, compat: score.compat, limits: score.limits });
    let scored;
    try {
      scored = scoreLoadedCall(loaded, score);
    } finally {
      loaded.dispose?.();
    }
    const { profile, metrics, turns } = scored;
    const record: ResultRecord = {
      id: ref.id,
      name: loaded.testCase.name ?? null,
      source: { format: ref.format, path: ref.displayPath },
      status: "ok",
      error: null,
      profile,
      metrics,
      turns,
      elapsed_ms: 0,
    };
    const accuracy = transcriptAccuracy(loaded.testCase);
    if (accuracy) record.transcript_accuracy = accuracy;
    if (loaded.warnings.length > 0) record.warnings = loaded.warnings;
    record.elapsed_ms = Math.round((performance.now() - t0) * 1000) / 1000;
    return record;
  } catch (err) {
    return errorRecord(ref, err, performance.now() - t0);
  }
}

/**
 * Score a batch's calls in turn; with `appendTo`, append their records to it in one write and hand
 * back digests only, else hand back each record's encoded line with its digest. Either way a record
 * is encoded once, straight into its line's bytes (no string of a long call's whole record).
 */
export function scoreBatch(task: BatchTask): CallOutcome[] {
  const appendTo = task.appendTo;
  if (appendTo === undefined) return task.refs.map((ref) => toOutcome(scoreCall({ ref, ingest: task.ingest, score: task.score })));
  let writeError: string | undefined;
  const append = (lines: Uint8Array[]): boolean => {
    try {
      appendEncodedLines(appendTo, lines);
      return true;
    } catch (e) {
      // Not a crash of this call: the caller ends the run with one clear line.
      writeError = outputWriteError(appendTo, e, true).message;
      return false;
    }
  };
  const single = task.refs.length === 1;
  const lines: Uint8Array[] = [];
  const outcomes: CallOutcome[] = [];
  /**
   * Encode the record; a batch of one call (the pool's) writes it at once, so a long call's line is
   * let go before its digest is made. A line that could not be written stays in its outcome.
   */
  const encode = (record: ResultRecord): Uint8Array | null => {
    const line = encodeRecordLine(record);
    if (!single) {
      lines.push(line);
      return null;
    }
    if (!append([line])) return line;
    releaseRecordLine(line);
    return null;
  };
  for (const ref of task.refs) {
    const record = scoreCall({ ref, ingest: task.ingest, score: task.score });
    const unwritten = encode(record);
    outcomes.push({ line: unwritten, digest: digestRecord(record) });
  }
  if (!single) {
    if (append(lines)) lines.forEach(releaseRecordLine);
    else lines.forEach((line, i) => (outcomes[i].line = line));
  }
  if (writeError !== undefined) for (const o of outcomes) o.writeError = writeError;
  return outcomes;
}
