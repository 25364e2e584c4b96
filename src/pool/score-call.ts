// Scores one call reference into a result record; never throws (a call that cannot be read becomes an error record).
import { withCallBuffer } from "../audio/call-buffer.js";
import { loadCall } from "../ingest/index.js";
import type { CallRef, IngestOptions } from "../ingest/types.js";
import { toVoxError } from "../model/errors.js";
import type { ResultRecord } from "./record.js";
import { scoreTestCase, type ScoreOptions } from "../score.js";

/** One call to score: a path-based reference and the options, never PCM. */
export interface ScoreTask {
  ref: CallRef;
  ingest: IngestOptions;
  score: ScoreOptions;
}

/** What a worker receives: calls scored one after the other with the options they share. */
export interface BatchTask {
  refs: CallRef[];
  ingest: IngestOptions;
  score: ScoreOptions;
  /**
   * Results JSONL the worker appends the task's records to (one write for the whole task, after
   * the last call), so record text never crosses threads; absent, records travel back as lines.
   */
  appendTo?: string;
}

/** The error record of a call that could not be read or scored. */
export function errorRecord(ref: CallRef, err: unknown, elapsedMs = 0): ResultRecord {
  const e = toVoxError(err);
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

function scoreCallNow(task: ScoreTask): ResultRecord {
  const t0 = performance.now();
  const { ref } = task;
  try {
    const loaded = loadCall(ref, task.ingest);
    const { testCase, warnings } = loaded;
    const compat = task.ingest.compat ?? task.score.compat ?? "voxmetrics";
    const { metrics, turns } = scoreTestCase(loaded, { ...task.score, compat });
    const record: ResultRecord = {
      id: ref.id,
      name: testCase.name ?? null,
      source: { format: ref.format, path: ref.displayPath },
      status: "ok",
      error: null,
      metrics,
      turns,
      elapsed_ms: 0,
    };
    if (warnings.length > 0) record.warnings = warnings;
    record.elapsed_ms = Math.round((performance.now() - t0) * 1000) / 1000;
    return record;
  } catch (err) {
    return errorRecord(ref, err, performance.now() - t0);
  }
}
