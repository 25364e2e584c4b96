// Finds the records of a JSON or JSONL file as byte ranges without building them (formats.md F0.1, F1.1): the one splitter of the library loader and of discovery.

/** A byte range [start, end) of one JSON record inside a file. */
export type ByteRange = [number, number];

/** How a file holds its records. */
export type JsonContainer = "object" | "array" | "lines";

export interface JsonRecords {
  container: JsonContainer;
  ranges: ByteRange[];
  /** 1-based line of each record (JSONL). */
  lines?: number[];
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === LF || c === CR;
}

/** Offset after a UTF-8 byte-order mark, if any. */
function bodyStart(b: Uint8Array): number {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
}

/**
 * End offset (exclusive) of the JSON value starting at `start`, found by tracking strings and
 * bracket depth only; -1 when the value is unterminated. UTF-8 continuation bytes never equal an
 * ASCII structural byte, so scanning bytes is exact.
 */
function valueEnd(b: Uint8Array, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < b.length; i++) {
    const c = b[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 0) return i + 1;
      }
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && c === 0x2c) return i;
  }
  return depth === 0 && !inString ? b.length : -1;
}

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isSpace(b[i])) i++;
  return i;
}

/** Elements of a top-level array; null when the array is malformed. */
function arrayRanges(b: Uint8Array, open: number): ByteRange[] | null {
  const ranges: ByteRange[] = [];
  let i = skipSpace(b, open + 1);
  if (b[i] === 0x5d) return skipSpace(b, i + 1) === b.length ? ranges : null;
  for (;;) {
    const end = valueEnd(b, i);
    if (end < 0) return null;
    let stop = end;
    while (stop > i && isSpace(b[stop - 1])) stop--;
    ranges.push([i, stop]);
    i = skipSpace(b, end);
    if (b[i] === 0x2c) {
      i = skipSpace(b, i + 1);
      continue;
    }
    if (b[i] === 0x5d) return skipSpace(b, i + 1) === b.length ? ranges : null;
    return null;
  }
}

/** One record per non-blank line. */
function lineRanges(b: Uint8Array, from: number): JsonRecords {
  const ranges: ByteRange[] = [];
  const lines: number[] = [];
  let line = 1;
  let start = from;
  for (let i = from; i <= b.length; i++) {
    if (i < b.length && b[i] !== LF) continue;
    let s = start;
    let e = i;
    while (s < e && isSpace(b[s])) s++;
    while (e > s && isSpace(b[e - 1])) e--;
    if (e > s) {
      ranges.push([s, e]);
      lines.push(line);
    }
    line++;
    start = i + 1;
  }
  return { container: "lines", ranges, lines };
}

/**
 * Split a file into records. `.jsonl` files are always line-based; otherwise a single value is an
 * object or an array, and text with several values is read as JSONL. A malformed array yields a
 * single range covering the file (its parse error becomes one error record).
 */
export function scanJsonRecords(b: Uint8Array, jsonl: boolean): JsonRecords {
  const from = bodyStart(b);
  if (jsonl) return lineRanges(b, from);
  const first = skipSpace(b, from);
  if (first === b.length) return { container: "object", ranges: [] };
  if (b[first] === 0x5b) {
    const ranges = arrayRanges(b, first);
    return ranges ? { container: "array", ranges } : { container: "object", ranges: [[from, b.length]] };
  }
  const end = valueEnd(b, first);
  if (end >= 0 && skipSpace(b, end) === b.length) return { container: "object", ranges: [[first, end]] };
  const asLines = lineRanges(b, from);
  return asLines.ranges.length > 1 ? asLines : { container: "object", ranges: [[from, b.length]] };
}

/** Parse the text of one record, dropping a byte-order mark. */
export function parseRecord(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}
