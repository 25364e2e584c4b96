// Discovery (formats.md F0.2): walks the inputs, reads each entry just far enough to tell its format (folder listing, first JSON record, audio header) and asks that format's module for its calls.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { sniffAudio } from "../audio/sniff.js";
import type { ErrorCode } from "../model/errors.js";
import { describeJsonSyntaxError, parseRecord, scanJsonRecords } from "../model/json-records.js";
import { captureTestCases } from "./capture-manifest.js";
import { replayOutputFiles } from "./replay-manifest.js";
import { pathKind } from "./file-kind.js";
import { AUDIO_EXTENSIONS, displayPathOf as displayPathOfFile, extensionOf, readHead, toPosix } from "./files.js";
import { DETECTION_ORDER, FORMATS } from "./formats/index.js";
import { resolveIngestOptions, STDIN_DISPLAY, STDIN_INPUT, type Candidate, type CallRef, type Discovery, type FirstRecord, type IngestOptions, type InputFormat } from "./types.js";

/**
 * Records of a JSON container (an array, or a single value) examined for a readable first one when
 * the first ones do not parse. JSONL files are read record by record: the first record any format
 * recognises decides the file's format however many bad lines come before it (each of those is then
 * its own error record).
 */
const DETECTION_RECORDS = 20;
/** Header bytes read to sniff an audio file. */
const SNIFF_BYTES = 65536;
/** Folder names never entered. */
const SKIPPED_FOLDERS = new Set(["node_modules"]);

/** What kind of entry a forced `--input-format` applies to. */
const KIND_OF_FORMAT: Readonly<Record<InputFormat, Candidate["kind"]>> = {
  "deepeval-json": "json",
  "deepeval-jsonl": "json",
  "voicelive-dataset": "json",
  "voicelive-output": "json",
  "deepeval-sim-folder": "folder",
  "dual-channel": "audio",
  wav: "audio",
};

const NO_KNOWN_RECORD = "no deepeval test case (turns), Voice Live dataset or Voice Live output record";

/** The errno code of a failed read ("EACCES"…), for messages. */
function errnoOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

function jsonCandidate(path: string): Candidate {
  const bytes = readFileSync(path);
  const records = scanJsonRecords(bytes, extensionOf(path) === "jsonl");
  const decoder = new TextDecoder();
  const lines = records.container === "lines";
  let firstError = "";
  let firstReadable: Candidate | null = null;
  for (const [start, end] of lines ? records.ranges : records.ranges.slice(0, DETECTION_RECORDS)) {
    let first: FirstRecord;
    try {
      first = { value: parseRecord(decoder.decode(bytes.subarray(start, end))) };
    } catch {
      firstError ||= describeJsonSyntaxError(bytes, start, end);
      continue;
    }
    const candidate: Candidate = { kind: "json", path, bytes, records, first };
    if (!lines || detectFormat(candidate)) return candidate;
    firstReadable ??= candidate;
  }
  return firstReadable ?? { kind: "json", path, bytes, records, first: { error: firstError } };
}

function audioCandidate(path: string): Candidate {
  return { kind: "audio", path, sniff: sniffAudio(readHead(path, SNIFF_BYTES)) };
}

/**
 * Find every call under the inputs (files or folders, recursed). A call's id is
 * `<file or folder name>[#<record index | conversation id>]@<content digest>` (see withContentKey):
 * the same whichever folder, parent folder or files were passed and whatever the working
 * directory, so `--resume` never scores a call twice across such runs.
 */
export function discoverCalls(inputs: string[], options: IngestOptions = {}): Discovery {
  const { exclude: excluded, inputFormat: forced, stdinPath } = resolveIngestOptions(options);
  const fromStdin = inputs.includes(STDIN_INPUT);
  const abs = inputs.filter((p) => p !== STDIN_INPUT).map((p) => resolve(p));
  const exclude = new Set(excluded.map((p) => resolve(p)));
  const calls: CallRef[] = [];
  const warnings: string[] = [];
  const skipped: string[] = [];
  const seenPaths = new Set<string>();

  const stdinFile = fromStdin && stdinPath ? resolve(stdinPath) : null;
  // Ids never depend on how the run was invoked (the roots given, the working directory): a call's
  // id is its file or folder name, its record or conversation, and a digest of its content (idOf + withContentKey).
  const idOf = (path: string) => (path === stdinFile ? "stdin" : basename(path) || toPosix(path));
  const displayPathOf = (path: string) => (path === stdinFile ? STDIN_DISPLAY : displayPathOfFile(path));
  const unreadable = (path: string, format: InputFormat | null, code: ErrorCode, why: string): CallRef => {
    const displayPath = displayPathOf(path);
    // Only a regular file is digested: opening a FIFO blocks, and a device never ends.
    const key = pathKind(path).kind === "file" ? fileDigest(path) : null;
    return { id: key ? `${idOf(path)}@${key}` : idOf(path), format, path, displayPath, error: { code, message: `${displayPath}: ${why}` } };
  };

  /** The candidate's format: the forced one where it applies to files of its kind, else the first detection in F0.2's order. */
  const formatOf = (c: Candidate): InputFormat | null => {
    // A folder is a conversation only when it holds turn files; forcing another format walks into it.
    if (c.kind === "folder") return !forced || forced === "deepeval-sim-folder" ? detectFormat(c) : null;
    return forced && KIND_OF_FORMAT[forced] === c.kind ? forced : detectFormat(c);
  };

  /** A file no format claims: an error record when it cannot be read or was named, else a warning (or nothing). */
  const unclaimed = (c: Candidate, explicit: boolean) => {
    const skip = (why: string) => (explicit ? calls.push(unreadable(c.path, null, "UNSUPPORTED_INPUT", why)) : warnings.push(`${displayPathOf(c.path)}: skipped (${why})`));
    if (c.kind === "json") {
      if (c.records.ranges.length === 0) calls.push(unreadable(c.path, null, "UNSUPPORTED_INPUT", "the file holds no JSON record"));
      else if (c.first.value === undefined && "error" in c.first) calls.push(unreadable(c.path, null, "INVALID_JSON", c.first.error));
      else skip(NO_KNOWN_RECORD);
    } else if (c.kind === "audio") {
      const { container } = c.sniff;
      if (container === "wav") calls.push(unreadable(c.path, null, "UNSUPPORTED_INPUT", "unreadable WAV header (no fmt chunk)"));
      // A file named directly is read as a recording: decoding tells its channels.
      else if (explicit) take(c, "dual-channel", true);
      else skip(`the channel count of this ${container === "other" ? "audio" : container} file is only known after decoding (name it directly or use --input-format dual-channel)`);
    }
  };

  const take = (c: Candidate, format: InputFormat, explicit: boolean) => {
    if (c.path === stdinFile && format !== "deepeval-json" && format !== "deepeval-jsonl") {
      calls.push(unreadable(c.path, format, "UNSUPPORTED_INPUT", `standard input holds ${format}; only deepeval test cases (JSON or JSONL) are read from stdin (save other formats to a file)`));
      return;
    }
    const baseDir = c.path === stdinFile ? process.cwd() : undefined;
    const found = FORMATS[format].discover(c, { format, id: idOf(c.path), displayPath: displayPathOf(c.path), explicit, ...(baseDir ? { baseDir } : {}) });
    calls.push(...found.map((ref) => withContentKey(c, ref)));
    if (format === "wav" && !explicit) skipped.push(`${displayPathOf(c.path)}: skipped (a mono clip, not a call recording)`);
  };

  const visit = (c: Candidate, explicit: boolean) => {
    if (seenPaths.has(c.path)) return;
    seenPaths.add(c.path);
    const format = formatOf(c);
    if (format) take(c, format, explicit);
    else unclaimed(c, explicit);
  };

  /** A file's candidate: by the forced format for a file the user named, else by its name; null for other files inside folders. */
  const visitFile = (path: string, explicit: boolean) => {
    if (forced && explicit) {
      const refused = forcedMismatch(path, forced);
      if (refused !== null) {
        if (!seenPaths.has(path)) calls.push(unreadable(path, null, "UNSUPPORTED_INPUT", refused));
        seenPaths.add(path);
        return;
      }
    }
    const kind = forced && explicit && KIND_OF_FORMAT[forced] !== "folder" ? KIND_OF_FORMAT[forced] : kindOfName(basename(path));
    if (kind === "json" || kind === "audio") {
      let candidate: Candidate;
      try {
        candidate = kind === "json" ? jsonCandidate(path) : audioCandidate(path);
      } catch (e) {
        // A file that cannot be read (permissions, I/O) is one error record, named or found in a folder.
        if (seenPaths.has(path)) return;
        seenPaths.add(path);
        calls.push(unreadable(path, null, "IO_ERROR", `cannot read the file (${errnoOf(e)})`));
        return;
      }
      visit(candidate, explicit);
    } else if (explicit && !seenPaths.has(path)) {
      seenPaths.add(path);
      calls.push(unreadable(path, null, "UNSUPPORTED_INPUT", `unknown file type ".${extensionOf(path)}" (expected .json, .jsonl or an audio file)`));
    }
  };

  /**
   * Every call-bearing entry under `dir`, in a stable (sorted) order. A folder that directly holds
   * deepeval turn files is one conversation and is not entered further; a capture folder (with a
   * `voxmetrics-capture.json` manifest) holds only the test cases it lists; JSON files named like an
   * audio file beside them are that recording's sidecar and are not calls.
   */
  const walk = (dir: string) => {
    let listing;
    try {
      listing = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      calls.push(unreadable(dir, null, "IO_ERROR", `cannot list the folder (${errnoOf(e)})`));
      return;
    }
    const entries = listing
      .filter((e) => !e.name.startsWith("."))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const names = entries.map((e) => e.name);
    const folder: Candidate = { kind: "folder", path: dir, names };
    const format = formatOf(folder);
    if (format) {
      if (!seenPaths.has(dir)) take(folder, format, false);
      seenPaths.add(dir);
      return;
    }
    // A `voxmetrics call` output folder: its calls are the test cases its manifest lists (the
    // simulation folders and recordings beside them are views of the same calls). A `voxmetrics
    // replay` folder likewise: its calls are the per-turn JSONL files (not the timing sidecars).
    const captured = forced ? null : captureTestCases(dir, names) ?? replayOutputFiles(dir, names);
    if (captured) {
      for (const path of captured) if (!exclude.has(path) && pathKind(path).kind === "file") visitFile(path, false);
      return;
    }
    const audioStems = new Set(names.filter((n) => kindOfName(n) === "audio").map(stemOf));
    for (const e of entries) {
      const path = join(dir, e.name);
      if (exclude.has(path)) continue;
      if (e.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(e.name)) walk(path);
        continue;
      }
      if (!e.isFile()) {
        // FIFOs, devices and sockets are never opened (reading one can block forever); symlinks are not followed inside folders.
        if (!e.isSymbolicLink() && kindOfName(e.name)) warnings.push(`${displayPathOf(path)}: skipped (not a regular file)`);
        continue;
      }
      if (extensionOf(e.name) === "json" && audioStems.has(stemOf(e.name))) continue;
      visitFile(path, false);
    }
  };

  if (fromStdin) {
    if (stdinFile) visit(jsonCandidate(stdinFile), true);
    else calls.push({ id: "stdin", format: null, path: STDIN_INPUT, displayPath: STDIN_DISPLAY, error: { code: "IO_ERROR", message: `${STDIN_DISPLAY}: the input "-" needs standard input saved to a file (the stdinPath option)` } });
  }
  abs.forEach((path) => {
    if (exclude.has(path)) return;
    const k = pathKind(path);
    if (k.kind === "missing") calls.push(unreadable(path, null, "IO_ERROR", "no such file or folder"));
    else if (k.kind === "dir") walk(path);
    else if (k.kind === "file") visitFile(path, true);
    else if (k.kind === "special") calls.push(unreadable(path, null, "UNSUPPORTED_INPUT", `${k.what}, not a regular file; refused without opening it`));
    else calls.push(unreadable(path, null, "IO_ERROR", `cannot read it (${k.code})`));
  });
  return { calls, warnings, skipped };
}

const CONTAINER_NAMES = { wav: "a WAV", flac: "a FLAC", ogg: "an Ogg", mp3: "an MP3", mp4: "an MP4" } as const;

/**
 * Why a file named with a forced `--input-format` cannot be of that format, judged from its first
 * bytes (so binary input forced as JSON is one error, not a record per "line"); null when it may be.
 */
function forcedMismatch(path: string, forced: InputFormat): string | null {
  const kind = KIND_OF_FORMAT[forced];
  if (kind === "folder") return `--input-format ${forced} reads folders, and this is a file`;
  let head: Uint8Array;
  try {
    head = readHead(path, SNIFF_BYTES);
  } catch (e) {
    return `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  const { container } = sniffAudio(head);
  if (kind === "json") {
    if (container !== "other") return `--input-format ${forced} expects JSON text, but this is ${CONTAINER_NAMES[container]} audio file`;
    if (head.includes(0)) return `--input-format ${forced} expects JSON text, but the file is binary`;
    return null;
  }
  if (container === "other" && !head.includes(0) && /^\s*[[{]/.test(new TextDecoder().decode(head.subarray(0, 256)))) {
    return `--input-format ${forced} expects an audio file, but this is JSON text`;
  }
  return null;
}

/** Hex digits of the content digest in ids. */
const DIGEST_HEX = 10;

function digest(...parts: Array<Uint8Array | string>): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex").slice(0, DIGEST_HEX);
}

/** A file's digest for ids: its size and first 64 KiB (whole small files; audio never read whole here). */
function fileDigest(path: string): string | null {
  try {
    return digest(`${statSync(path).size}:`, readHead(path, SNIFF_BYTES));
  } catch {
    return null;
  }
}

/**
 * The call's id with `@<digest>` of what the call is made of: a JSON record's bytes, a Voice Live
 * conversation's records, a recording's size and first 64 KiB, a folder's file names and sizes.
 * The same call gets the same id whatever roots and working directory the run had.
 */
function withContentKey(c: Candidate, ref: CallRef): CallRef {
  let key: string | null;
  if (c.kind === "json") {
    if (!ref.error && (ref.format === "deepeval-json" || ref.format === "deepeval-jsonl")) key = digest(c.bytes.subarray(ref.range[0], ref.range[1]));
    else if (!ref.error && (ref.format === "voicelive-dataset" || ref.format === "voicelive-output")) key = digest(...ref.ranges.map(([a, b]) => c.bytes.subarray(a, b)));
    else key = digest(c.bytes);
  } else if (c.kind === "folder") {
    key = digest(c.names.map((n) => `${n}:${sizeOf(join(c.path, n))}`).join("\n"));
  } else {
    key = fileDigest(c.path);
  }
  return key ? { ...ref, id: `${ref.id}@${key}` } : ref;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

/** The first format of F0.2's order whose module recognises the candidate. */
function detectFormat(c: Candidate): InputFormat | null {
  for (const module of DETECTION_ORDER) {
    const format = module.detect(c);
    if (format) return format;
  }
  return null;
}

/** What a file's name says it is: JSON (.json, .jsonl), audio, or neither. */
function kindOfName(name: string): "json" | "audio" | null {
  const ext = extensionOf(name);
  if (ext === "json" || ext === "jsonl") return "json";
  return AUDIO_EXTENSIONS.has(ext) ? "audio" : null;
}

function stemOf(name: string): string {
  return name.replace(/\.[^.]+$/, "");
}
