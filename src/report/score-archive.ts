// Scores a whole archive: discovery, the pool, the resumable JSONL, then the atomic summary and the CSV.
import { resolve } from "node:path";
import { discoverCalls } from "../ingest/index.js";
import type { CallRef, Discovery } from "../ingest/types.js";
import { VoxError } from "../model/errors.js";
import { runCalls, startPool, type PoolOptions, type ScoringPool } from "../pool/index.js";
import { resolveScoreOptions, type CallReadOptions, type RecordDigest, type ScoreOptions, type ScoreOptionsInput } from "../scoring/index.js";
import { writeFileAtomic } from "../ingest/files.js";
import { CsvWriter } from "./csv.js";
import { ResultWriter } from "./jsonl-writer.js";
import { ThresholdTally, type ThresholdReport } from "./gates.js";
import { SummaryAccumulator, type RunSummary } from "./summary.js";

/** Options of scoreArchive: inputs, outputs (JSONL, summary, CSV), resume, and the ingest, score and pool options. */
export interface ScoreArchiveOptions {
  inputs: string[];
  /** Results JSONL; null writes to stdout. */
  out: string | null;
  /** Summary JSON, written atomically at the end (and when interrupted). */
  summary?: string | null;
  /** CSV, one row per call and metric. */
  csv?: string | null;
  /** Skip calls whose id is already in `out`; append the rest. */
  resume?: boolean;
  /** How calls are found and read (compat is a score option: it governs reading and analysis alike). */
  ingest?: CallReadOptions;
  score?: ScoreOptionsInput;
  pool?: PoolOptions;
  /** Called once discovery is done (before any scoring). */
  onDiscovered?: (discovery: Discovery, alreadyDone: number) => void;
  /** Called after each record is written. */
  onRecord?: (record: RecordDigest) => void;
}

/** What scoreArchive returns: the summary, counts, whether it was interrupted, warnings and the threshold report. */
export interface ScoreArchiveResult {
  summary: RunSummary;
  /** Calls scored by this run (not counting resumed ones). */
  scored: number;
  /** Calls skipped because `--resume` found them in the output. */
  resumed: number;
  interrupted: boolean;
  warnings: string[];
  /** Scored metric results below their threshold, over every call of the output (resumed ones too). */
  belowThreshold: ThresholdReport;
}

/** Score every call under the inputs; the archive is never held in memory, only running totals. */
export async function scoreArchive(options: ScoreArchiveOptions): Promise<ScoreArchiveResult> {
  const t0 = performance.now();
  if (options.resume && !options.out) throw new VoxError("INVALID_OPTION", "--resume needs --out <file.jsonl> (results on stdout cannot be resumed)");
  const score = resolveScoreOptions(options.score);
  const outputs = [options.out, options.summary, options.csv].filter((p): p is string => Boolean(p)).map((p) => resolve(p));
  const ingest: CallReadOptions = { ...options.ingest, exclude: [...(options.ingest?.exclude ?? []), ...outputs] };
  // The workers boot (engine, wasm) while this thread walks the archive.
  const pool = startPool(options.pool);
  try {
    return await scoreDiscovered(options, ingest, score, pool, t0);
  } finally {
    await pool.close();
  }
}

async function scoreDiscovered(options: ScoreArchiveOptions, ingest: CallReadOptions, score: ScoreOptions, pool: ScoringPool, t0: number): Promise<ScoreArchiveResult> {
  const discovery = discoverCalls(options.inputs, ingest);

  const totals = new SummaryAccumulator();
  const thresholds = new ThresholdTally();
  const csv = options.csv ? new CsvWriter(options.csv) : null;
  const done = new Set<string>();
  const account = (record: RecordDigest) => {
    done.add(record.id);
    totals.add(record);
    thresholds.add(record);
    csv?.add(record);
  };
  const writer = ResultWriter.open(options.out, options.resume ?? false, (record) => {
    if (!done.has(record.id)) account(record);
  });
  const resumed = done.size;
  // Calls already in the output, and repeats of an id (an input named twice), are not scored again.
  const queued = new Set<string>();
  const todo: CallRef[] = [];
  for (const call of discovery.calls) {
    if (done.has(call.id) || queued.has(call.id)) continue;
    queued.add(call.id);
    todo.push(call);
  }
  options.onDiscovered?.(discovery, discovery.calls.length - todo.length);

  let scored = 0;
  let interrupted = false;
  let summary: RunSummary;
  try {
    // Workers append records to a results file themselves; only stdout goes through this thread.
    const appendTo = options.out ? resolve(options.out) : undefined;
    ({ interrupted } = await runCalls(todo, { ingest, score, appendTo }, pool, ({ line, digest }) => {
      if (done.has(digest.id)) return;
      if (line !== null) writer.writeLine(line);
      account(digest);
      scored++;
      options.onRecord?.(digest);
    }));
  } finally {
    summary = totals.summary((performance.now() - t0) / 1000);
    if (options.summary) writeFileAtomic(options.summary, JSON.stringify(summary, null, 2) + "\n");
    csv?.finish();
  }
  return { summary, scored, resumed, interrupted, warnings: discovery.warnings, belowThreshold: thresholds.report() };
}
