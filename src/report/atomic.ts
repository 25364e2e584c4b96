// Atomic file replacement: write beside the target, then rename over it, so readers never see half a file.
import { renameSync, writeFileSync } from "node:fs";

/** Write `text` to `path` atomically (a temporary file in the same folder, then rename). */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}
