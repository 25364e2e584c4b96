// Walks input folders recursively and dispatches each entry by kind (formats.md F0.2): sim folders, JSON files, recordings.
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { detectAudioFile, detectJsonFile, isAudioName, isJsonName, isSimConversationFolder, type FileDetection } from "./detect.js";
import { captureTestCases } from "./capture-manifest.js";
import { extensionOf, isFile } from "./files.js";
import type { InputFormat } from "./types.js";

/** One thing found under an input: a simulation conversation folder, or a file with its detection. */
export type FoundEntry =
  | { kind: "sim-folder"; path: string }
  | { kind: "file"; path: string; detection: FileDetection; explicit: boolean };

/** Formats a forced `--input-format` applies to, by entry kind. */
const JSON_FORMATS = new Set<InputFormat>(["deepeval-json", "deepeval-jsonl", "voicelive-dataset", "voicelive-output"]);
const AUDIO_FORMATS = new Set<InputFormat>(["dual-channel", "wav"]);

/** Folder names never entered. */
const SKIPPED_FOLDERS = new Set(["node_modules"]);

/** Detect one file; `explicit` files were named by the user (a forced format applies whatever their extension). */
export function detectEntry(path: string, explicit: boolean, forced?: InputFormat): FoundEntry | null {
  const name = basename(path);
  if (forced && explicit && forced !== "deepeval-sim-folder") {
    const detection = JSON_FORMATS.has(forced) ? detectJsonFile(path, forced) : detectAudioFile(path, forced);
    return { kind: "file", path, detection, explicit };
  }
  if (isJsonName(name)) {
    const useForced = forced && JSON_FORMATS.has(forced) ? forced : undefined;
    return { kind: "file", path, detection: detectJsonFile(path, useForced), explicit };
  }
  if (isAudioName(name)) {
    const useForced = forced && AUDIO_FORMATS.has(forced) ? forced : undefined;
    return { kind: "file", path, detection: detectAudioFile(path, useForced), explicit };
  }
  if (!explicit) return null;
  return { kind: "file", path, detection: { format: null, reason: `unknown file type ".${extensionOf(name)}" (expected .json, .jsonl or an audio file)` }, explicit };
}

/**
 * Every call-bearing entry under `dir`, in a stable (sorted) order. A folder that directly holds
 * deepeval turn files is one conversation and is not entered further; a capture folder (with a
 * `voxmetrics-capture.json` manifest) holds only the test cases it lists; JSON files named like an
 * audio file beside them are that recording's sidecar and are not calls.
 */
export function walkFolder(dir: string, forced: InputFormat | undefined, exclude: Set<string>, visit: (entry: FoundEntry) => void): void {
  const entries = readdirSync(dir, { withFileTypes: true })
    .filter((e) => !e.name.startsWith("."))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = entries.map((e) => e.name);
  if ((!forced || forced === "deepeval-sim-folder") && isSimConversationFolder(names)) {
    visit({ kind: "sim-folder", path: dir });
    return;
  }
  // A `voxmetrics call` output folder: its calls are the test cases its manifest lists.
  const captured = forced ? null : captureTestCases(dir, names);
  if (captured) {
    for (const path of captured) {
      const found = !exclude.has(path) && isFile(path) ? detectEntry(path, false) : null;
      if (found) visit(found);
    }
    return;
  }
  const audioStems = new Set(names.filter(isAudioName).map(stemOf));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (exclude.has(path)) continue;
    if (e.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(e.name)) walkFolder(path, forced, exclude, visit);
      continue;
    }
    if (!e.isFile()) continue;
    if (isJsonName(e.name) && extensionOf(e.name) === "json" && audioStems.has(stemOf(e.name))) continue;
    const found = detectEntry(path, false, forced);
    if (found) visit(found);
  }
}

function stemOf(name: string): string {
  return name.replace(/\.[^.]+$/, "");
}
