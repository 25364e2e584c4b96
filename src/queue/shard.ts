// Shards of an archive with no coordination (a call belongs to shard hash(id) mod N), the header a part file opens with, and the canonical form of a run's options (shared with queue job ids).
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import type { CallReadOptions, ScoreOptions } from "../scoring/index.js";
import { VoxError } from "../model/errors.js";

/** Shard K of N (1-based: `--shard 1/4` … `--shard 4/4`). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** Most shards a run may be split into (a sanity bound on `N`). */
const MAX_SHARDS = 100_000;

/** Parse `K/N` (1 ≤ K ≤ N); a bad value is an INVALID_OPTION naming `shard`. */
export function parseShard(text: string | ShardSpec): ShardSpec {
  if (typeof text !== "string") return validShard(text.index, text.count, `${text.index}/${text.count}`);
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new VoxError("INVALID_OPTION", `must be K/N with 1 ≤ K ≤ N (e.g. 2/8), got "${text}"`, { field: "shard" });
  return validShard(Number(m[1]), Number(m[2]), text);
}

function validShard(index: number, count: number, text: string): ShardSpec {
  if (!Number.isInteger(index) || !Number.isInteger(count) || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new VoxError("INVALID_OPTION", `must be K/N with 1 ≤ K ≤ N ≤ ${MAX_SHARDS}, got "${text}"`, { field: "shard" });
  }
  return { index, count };
}

export function formatShard(s: ShardSpec): string {
  return `${s.index}/${s.count}`;
}

/**
 * The shard (1-based) a call id belongs to among `count`: the first 48 bits of SHA-256 of the id,
 * mod count. It depends on the id alone, so every machine agrees without talking to the others,
 * and a uniform hash spreads calls evenly (each shard gets ≈ calls / count).
 */
export function shardOfId(id: string, count: number): number {
  const digest = createHash("sha256").update(id, "utf8").digest();
  return (digest.readUIntBE(0, 6) % count) + 1;
}

/** What the results of a run depend on: the resolved score options and how calls are read (not where outputs go). */
export interface RunOptionsRecord {
  score: ScoreOptions;
  ingest: { inputFormat: string | null; agentChannel: string | null; inferStartTimes: boolean | null };
}

/** The part of the run's options that decides records, in a fixed shape. */
export function describeRunOptions(score: ScoreOptions, ingest: CallReadOptions): RunOptionsRecord {
  return {
    score: JSON.parse(canonicalJson(score)) as ScoreOptions,
    ingest: { inputFormat: ingest.inputFormat ?? null, agentChannel: ingest.agentChannel ?? null, inferStartTimes: ingest.inferStartTimes ?? null },
  };
}

/** JSON with object keys sorted at every level, so equal options give equal text (and hashes). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Short hash of the run's options (hex), part of every queue job id. */
export function hashRunOptions(options: RunOptionsRecord): string {
  return createHash("sha256").update(canonicalJson(options)).digest("hex").slice(0, 16);
}

/** The key of the first line of a part file. */
export const PART_HEADER_KEY = "voxmetrics_part";

/** The first line of a shard's results: which shard, how many calls it holds, and the run's options. */
export interface PartHeader {
  version: 1;
  shard: string;
  index: number;
  count: number;
  /** Calls of this shard (after removing repeated ids): what a complete part holds. */
  calls: number;
  options: RunOptionsRecord;
}

export function partHeader(shard: ShardSpec, calls: number, options: RunOptionsRecord): PartHeader {
  return { version: 1, shard: formatShard(shard), index: shard.index, count: shard.count, calls, options };
}

/** The header as its JSONL line (no line break). */
export function partHeaderLine(header: PartHeader): string {
  return JSON.stringify({ [PART_HEADER_KEY]: header });
}

/** The header held by a parsed first line, or null when the value is not one. */
export function parsePartHeader(value: unknown): PartHeader | null {
  if (value === null || typeof value !== "object") return null;
  const h = (value as Record<string, unknown>)[PART_HEADER_KEY] as PartHeader | undefined;
  if (!h || typeof h !== "object") return null;
  if (!Number.isInteger(h.index) || !Number.isInteger(h.count) || !Number.isInteger(h.calls) || typeof h.options !== "object" || h.options === null) return null;
  return h;
}

/** Bytes read when looking for a part file's first line. */
const HEADER_PROBE_BYTES = 1 << 16;

/** The header on the first line of `path`, or null when the file has none (or is empty). */
export function readPartHeader(path: string): PartHeader | null {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(HEADER_PROBE_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    const nl = text.indexOf("\n");
    const first = (nl >= 0 ? text.slice(0, nl) : text).trim();
    if (!first) return null;
    try {
      return parsePartHeader(JSON.parse(first));
    } catch {
      return null;
    }
  } finally {
    closeSync(fd);
  }
}

/** True when two headers describe shards of the same run (same N, same options). */
export function sameRun(a: PartHeader, b: PartHeader): boolean {
  return a.count === b.count && canonicalJson(a.options) === canonicalJson(b.options);
}
