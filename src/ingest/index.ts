// The ingest API: discoverCalls() finds calls cheaply in the main thread, loadCall() reads one into a test case in a worker, each through its format's module.
import { VoxError } from "../model/errors.js";
import { parseRecord } from "../model/json-records.js";
import { readRanges } from "./files.js";
import { FORMATS } from "./formats/index.js";
import { resolveIngestOptions, type CallRef, type IngestOptions, type InputFormatModule, type LoadedCall } from "./types.js";

export { discoverCalls } from "./discover.js";
export * from "./types.js";
export { REPLAY_MANIFEST_FILE, REPLAY_MANIFEST_FORMAT, replayOutputFiles } from "./replay-manifest.js";
export { CAPTURE_MANIFEST_FILE, CAPTURE_MANIFEST_FORMAT, captureTestCases, type CaptureManifest, type CaptureManifestCall } from "./capture-manifest.js";

/** Read one call into a test case (runs in the worker). Throws a VoxError naming the file and field. */
export function loadCall(ref: CallRef, options: IngestOptions = {}): LoadedCall {
  if (ref.error) throw new VoxError(ref.error.code, ref.error.message);
  const module: InputFormatModule = FORMATS[ref.format];
  return module.load(ref, resolveIngestOptions(options));
}

/**
 * A call's name without reading its audio (deepeval records: their `name` field); other formats are
 * loaded. Null when the call has no name or cannot be read.
 */
export function callNameOf(ref: CallRef, options: IngestOptions = {}): string | null {
  if (ref.error) return null;
  try {
    if (ref.format === "deepeval-json" || ref.format === "deepeval-jsonl") {
      const value = parseRecord(readRanges(ref.path, [ref.range])[0] ?? "") as { name?: unknown } | null;
      return value && typeof value === "object" && typeof value.name === "string" ? value.name : null;
    }
    const loaded = loadCall(ref, options);
    loaded.dispose?.();
    return loaded.testCase.name ?? null;
  } catch {
    return null;
  }
}
