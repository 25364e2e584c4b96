// Scores a whole archive: discovery, the pool, the resumable JSONL, then the atomic summary and the CSV.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { discoverCalls } from "../ingest/index.js";
import type { CallRef, Discovery } from "../ingest/types.js";
import { VoxError } from "../model/errors.js";
import { runCalls, startPool, type PoolOptions, type ScoringPool } from "../pool/index.js";
import { digestRecord, outputWriteError, resolveScoreOptions, type CallOutcome, type CallReadOptions, type RecordDigest, type ScoreOptions, type ScoreOptionsInput } from "../scoring/index.js";
import { pathKind } from "../ingest/file-kind.js";
import { realPathOr, writeFileAtomic } from "../ingest/files.js";
import { canonicalJson, describeRunOptions, formatShard, parseShard, partHeader, partHeaderLine, readPartHeader, runCallsOnQueue, shardOfId, type QueueOptions, type ShardSpec } from "../queue/index.js";
import { lockOutputFile, type OutputLock } from "./lock.js";
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
  /**
   * Score through a Redis queue (BullMQ) instead of the local pool: calls are enqueued in batches
   * for `voxmetrics worker` processes on any machine, and this process collects and writes every
   * result. The pool's signal stops it too.
   */
  queue?: QueueOptions;
  /**
   * Score only shard K of N (`{ index: K, count: N }` or "K/N"): the calls whose id hashes to it.
   * The results then open with a header line recording K/N, the shard's call count and the run's
   * options, so that `mergeParts` can tell a missing, doubled or foreign part.
   */
  shard?: ShardSpec | string;
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
  const shard = options.shard === undefined ? null : parseShard(options.shard);
  const outputs = [options.out, options.summary, options.csv].filter((p): p is string => Boolean(p)).map((p) => resolve(p));
  const ingest: CallReadOptions = { ...options.ingest, exclude: [...(options.ingest?.exclude ?? []), ...outputs] };
  refuseOutputsNamingInputs(options);
  // One run per output file at a time: a second run on the same files is refused, not interleaved.
  const locks: OutputLock[] = [];
  try {
    // Devices and pipes (-o /dev/stdout) are not files another run could share: only files are locked.
    for (const p of outputs) if (pathKind(p).kind !== "special") locks.push(lockOutputFile(p));
    // The workers boot (engine, wasm) while this thread walks the archive; in queue mode they run elsewhere.
    const pool = options.queue ? null : startPool(options.pool);
    try {
      return await scoreDiscovered(options, ingest, score, shard, pool, t0);
    } finally {
      await pool?.close();
    }
  } finally {
    for (const lock of locks) lock.release();
  }
}

/** An output file that is also an input would be overwritten by the run reading it: refused before anything is written. */
function refuseOutputsNamingInputs(options: ScoreArchiveOptions): void {
  const inputs = new Set(options.inputs.map((p) => realPathOr(p)));
  const named: Array<[string, string | null | undefined]> = [["out", options.out], ["summary", options.summary], ["csv", options.csv]];
  for (const [flag, path] of named) {
    if (path && inputs.has(realPathOr(path))) {
      throw new VoxError("INVALID_OPTION", `--${flag} ${path} is one of the inputs; writing there would overwrite it (choose another file)`);
    }
  }
}

/** Run a write to an output file; a failure becomes the one clear error that ends the run. */
function guardWrite(path: string, write: () => void): void {
  try {
    write();
  } catch (e) {
    throw outputWriteError(path, e, false);
  }
}

async function scoreDiscovered(options: ScoreArchiveOptions, ingest: CallReadOptions, score: ScoreOptions, shard: ShardSpec | null, pool: ScoringPool | null, t0: number): Promise<ScoreArchiveResult> {
  const found = discoverCalls(options.inputs, ingest);
  // Repeats of an id (an input named twice) are scored once; a shard keeps the ids that hash to it.
  const seen = new Set<string>();
  const calls = found.calls.filter((c) => !seen.has(c.id) && seen.add(c.id) && (shard === null || shardOfId(c.id, shard.count) === shard.index));
  const discovery: Discovery = { ...found, calls };

  const totals = new SummaryAccumulator();
  const thresholds = new ThresholdTally();
  const csv = options.csv ? new CsvWriter(options.csv) : null;
  const done = new Set<string>();
  const account = (record: RecordDigest) => {
    done.add(record.id);
    totals.add(record);
    thresholds.add(record);
    if (csv) guardWrite(options.csv!, () => csv.add(record));
  };
  const writer = ResultWriter.open(options.out, options.resume ?? false, (record) => {
    if (!done.has(record.id)) account(digestRecord(record));
  });
  if (shard !== null) writePartHeader(writer, options, shard, calls.length, describeRunOptions(score, ingest));
  const resumed = done.size;
  // Calls already in the output are not scored again.
  const todo: CallRef[] = calls.filter((c) => !done.has(c.id));
  options.onDiscovered?.(discovery, calls.length - todo.length);

  let scored = 0;
  let interrupted = false;
  let summary: RunSummary;
  try {
    const onOutcome = ({ line, digest }: CallOutcome) => {
      if (done.has(digest.id)) return;
      if (line !== null) writer.writeEncodedLine(line);
      account(digest);
      scored++;
      options.onRecord?.(digest);
    };
    if (pool !== null) {
      // Workers append records to a results file themselves; only stdout goes through this thread.
      const appendTo = options.out ? resolve(options.out) : undefined;
      ({ interrupted } = await runCalls(todo, { ingest, score, appendTo }, pool, onOutcome));
    } else {
      // The coordinator is the only writer: records come back through Redis and are written here.
      const queue = { ...options.queue!, signal: options.queue!.signal ?? options.pool?.signal };
      ({ interrupted } = await runCallsOnQueue(calls, (id) => done.has(id), { ingest, score }, queue, onOutcome));
    }
  } finally {
    summary = totals.summary((performance.now() - t0) / 1000);
    if (options.summary) guardWrite(options.summary, () => writeFileAtomic(options.summary!, JSON.stringify(summary, null, 2) + "\n"));
    if (csv) guardWrite(options.csv!, () => csv.finish());
  }
  return { summary, scored, resumed, interrupted, warnings: discovery.warnings, belowThreshold: thresholds.report() };
}

/**
 * Open a shard's results with its header; on --resume the existing header must be this shard of
 * this run (same K/N, calls and options), or the run is refused before anything is scored.
 */
function writePartHeader(writer: ResultWriter, options: ScoreArchiveOptions, shard: ShardSpec, calls: number, run: ReturnType<typeof describeRunOptions>): void {
  const header = partHeader(shard, calls, run);
  if (writer.path !== null && options.resume && statSync(writer.path).size > 0) {
    const existing = readPartHeader(writer.path);
    const what = `${writer.path}: --resume of shard ${formatShard(shard)}`;
    if (existing === null) throw new VoxError("INVALID_OPTION", `${what}: the file has no part header (it was not scored with --shard)`, { field: "shard" });
    if (existing.index !== shard.index || existing.count !== shard.count) throw new VoxError("INVALID_OPTION", `${what}: the file holds shard ${existing.shard}`, { field: "shard" });
    if (canonicalJson(existing.options) !== canonicalJson(run)) throw new VoxError("INVALID_OPTION", `${what}: the file was scored with other options (${canonicalJson(existing.options)})`, { field: "shard" });
    if (existing.calls !== calls) throw new VoxError("INVALID_OPTION", `${what}: the shard held ${existing.calls} calls then and ${calls} now (the archive changed)`, { field: "shard" });
    return;
  }
  writer.writeLine(partHeaderLine(header));
}
