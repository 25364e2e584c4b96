// The ingest API: discoverCalls() finds calls cheaply in the main thread, loadCall() reads one into a test case in a worker.
import { statSync } from "node:fs";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { testCaseFromJson } from "../model/codec.js";
import { VoxError, type ErrorCode } from "../model/errors.js";
import { localAudioResolver, localPathOf } from "./deepeval-json.js";
import { loadSimConversation } from "./deepeval-sim.js";
import { loadDualChannel } from "./dual-channel.js";
import { displayPathOf, readRanges, toPosix } from "./files.js";
import { detectEntry, walkFolder, type FoundEntry } from "./folder.js";
import { parseRecord } from "./json-records.js";
import type { CallRef, Discovery, IngestOptions, LoadedCall } from "./types.js";
import { conversationIdOf, loadVoiceLiveDatasetConversation, type LineRecord } from "./voicelive-dataset.js";
import { loadVoiceLiveOutputConversation, outputConversationIdOf } from "./voicelive-output.js";

export * from "./types.js";
export { scanJsonRecords } from "./json-records.js";
export { locateClipsInMix, loadSimConversation } from "./deepeval-sim.js";
export { buildPartyTurns, loadDualChannel } from "./dual-channel.js";
export { resolveDatasetPath } from "./voicelive-dataset.js";
export { CAPTURE_MANIFEST_FILE, CAPTURE_MANIFEST_FORMAT, captureTestCases, type CaptureManifest, type CaptureManifestCall } from "./capture-manifest.js";

/** The deepest folder that contains every path. */
function commonAncestor(paths: string[]): string {
  let common = paths[0].split(sep);
  for (const p of paths.slice(1)) {
    const parts = p.split(sep);
    let i = 0;
    while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common.join(sep) || sep;
}

function kindOf(path: string): "dir" | "file" | "missing" {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/**
 * Find every call under the inputs (files or folders, recursed). Ids are paths relative to the
 * common folder of the inputs, plus `#<record>` for JSON containers and `#<conversation>` for
 * Voice Live files, so they stay the same across runs whatever the working directory.
 */
export function discoverCalls(inputs: string[], options: IngestOptions = {}): Discovery {
  const abs = inputs.map((p) => resolve(p));
  const root = commonAncestor(abs.map((p) => (kindOf(p) === "dir" ? p : dirname(p))));
  const exclude = new Set((options.exclude ?? []).map((p) => resolve(p)));
  const calls: CallRef[] = [];
  const warnings: string[] = [];
  const seenPaths = new Set<string>();
  let monoClips = 0;

  const idOf = (path: string) => toPosix(relative(root, path)) || basename(path);
  const errorRef = (path: string, id: string, code: ErrorCode, message: string): CallRef => ({
    id,
    format: "deepeval-json",
    path,
    displayPath: displayPathOf(path),
    error: { code, message },
  });

  const visit = (entry: FoundEntry) => {
    if (seenPaths.has(entry.path)) return;
    seenPaths.add(entry.path);
    const id = idOf(entry.path);
    const displayPath = displayPathOf(entry.path);
    if (entry.kind === "sim-folder") {
      calls.push({ id, format: "deepeval-sim-folder", path: entry.path, displayPath });
      return;
    }
    const { detection, explicit } = entry;
    if (detection.corrupt) {
      calls.push(errorRef(entry.path, id, "UNSUPPORTED_INPUT", `${displayPath}: ${detection.reason}`));
      return;
    }
    switch (detection.format) {
      case null:
        if (explicit && detection.undetermined) calls.push({ id, format: "dual-channel", path: entry.path, displayPath });
        else if (explicit) calls.push(errorRef(entry.path, id, "UNSUPPORTED_INPUT", `${displayPath}: ${detection.reason}`));
        else warnings.push(`${displayPath}: skipped (${detection.reason})`);
        return;
      case "wav":
        if (explicit) calls.push(errorRef(entry.path, id, "UNSUPPORTED_INPUT", `${displayPath}: ${detection.reason}`));
        else monoClips++;
        return;
      case "dual-channel":
      case "deepeval-sim-folder":
        calls.push({ id, format: detection.format, path: entry.path, displayPath });
        return;
      case "deepeval-json":
      case "deepeval-jsonl": {
        const { ranges, lines } = detection.records!;
        ranges.forEach((range, index) => {
          calls.push({
            id: `${id}#${index}`,
            format: detection.format!,
            path: entry.path,
            displayPath,
            index,
            ranges: [range],
            ...(lines ? { lines: [lines[index]] } : {}),
          });
        });
        return;
      }
      case "voicelive-dataset":
      case "voicelive-output": {
        const groups = new Map<string, CallRef>();
        const { ranges, lines } = detection.records!;
        const decoder = new TextDecoder();
        ranges.forEach((range, i) => {
          const line = lines ? lines[i] : i + 1;
          let value: unknown;
          try {
            value = parseRecord(decoder.decode(detection.bytes!.subarray(range[0], range[1])));
          } catch (e) {
            calls.push(errorRef(entry.path, `${id}#line-${line}`, "INVALID_JSON", `${displayPath}: line ${line}: JSON syntax error: ${(e as Error).message}`));
            return;
          }
          const record = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
          const conversationId = detection.format === "voicelive-output" ? outputConversationIdOf(record) : conversationIdOf(record);
          let ref = groups.get(conversationId);
          if (!ref) {
            ref = { id: `${id}#${conversationId}`, format: detection.format!, path: entry.path, displayPath, conversationId, ranges: [], lines: [] };
            groups.set(conversationId, ref);
            calls.push(ref);
          }
          ref.ranges!.push(range);
          ref.lines!.push(line);
        });
        return;
      }
    }
  };

  abs.forEach((path) => {
    if (exclude.has(path)) return;
    const kind = kindOf(path);
    if (kind === "missing") {
      calls.push(errorRef(path, idOf(path), "IO_ERROR", `${displayPathOf(path)}: no such file or folder`));
    } else if (kind === "dir") {
      walkFolder(path, options.inputFormat, exclude, visit);
    } else {
      const entry = detectEntry(path, true, options.inputFormat);
      if (entry) visit(entry);
    }
  });
  if (monoClips > 0) warnings.push(`${monoClips} mono audio clip(s) inside folders skipped (not call recordings)`);
  return { calls, warnings };
}

/** Read the records of a call (JSON formats) with their line numbers. */
function readLineRecords(ref: CallRef): LineRecord[] {
  const texts = readRanges(ref.path, ref.ranges ?? []);
  return texts.map((text, i) => {
    const line = ref.lines?.[i] ?? i + 1;
    try {
      return { value: parseRecord(text), line };
    } catch (e) {
      throw new VoxError("INVALID_JSON", `JSON syntax error on line ${line}: ${(e as Error).message}`, { file: ref.displayPath });
    }
  });
}

function loadDeepevalRecord(ref: CallRef, options: IngestOptions): LoadedCall {
  const [text] = readRanges(ref.path, ref.ranges ?? []);
  const file = ref.lines ? `${ref.displayPath} line ${ref.lines[0]}` : ref.index ? `${ref.displayPath} record ${ref.index}` : ref.displayPath;
  let value: unknown;
  try {
    value = parseRecord(text ?? "");
  } catch (e) {
    throw new VoxError("INVALID_JSON", `JSON syntax error: ${(e as Error).message}`, { file });
  }
  const baseDir = dirname(ref.path);
  const warnings: string[] = [];
  const resolveLocal = localAudioResolver(baseDir);
  const describeUrl = (url: string) => localPathOf(url, baseDir) ?? url;
  const testCase = testCaseFromJson(value, { compat: options.compat, file, resolveLocal, describeUrl }, warnings);
  return { testCase, warnings };
}

/** Read one call into a test case (runs in the worker). Throws a VoxError naming the file and field. */
export function loadCall(ref: CallRef, options: IngestOptions = {}): LoadedCall {
  if (ref.error) throw new VoxError(ref.error.code, ref.error.message);
  switch (ref.format) {
    case "deepeval-json":
    case "deepeval-jsonl":
      return loadDeepevalRecord(ref, options);
    case "deepeval-sim-folder":
      return loadSimConversation(ref.path, options);
    case "voicelive-dataset":
      return loadVoiceLiveDatasetConversation(ref.path, ref.conversationId ?? "default", readLineRecords(ref));
    case "voicelive-output":
      return loadVoiceLiveOutputConversation(ref.path, ref.conversationId ?? "default", readLineRecords(ref));
    case "dual-channel":
      return loadDualChannel(ref.path, options);
    case "wav":
      throw new VoxError("UNSUPPORTED_INPUT", "a mono clip is not a call recording (score reads dual-channel recordings; use `analyze` for clips)", {
        file: ref.displayPath,
      });
  }
}
