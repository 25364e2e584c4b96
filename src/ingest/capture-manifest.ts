// The manifest of a `voxmetrics call` output folder: marks the folder as a capture whose calls are its test-case JSON files.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** File name of the manifest at the top of a capture folder. */
export const CAPTURE_MANIFEST_FILE = "voxmetrics-capture.json";
export const CAPTURE_MANIFEST_FORMAT = "voxmetrics-capture";

/** One captured call: its test case and the views of it beside (simulation folder, stereo recording). */
export interface CaptureManifestCall {
  name: string;
  /** The deepeval test case, relative to the folder: the call as scoring reads it. */
  test_case: string;
  /** The §L11 simulation conversation folder holding the same turns (relative). */
  simulation: string;
  /** The stereo recording, caller left, agent right (relative). */
  recording: string;
}

export interface CaptureManifest {
  format: typeof CAPTURE_MANIFEST_FORMAT;
  version: 1;
  calls: CaptureManifestCall[];
}

/**
 * The test-case files a capture folder's manifest lists (absolute), or null when `names` holds no
 * readable manifest (the folder is then walked as any other). The simulation folders and the
 * recordings are views of the same calls, so discovery scores each call once, from its test case.
 */
export function captureTestCases(dir: string, names: readonly string[]): string[] | null {
  if (!names.includes(CAPTURE_MANIFEST_FILE)) return null;
  let m: Partial<CaptureManifest>;
  try {
    m = JSON.parse(readFileSync(join(dir, CAPTURE_MANIFEST_FILE), "utf8")) as Partial<CaptureManifest>;
  } catch {
    return null;
  }
  if (m.format !== CAPTURE_MANIFEST_FORMAT || !Array.isArray(m.calls)) return null;
  return m.calls.filter((c) => c && typeof c.test_case === "string" && !c.test_case.split(/[\\/]/).includes("..")).map((c) => join(dir, c.test_case));
}
