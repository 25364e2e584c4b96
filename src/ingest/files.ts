// File-system helpers of the ingest layer: path display and containment, whole-file and byte-range reads, atomic writes (shared with report and the capture writer).
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { takeCallBytes } from "../audio/call-buffer.js";
import { VoxError } from "../model/errors.js";
import type { ByteRange } from "../model/json-records.js";
import { regularFileProblem } from "./file-kind.js";

/** File extensions read as audio. */
export const AUDIO_EXTENSIONS = new Set(["wav", "wave", "mp3", "opus", "ogg", "oga", "flac", "aac", "m4a", "mp4", "webm", "pcm", "aiff", "aif", "caf", "wma"]);

/** Lower-case extension without the dot ("" when none). */
export function extensionOf(path: string): string {
  const m = /\.([A-Za-z0-9]+)$/.exec(path);
  return m ? m[1].toLowerCase() : "";
}

/** Forward-slash form of a relative path (ids and reports look the same on every OS). */
export function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

/** The path as shown in results: relative to the working directory when inside it, else absolute. */
export function displayPathOf(absPath: string): string {
  const rel = relative(process.cwd(), absPath);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? toPosix(rel) : toPosix(absPath) || ".";
}

/** True when `child` equals `parent` or lies inside it (lexical comparison of absolute paths). */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  // `..` or `../…` leaves the parent; a name that merely starts with two dots (`..a`) does not.
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Real path when it can be resolved, else the lexical absolute path. */
export function realPathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** True when the path names an existing regular file. */
export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Read byte ranges of a file without reading the rest (records of big JSONL files). */
export function readRanges(path: string, ranges: ByteRange[]): string[] {
  const fd = openSync(path, "r");
  try {
    return ranges.map(([start, end]) => {
      const buf = Buffer.allocUnsafe(end - start);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, start + got);
        if (n === 0) break;
        got += n;
      }
      return buf.toString("utf8", 0, got);
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * A whole file's bytes, as readFileSync gives them (the size fstat reports, or less if the file
 * shrank); inside `withCallBuffer` (src/audio/call-buffer.ts), read into the thread's reused call
 * buffer, 16-byte aligned so that 16-bit samples can be viewed in place.
 */
export function readFileBytes(path: string): Uint8Array {
  // Never open a FIFO, device or socket: opening or reading one can block forever.
  const special = regularFileProblem(path);
  if (special?.code === "UNSUPPORTED_INPUT") throw new VoxError("UNSUPPORTED_INPUT", special.why, { file: displayPathOf(path) });
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    const bytes = stat.isFile() && stat.size > 0 ? takeCallBytes(stat.size) : null;
    if (!bytes) return readFileSync(fd);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/**
 * A local audio file checked as readFileBytes checks it (special files refused, opened once so that
 * the same open errors come at the same moment) but not read: `read()` reads its bytes whenever they
 * are asked for, and nothing holds them. A long recording named by a url is then read from disk in
 * bounded chunks by analysis (through `path`), never whole.
 */
export function localFileReader(path: string): { path: string; read: () => Uint8Array } {
  const special = regularFileProblem(path);
  if (special?.code === "UNSUPPORTED_INPUT") throw new VoxError("UNSUPPORTED_INPUT", special.why, { file: displayPathOf(path) });
  closeSync(openSync(path, "r"));
  return { path, read: () => readFileBytes(path) };
}

/** Reused by readHead: discovery sniffs every audio file of an archive, and a fresh 64 KB buffer each time is only garbage. */
let headBuffer = Buffer.alloc(0);

/** Read the first `bytes` bytes of a file into a buffer the next call reuses (copy what must outlive it). */
export function readHead(path: string, bytes: number): Uint8Array {
  if (headBuffer.length < bytes) headBuffer = Buffer.alloc(bytes);
  const fd = openSync(path, "r");
  try {
    const n = readSync(fd, headBuffer, 0, bytes, 0);
    return headBuffer.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Write `text` to `path` atomically (a temporary file in the same folder, then rename), so readers never see half a file. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}
