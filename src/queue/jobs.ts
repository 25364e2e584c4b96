// What travels through the queue: a job is a batch of call references with the run's options; its result is the batch's record lines. Job ids are derived from the calls and the options, so adding a job twice is a no-op.
import { createHash } from "node:crypto";
import type { CallRef } from "../ingest/types.js";
import type { CallReadOptions, RecordDigest, ScoreOptions } from "../scoring/index.js";

/**
 * Version of the job payload and of its stored result (encodeBatch); a worker refuses jobs of
 * another version (a mixed deployment). 2: record lines stored as bytes, each with its line break.
 */
export const JOB_VERSION = 2;

/** BullMQ job name of a scoring batch. */
export const JOB_NAME = "score";

export interface ScoreJobData {
  v: typeof JOB_VERSION;
  /** Calls as the coordinator discovered them (paths as it saw them). */
  refs: CallRef[];
  ingest: CallReadOptions;
  score: ScoreOptions;
}

/**
 * What a job returns: where its records wait. BullMQ copies a job's return value into its event
 * stream (kept to thousands of events), so the records (kilobytes per call) go to a key of their
 * own, which the coordinator reads and deletes once it has written them.
 */
export interface ScoreJobResult {
  /** The worker that scored the batch (its --name). */
  worker: string;
  /** Redis key of the batch's records (encodeBatch). */
  key: string;
  calls: number;
}

/** The records of a batch, as stored under ScoreJobResult.key (encodeBatch). */
export interface ScoredBatch {
  /** One encoded result record per call: its line in UTF-8 with the line break (encodeRecordLine). */
  lines: Uint8Array[];
  /** Their digests (no turns, no breakdowns), so the coordinator parses little. */
  digests: RecordDigest[];
}

const LINE_BREAK = 0x0a;

/**
 * A batch as bytes: the digests as one JSON line, then the record lines' bytes as they are (a
 * serialised record holds no raw line break), so record text is neither decoded, escaped nor parsed
 * on the way.
 */
export function encodeBatch(batch: ScoredBatch): Uint8Array {
  return Buffer.concat([Buffer.from(`${JSON.stringify(batch.digests)}\n`, "utf8"), ...batch.lines]);
}

/**
 * The batch of encodeBatch's bytes; its record lines are views of `bytes`, each with its line
 * break. A result stored by version 1 (its last line without a line break) is read too.
 */
export function decodeBatch(bytes: Uint8Array): ScoredBatch {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nl = data.indexOf(LINE_BREAK);
  const digests = JSON.parse(data.toString("utf8", 0, nl < 0 ? data.length : nl)) as RecordDigest[];
  const lines: Uint8Array[] = [];
  for (let start = nl + 1; nl >= 0 && start < data.length; ) {
    const end = data.indexOf(LINE_BREAK, start);
    if (end < 0) {
      lines.push(Buffer.concat([data.subarray(start), Buffer.of(LINE_BREAK)]));
      break;
    }
    lines.push(data.subarray(start, end + 1));
    start = end + 1;
  }
  if (lines.length !== digests.length) throw new Error(`a batch result holds ${lines.length} record line(s) for ${digests.length} digest(s)`);
  return { lines, digests };
}

/** Uncollected batch results expire after this long (s); a coordinator resumed later scores them again. */
export const RESULT_TTL_S = 7 * 24 * 3600;

/** Key of the records of job `jobId` of queue `queueName`. */
export function resultKey(queueName: string, jobId: string): string {
  return `voxmetrics:${queueName}:result:${jobId}`;
}

/** Near the end of the list a job holds at most 1/TAIL_SHARE of the calls left, and at least MIN_TAIL_BATCH. */
const TAIL_SHARE = 8;
const MIN_TAIL_BATCH = 4;

/**
 * Calls in the job that starts at position `start` of a list of `total` calls: `batchSize`, tapering
 * over the last TAIL_SHARE × batchSize calls, so that a run does not end on one worker's long job
 * while the others idle. It depends only on the position, so the same list always gives the same
 * batches (and job ids).
 */
export function batchSizeAt(start: number, total: number, batchSize: number): number {
  return Math.min(batchSize, Math.max(Math.min(batchSize, MIN_TAIL_BATCH), Math.ceil((total - start) / TAIL_SHARE)));
}

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Id of the job scoring `ids` under options hashed to `optionsHash`. BullMQ refuses ":" in custom
 * ids and ignores an add whose id exists, so a coordinator re-run adds nothing it already added.
 */
export function batchJobId(optionsHash: string, ids: readonly string[]): string {
  return `vx-${optionsHash}-${sha(ids.join("\n")).slice(0, 32)}`;
}

/**
 * The queue of calls scored in isolation: a job that failed (its workers died or stalled twice) is
 * split into one job per call here, and a worker runs such a job with nothing else in its process,
 * so a second failure is that call's own doing (a job sharing a process with a poison call dies
 * with it, but never in isolation).
 */
export function isolatedQueueName(queueName: string): string {
  return `${queueName}-isolated`;
}

/** Id of the job scoring one call alone (after its batch failed twice). */
export function singleJobId(optionsHash: string, id: string): string {
  return `vx-${optionsHash}-${sha(id).slice(0, 32)}-alone`;
}
