// deepeval ConversationalTestCase JSON / JSON arrays / JSONL files (formats.md F1): detection, one call per record, loading a record; and the library loaders of whole files.
import { closeSync, openSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { AudioValidationError, setDefaultLocalAudioResolver, type ResolvedLocalFile } from "../../model/audio.js";
import { remoteUrlProblem } from "./remote-url.js";
import { parseTestCaseText, testCaseFromJson, type CompatMode, type ParsedTestCase } from "../../model/codec.js";
import { VoxError } from "../../model/errors.js";
import { lineAndColumn, locateRecordSyntaxError, parseRecord } from "../../model/json-records.js";
import { extensionOf, isFile, isInside, localFileReader, readRanges, realPathOr } from "../files.js";

/** Line and column just after `text`. */
const endOf = (text: string) => lineAndColumn(text, text.length);
import type { Candidate, CandidateContext, CallRef, IngestOptions, InputFormat, LoadedCall, RecordRef } from "../types.js";

/** A test case (F0.2 order 2): a JSON object with a `turns` key of any type; a JSONL container makes it deepeval-jsonl. */
export function detect(c: Candidate): InputFormat | null {
  if (c.kind !== "json" || !isObject(c.first.value) || !("turns" in c.first.value)) return null;
  return c.records.container === "lines" ? "deepeval-jsonl" : "deepeval-json";
}

/** One call per record: `<id>#<index>`, with its byte range (and line, in JSONL). */
export function discover(c: Candidate, { id, displayPath, format, baseDir }: CandidateContext): CallRef[] {
  if (c.kind !== "json" || (format !== "deepeval-json" && format !== "deepeval-jsonl")) return [];
  const { ranges, lines } = c.records;
  return ranges.map((range, index): RecordRef => ({ id: `${id}#${index}`, format, path: c.path, displayPath, index, range, line: lines ? lines[index] : null, ...(baseDir ? { baseDir } : {}) }));
}

/** Parse and validate one record; urls resolve against the file's folder. */
export function load(ref: RecordRef, options: IngestOptions): LoadedCall {
  const [text] = readRanges(ref.path, [ref.range]);
  const file = ref.line !== null ? `${ref.displayPath}: line ${ref.line}` : ref.index ? `${ref.displayPath}: record ${ref.index}` : ref.displayPath;
  let value: unknown;
  try {
    value = parseRecord(text ?? "");
  } catch {
    // Where in the file: a JSONL record starts its line; an array element needs the text before it.
    const start = ref.line !== null ? { line: ref.line, column: 1 } : endOf(readRanges(ref.path, [[0, ref.range[0]]])[0]);
    const { where, detail } = locateRecordSyntaxError(text ?? "", start.line, start.column);
    throw new VoxError("INVALID_JSON", detail, { file: ref.displayPath, field: where });
  }
  const baseDir = ref.baseDir ?? dirname(ref.path);
  const warnings: string[] = [];
  let testCase;
  try {
    testCase = testCaseFromJson(value, { compat: options.compat, file, resolveLocal: localAudioResolver(baseDir, options.confinePaths ?? null), describeUrl: (url) => localPathOf(url, baseDir) ?? url }, warnings);
  } catch (e) {
    // A value nested deeper than the stack allows runs the validator (or its error message) out of stack: this record's error, located.
    if (e instanceof RangeError) {
      const deepest = deepestNesting(value);
      throw new VoxError("LIMIT_EXCEEDED", `nested ${deepest.depth} levels deep, too deep to read (${e.message})`, { file, field: deepest.field });
    }
    throw e;
  }
  return { testCase, warnings };
}

/** Segments of a field path shown before it is cut. */
const SHOWN_SEGMENTS = 4;

/** The deepest array/object nesting of a JSON value and where it starts (`turns[0].metadata.a…`); iterative, so any depth is safe. */
export function deepestNesting(value: unknown): { depth: number; field: string } {
  const nodes: Array<{ value: unknown; parent: number; key: string | number | null; depth: number }> = [{ value, parent: -1, key: null, depth: 0 }];
  let best = 0;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (n.depth > nodes[best].depth) best = i;
    if (n.value !== null && typeof n.value === "object") {
      const entries: Array<[string | number, unknown]> = Array.isArray(n.value) ? n.value.map((v, k) => [k, v]) : Object.entries(n.value);
      for (const [k, v] of entries) if (v !== null && typeof v === "object") nodes.push({ value: v, parent: i, key: k, depth: n.depth + 1 });
    }
  }
  const keys: Array<string | number> = [];
  for (let i = best; nodes[i].parent >= 0; i = nodes[i].parent) keys.push(nodes[i].key!);
  keys.reverse();
  const shown = keys.slice(0, SHOWN_SEGMENTS).map((k, j) => (typeof k === "number" ? `[${k}]` : j === 0 ? k : `.${k}`)).join("");
  return { depth: nodes[best].depth + 1, field: keys.length > SHOWN_SEGMENTS ? `${shown}…` : shown || "(root)" };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Options of loadDeepevalJsonFile / parseDeepevalJsonText. */
export interface DeepevalJsonOptions {
  compat?: CompatMode;
  /** Name of the file in messages (defaults to the path). */
  displayPath?: string;
}

/** Where a url points on disk: `file://` URLs percent-decoded, relative paths against `baseDir`; null for http(s). */
function localPathOf(url: string, baseDir: string): string | null {
  if (url.startsWith("http://") || url.startsWith("https://")) return null;
  if (url.startsWith("file://")) {
    const rest = safeDecode(url.slice("file://".length));
    return rest.startsWith("/") ? rest : `//${rest}`;
  }
  return isAbsolute(url) ? url : resolve(baseDir, url);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// `new Audio({ url: "./clip.wav" })` in library code resolves local files as deepeval's Audio does
// (relative to the working directory, or the given baseDir); the file is opened there (its errors
// come at construction, as deepeval's) and its bytes read whenever they are asked for.
setDefaultLocalAudioResolver((url, baseDir) => {
  const p = localPathOf(url, baseDir ?? process.cwd());
  if (!p || !isFile(p)) return null;
  closeSync(openSync(p, "r"));
  return { path: p, read: () => new Uint8Array(readFileSync(p)) };
});

/**
 * A resolver for `Audio` urls that finds existing local files relative to `baseDir` (checked and
 * opened here, read only when their bytes are asked for); with `confine`, a url whose file
 * (symlinks followed) lies outside that folder is refused before it is opened.
 */
function localAudioResolver(baseDir: string, confine: string | null = null): (url: string) => ResolvedLocalFile | null {
  const root = confine === null ? null : realPathOr(confine);
  return (url) => {
    // An http(s) url that does not parse is an error of the url field (deepeval's Audio fails on it too).
    const problem = remoteUrlProblem(url);
    if (problem) throw new AudioValidationError("url", problem);
    const p = localPathOf(url, baseDir);
    if (root !== null && p) {
      const real = realPathOr(p);
      if (!isInside(real, root)) throw new VoxError("PATH_REFUSED", `audio url "${url}" resolves to ${real}, outside ${confine} (--confine-paths); refused`);
    }
    if (!p || !isFile(p)) return null;
    return localFileReader(p);
  };
}

/** Parse test-case JSON text that came from `path` (urls resolve against its folder; a .jsonl path is read line by line, as discovery reads it). */
export function parseDeepevalJsonText(text: string, path: string, options: DeepevalJsonOptions = {}): ParsedTestCase[] {
  const baseDir = dirname(resolve(path));
  return parseTestCaseText(text, {
    jsonl: extensionOf(path) === "jsonl",
    compat: options.compat,
    file: options.displayPath ?? path,
    resolveLocal: localAudioResolver(baseDir),
    describeUrl: (url) => localPathOf(url, baseDir) ?? url,
  });
}

/** Read and parse a deepeval JSON/JSONL file; unreadable files throw a VoxError naming the file. */
export function loadDeepevalJsonFile(path: string, options: DeepevalJsonOptions = {}): ParsedTestCase[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new VoxError("IO_ERROR", `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      file: options.displayPath ?? path,
    });
  }
  return parseDeepevalJsonText(text, path, options);
}
