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

/** Where a JSON text first goes wrong: 0-based character offset and what was expected there. */
export interface JsonSyntaxProblem {
  offset: number;
  reason: string;
}

/** A character as messages quote it: printable ASCII as is, anything else as U+XXXX (binary never reaches a message). */
function quoteChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code >= 0x20 && code < 0x7f ? `"${ch}"` : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Find the first syntax error of a JSON text (RFC 8259), or null when it parses. Used only after
 * `JSON.parse` failed, to say where (V8's messages give no position for several errors, and quote
 * binary input verbatim).
 */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | null {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (reason: string): never => {
    throw { offset: i, reason: i >= text.length ? `unexpected end of input (${reason})` : `unexpected ${quoteChar(text[i])} (${reason})` } satisfies JsonSyntaxProblem;
  };
  const space = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`expected ${word}`);
      i++;
    }
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail("control character in a string");
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === "u") {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) ((i += k), fail("expected 4 hex digits after \\u"));
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail("invalid escape");
      } else i++;
    }
  };
  const number = () => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else if (/[1-9]/.test(text[i] ?? "")) while (/[0-9]/.test(text[i] ?? "")) i++;
    else fail("expected a digit");
    if (text[i] === ".") {
      i++;
      if (!/[0-9]/.test(text[i] ?? "")) fail("expected a digit");
      while (/[0-9]/.test(text[i] ?? "")) i++;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!/[0-9]/.test(text[i] ?? "")) fail("expected a digit");
      while (/[0-9]/.test(text[i] ?? "")) i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail("nesting too deep");
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      space();
      if (text[i] === "}") return void i++;
      for (;;) {
        space();
        if (text[i] !== '"') fail("expected a property name in double quotes");
        string();
        space();
        if (text[i] !== ":") fail('expected ":"');
        i++;
        value(depth + 1);
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail('expected "," or "}"');
      }
    }
    if (c === "[") {
      i++;
      space();
      if (text[i] === "]") return void i++;
      for (;;) {
        value(depth + 1);
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    fail("expected a JSON value");
  };
  try {
    value(0);
    space();
    if (i < text.length) fail("expected the end of the text after a complete value");
    return null;
  } catch (e) {
    if (e && typeof e === "object" && "offset" in e) return e as JsonSyntaxProblem;
    throw e;
  }
}

/** 1-based line and column (in characters) of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text.charCodeAt(k) === 0x0a) {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The location and reason of a record's syntax error in file terms, `line L column C: JSON syntax
 * error: …`, given where the record starts in its file (1-based line and column).
 */
export function describeRecordSyntaxError(record: string, startLine = 1, startColumn = 1): string {
  const { where, detail } = locateRecordSyntaxError(record, startLine, startColumn);
  return `${where}: ${detail}`;
}

/** The parts of describeRecordSyntaxError: `where` ("line L column C") and `detail` ("JSON syntax error: …"). */
export function locateRecordSyntaxError(record: string, startLine = 1, startColumn = 1): { where: string; detail: string } {
  const problem = findJsonSyntaxError(record) ?? { offset: record.length, reason: "not valid JSON" };
  const { line, column } = lineAndColumn(record, problem.offset);
  return { where: `line ${startLine + line - 1} column ${line === 1 ? startColumn + column - 1 : column}`, detail: `JSON syntax error: ${problem.reason}` };
}

/** Like describeRecordSyntaxError for the record at [start, end) of a whole file's bytes. */
export function describeJsonSyntaxError(bytes: Uint8Array, start: number, end: number): string {
  const decoder = new TextDecoder();
  const prefix = decoder.decode(bytes.subarray(0, start));
  const at = lineAndColumn(prefix, prefix.length);
  return describeRecordSyntaxError(decoder.decode(bytes.subarray(start, end)), at.line, at.column);
}
