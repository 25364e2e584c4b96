// The manifest of a `voxmetrics replay` output folder: marks the folder as a replay whose calls are the per-turn JSONL files it lists (timing sidecars, summaries and WAVs beside them are not calls).
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** File name of the manifest (and run metadata) at the top of a replay output folder. */
export const REPLAY_MANIFEST_FILE = "voxmetrics-replay.json";
export const REPLAY_MANIFEST_FORMAT = "voxmetrics-replay";

/** The per-turn output files a replay folder's manifest lists (absolute), or null when `names` holds no readable manifest. */
export function replayOutputFiles(dir: string, names: readonly string[]): string[] | null {
  if (!names.includes(REPLAY_MANIFEST_FILE)) return null;
  let m: { format?: unknown; datasets?: unknown };
  try {
    m = JSON.parse(readFileSync(join(dir, REPLAY_MANIFEST_FILE), "utf8")) as typeof m;
  } catch {
    return null;
  }
  if (m.format !== REPLAY_MANIFEST_FORMAT || !Array.isArray(m.datasets)) return null;
  return m.datasets
    .map((d) => (d && typeof d === "object" ? (d as Record<string, unknown>).output : null))
    .filter((p): p is string => typeof p === "string" && !p.split(/[\\/]/).includes(".."))
    .map((p) => join(dir, p));
}
