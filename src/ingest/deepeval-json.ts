// Reads deepeval ConversationalTestCase JSON / JSON arrays / JSONL files, resolving relative audio urls against the file.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { ResolvedLocalFile } from "../model/audio.js";
import { parseTestCaseText, type CompatMode, type ParsedTestCase } from "../model/codec.js";
import { VoxError } from "../model/errors.js";
import { isFile, readFileBytes } from "./files.js";

export interface DeepevalJsonOptions {
  compat?: CompatMode;
  /** Name of the file in messages (defaults to the path). */
  displayPath?: string;
}

/** Where a url points on disk: `file://` URLs percent-decoded, relative paths against `baseDir`; null for http(s). */
export function localPathOf(url: string, baseDir: string): string | null {
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

/** A resolver for `Audio` urls that reads existing local files relative to `baseDir`. */
export function localAudioResolver(baseDir: string): (url: string) => ResolvedLocalFile | null {
  return (url) => {
    const p = localPathOf(url, baseDir);
    if (!p || !isFile(p)) return null;
    const b = readFileBytes(p);
    return { path: p, bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength) };
  };
}

/** Parse test-case JSON text that came from `path` (urls resolve against its folder). */
export function parseDeepevalJsonText(text: string, path: string, options: DeepevalJsonOptions = {}): ParsedTestCase[] {
  const baseDir = dirname(resolve(path));
  return parseTestCaseText(text, {
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
