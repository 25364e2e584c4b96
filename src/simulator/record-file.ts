// Reading a file of JSON records (goldens, caller scripts): one object, an array of them, or JSONL; a bad record is an error naming its file and line or index, and the others still load.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { VoxError, type ErrorCode } from "../model/errors.js";

/** Where a record stands in its file. */
export interface RecordPlace {
  /** `file`, `file record <i>` (0-based array index) or `file line <n>` (JSONL), for error messages. */
  origin: string;
  /** The file's folder (relative paths in a record resolve against it). */
  baseDir: string;
  /** 1-based array position or JSONL line; null for a file holding one object. */
  ordinal: number | null;
}

/**
 * Read every record of a JSON or JSONL (`.jsonl`) file through `parse`. An unreadable file is one
 * IO_ERROR, unparseable JSON an `invalidJson` error naming the file (and line); an error `parse`
 * throws is kept for that record only.
 */
export function readRecordFile<T>(path: string, parse: (value: unknown, place: RecordPlace) => T, invalidJson: ErrorCode): { records: T[]; errors: VoxError[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { records: [], errors: [new VoxError("IO_ERROR", (e as Error).message, { file: path })] };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const baseDir = dirname(resolve(path));
  const out: { records: T[]; errors: VoxError[] } = { records: [], errors: [] };
  const take = (value: unknown, origin: string, ordinal: number | null) => {
    try {
      out.records.push(parse(value, { origin, baseDir, ordinal }));
    } catch (e) {
      out.errors.push(e as VoxError);
    }
  };
  if (!/\.jsonl$/i.test(path)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return { records: [], errors: [new VoxError(invalidJson, `not valid JSON: ${(e as Error).message}`, { file: path })] };
    }
    if (Array.isArray(value)) value.forEach((v, i) => take(v, `${path} record ${i}`, i + 1));
    else take(value, path, null);
    return out;
  }
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      out.errors.push(new VoxError(invalidJson, `not valid JSON: ${(e as Error).message}`, { file: `${path} line ${i + 1}` }));
      return;
    }
    take(value, `${path} line ${i + 1}`, i + 1);
  });
  return out;
}
