// Appends records to a results JSONL from any thread: one O_APPEND write per batch, so concurrent writers never interleave within a line.
import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Append whole lines (each without its line break) to `path` in a single write. Writes to a regular
 * file opened with O_APPEND land whole at the end even when several workers append at once; the
 * loop only finishes a short write (a full disk, say), which then surfaces as the error it is.
 */
export function appendLines(path: string, lines: string[]): void {
  if (lines.length === 0) return;
  const bytes = Buffer.from(lines.join("\n") + "\n", "utf8");
  const fd = openSync(path, "a");
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}
