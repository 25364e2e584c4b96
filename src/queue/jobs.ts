// What travels through the queue: a job is a batch of call references with the run's options; its result is the batch's record lines. Job ids are derived from the calls and the options, so adding a job twice is a no-op.
import { createHash } from "node:crypto";
import type { CallRef } from "../ingest/types.js";
import type { CallReadOptions, ScoreOptions } from "../scoring/index.js";

/** Version of the job payload; a worker refuses jobs of another version (a mixed deployment). */
export const JOB_VERSION = 1;

/** BullMQ job name of a scoring batch. */
export const JOB_NAME = "score";

export interface ScoreJobData {
  v: typeof JOB_VERSION;
  /** Calls as the coordinator discovered them (paths as it saw them). */
  refs: CallRef[];
  ingest: CallReadOptions;
  score: ScoreOptions;
}

export interface ScoreJobResult {
  /** The worker that scored the batch (its --name). */
  worker: string;
  /** One serialised result record per call of the batch. */
  lines: string[];
}

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Id of the job scoring `ids` under options hashed to `optionsHash`. BullMQ refuses ":" in custom
 * ids and ignores an add whose id exists, so a coordinator re-run adds nothing it already added.
 */
export function batchJobId(optionsHash: string, ids: readonly string[]): string {
  return `vx-${optionsHash}-${sha(ids.join("\n")).slice(0, 32)}`;
}

/** Id of the job scoring one call alone (after its batch failed twice). */
export function singleJobId(optionsHash: string, id: string): string {
  return `vx-${optionsHash}-${sha(id).slice(0, 32)}-alone`;
}
