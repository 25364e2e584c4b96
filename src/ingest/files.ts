// File-system helpers of the ingest layer: path display and containment, byte-range reads, audio header sniffing.
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { takeCallBytes } from "../audio/call-buffer.js";
import type { ByteRange } from "./types.js";

/** File extensions read as audio. */
export const AUDIO_EXTENSIONS = new Set(["wav", "wave", "mp3", "opus", "ogg", "oga", "flac", "aac", "m4a", "mp4", "webm", "pcm", "aiff", "aif", "caf", "wma"]);

const MIME_BY_EXTENSION: Record<string, string> = {
  wav: "audio/wav",
  wave: "audio/wav",
  mp3: "audio/mpeg",
  opus: "audio/opus",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  m4a: "audio/mp4",
  mp4: "audio/mp4",
  webm: "audio/webm",
  pcm: "audio/pcm",
};

/** Lower-case extension without the dot ("" when none). */
export function extensionOf(path: string): string {
  const m = /\.([A-Za-z0-9]+)$/.exec(path);
  return m ? m[1].toLowerCase() : "";
}

/** MIME type for an audio file extension (formats.md F2.5), `audio/wav` when unknown. */
export function mimeForExtension(ext: string): string {
  return MIME_BY_EXTENSION[ext.toLowerCase()] ?? "audio/wav";
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
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
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

/** Container and channel count of an audio file, read from its first bytes; channels null when unknown. */
export interface AudioSniff {
  container: "wav" | "flac" | "ogg" | "mp3" | "other";
  channels: number | null;
}

const ascii = (b: Uint8Array, start: number, length: number) => String.fromCharCode(...b.subarray(start, start + length));

/** Sniff an audio file's header (WAV, FLAC, Ogg Opus/Vorbis and MP3 carry the channel count up front). */
export function sniffAudio(path: string): AudioSniff {
  const b = readHead(path, 65536);
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WAVE") return { container: "wav", channels: wavChannels(b) };
  if (ascii(b, 0, 4) === "fLaC") return { container: "flac", channels: b.length > 20 ? ((b[20] >> 1) & 7) + 1 : null };
  if (ascii(b, 0, 4) === "OggS") return { container: "ogg", channels: oggChannels(b) };
  if (ascii(b, 0, 3) === "ID3" || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return { container: "mp3", channels: mp3Channels(b) };
  return { container: "other", channels: null };
}

function wavChannels(b: Uint8Array): number | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let o = 12;
  while (o + 8 <= b.length) {
    const id = ascii(b, o, 4);
    const size = v.getUint32(o + 4, true);
    if (id === "fmt " && o + 12 <= b.length) return v.getUint16(o + 10, true);
    o += 8 + size + (size & 1);
  }
  return null;
}

function oggChannels(b: Uint8Array): number | null {
  const text = ascii(b, 0, Math.min(b.length, 512));
  const opus = text.indexOf("OpusHead");
  if (opus >= 0 && opus + 9 < b.length) return b[opus + 9];
  const vorbis = text.indexOf("\x01vorbis");
  if (vorbis >= 0 && vorbis + 11 < b.length) return b[vorbis + 11];
  return null;
}

function mp3Channels(b: Uint8Array): number | null {
  let o = 0;
  if (ascii(b, 0, 3) === "ID3" && b.length >= 10) o = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]);
  for (; o + 3 < b.length; o++) {
    if (b[o] === 0xff && (b[o + 1] & 0xe0) === 0xe0) return ((b[o + 3] >> 6) & 3) === 3 ? 1 : 2;
  }
  return null;
}
