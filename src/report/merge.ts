// `merge`: combines the part files of a sharded run (score --shard K/N) into one results JSONL, summary and CSV, refusing missing, doubled, foreign or incomplete parts.
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { resolve } from "node:path";
import { writeFileAtomic } from "../ingest/files.js";
import { VoxError } from "../model/errors.js";
import { canonicalJson, formatShard, parsePartHeader, shardOfId, type PartHeader } from "../queue/index.js";
import { digestRecord, isResultRecord, type RecordDigest, type ResultRecord } from "../scoring/index.js";
import { CsvWriter } from "./csv.js";
import { ResultWriter } from "./jsonl-writer.js";
import { SummaryAccumulator, type RunSummary } from "./summary.js";

/** What `voxmetrics merge` combines: the part files of a sharded run and the merged outputs to write. */
export interface MergeOptions {
  /** The part files (each written by `score --shard K/N --out part.jsonl`). */
  parts: string[];
  /** Merged results JSONL; null writes to stdout. */
  out: string | null;
  summary?: string | null;
  csv?: string | null;
}

/** The outcome of a merge: the merged summary, the shared part header and the number of calls. */
export interface MergeResult {
  summary: RunSummary;
  /** The header every part shares (its shard fields are those of the first part). */
  header: PartHeader;
  calls: number;
}

/** Bytes read at a time from a part. */
const READ_CHUNK = 1 << 20;
/** Records written to the merged file per write. */
const WRITE_BATCH = 512;

/** Every line of a file in order (the last one even without a line break), read in chunks. */
function forEachLine(path: string, visit: (line: string, lineNo: number) => void): void {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let carry = Buffer.alloc(0);
    let offset = 0;
    let lineNo = 0;
    while (offset < size) {
      const n = readSync(fd, buf, 0, READ_CHUNK, offset);
      if (n === 0) break;
      offset += n;
      let data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let nl: number;
      while ((nl = data.indexOf(0x0a)) >= 0) {
        visit(data.subarray(0, nl).toString("utf8"), ++lineNo);
        data = data.subarray(nl + 1);
      }
      carry = Buffer.from(data);
    }
    if (carry.length) visit(carry.toString("utf8"), ++lineNo);
  } finally {
    closeSync(fd);
  }
}

interface PartScan {
  path: string;
  header: PartHeader;
  records: number;
}

/**
 * Check the parts before writing anything: each opens with a part header; all are shards of one
 * run (same N, same options); every shard 1..N is there exactly once; each holds all of its calls,
 * only its own calls, and no call twice. Problems are gathered and reported together.
 */
function checkParts(paths: string[]): PartScan[] {
  if (paths.length === 0) throw new VoxError("MERGE_REFUSED", "no part files given");
  const problems: string[] = [];
  const scans: PartScan[] = [];
  const owner = new Map<string, string>();
  for (const path of paths) {
    if (!existsSync(path)) {
      problems.push(`${path}: no such file`);
      continue;
    }
    let header: PartHeader | null = null;
    let records = 0;
    let badLines = 0;
    let strays = 0;
    let firstStray = "";
    forEachLine(path, (line, lineNo) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        badLines++;
        return;
      }
      if (lineNo === 1) {
        header = parsePartHeader(value);
        return;
      }
      if (header === null || !isResultRecord(value)) {
        badLines++;
        return;
      }
      const h = header as PartHeader;
      const id = value.id;
      const before = owner.get(id);
      if (before !== undefined) problems.push(before === path ? `${path}: call ${id} appears twice` : `call ${id} is in both ${before} and ${path} (overlapping parts)`);
      else owner.set(id, path);
      if (shardOfId(id, h.count) !== h.index) {
        if (strays++ === 0) firstStray = id;
      }
      records++;
    });
    if (header === null) {
      problems.push(`${path}: not a shard part (its first line is no part header; score it with --shard K/N)`);
      continue;
    }
    const h = header as PartHeader;
    if (badLines > 0) problems.push(`${path}: ${badLines} line(s) are not result records (a truncated or edited part?)`);
    if (strays > 0) problems.push(`${path}: ${strays} call(s) do not belong to shard ${h.shard} (first: ${firstStray})`);
    if (records < h.calls) problems.push(`${path}: shard ${h.shard} is incomplete: ${records} of its ${h.calls} calls (rerun it with --resume)`);
    else if (records > h.calls) problems.push(`${path}: shard ${h.shard} holds ${records} records for ${h.calls} calls`);
    scans.push({ path, header: h, records });
  }
  if (scans.length > 0) {
    const first = scans[0].header;
    for (const s of scans.slice(1)) {
      if (s.header.count !== first.count) problems.push(`${s.path} is shard ${s.header.shard} but ${scans[0].path} is shard ${first.shard}: parts of different splits`);
      else if (canonicalJson(s.header.options) !== canonicalJson(first.options)) problems.push(`${s.path} was scored with other options than ${scans[0].path}: ${canonicalJson(s.header.options)} vs ${canonicalJson(first.options)}`);
    }
    const byIndex = new Map<number, string[]>();
    for (const s of scans) byIndex.set(s.header.index, [...(byIndex.get(s.header.index) ?? []), s.path]);
    for (const [index, files] of byIndex) if (files.length > 1) problems.push(`shard ${formatShard({ index, count: first.count })} given twice: ${files.join(", ")}`);
    const missing: string[] = [];
    for (let k = 1; k <= first.count; k++) if (!byIndex.has(k)) missing.push(formatShard({ index: k, count: first.count }));
    if (missing.length > 0) problems.push(`missing shard(s) ${missing.join(", ")} of a ${first.count}-way split`);
  }
  if (problems.length > 0) throw new VoxError("MERGE_REFUSED", `refusing to merge:\n  ${problems.join("\n  ")}`);
  return scans.sort((a, b) => a.header.index - b.header.index);
}

/** Merge checked parts into one results file (records in shard order, text unchanged), summary and CSV. */
export function mergeParts(options: MergeOptions): MergeResult {
  const t0 = performance.now();
  const parts = options.parts.map((p) => resolve(p));
  const outputs = [options.out, options.summary, options.csv].filter((p): p is string => Boolean(p)).map((p) => resolve(p));
  const clash = parts.find((p) => outputs.includes(p));
  if (clash) throw new VoxError("INVALID_OPTION", `${clash} is both a part and an output`);
  const scans = checkParts(parts);
  const writer = ResultWriter.open(options.out, false);
  const csv = options.csv ? new CsvWriter(options.csv) : null;
  const totals = new SummaryAccumulator();
  let calls = 0;
  for (const scan of scans) {
    let pending: string[] = [];
    forEachLine(scan.path, (line, lineNo) => {
      if (lineNo === 1 || !line.trim()) return;
      const record = digestRecord(JSON.parse(line) as ResultRecord);
      totals.add(record);
      csv?.add(record);
      calls++;
      pending.push(line.trim());
      if (pending.length >= WRITE_BATCH) {
        writer.writeLines(pending);
        pending = [];
      }
    });
    writer.writeLines(pending);
  }
  csv?.finish();
  const summary = totals.summary((performance.now() - t0) / 1000);
  if (options.summary) writeFileAtomic(options.summary, JSON.stringify(summary, null, 2) + "\n");
  return { summary, header: scans[0].header, calls };
}
