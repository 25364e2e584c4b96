// Appends records to a results JSONL from any thread: one O_APPEND write per batch, so concurrent writers never interleave within a line.
import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Append whole lines (each without its line break) to `path` in a single write. Writes to a regular
 * file opened with O_APPEND land whole at the end even when several workers append at once; the
 * loop only finishes a short write (a full disk, say), which then surfaces as the error it is.
 */
export function appendLines(path: string, lines: string[]): void {
  if (lines.length === 0) return;
  // Encoded line by line into a buffer this thread reuses: no joined copy of the text, and no fresh
  // memory to fault in for every batch.
  let bound = 0;
  for (const line of lines) bound += line.length * 3 + 1;
  if (encoded.length < bound) encoded = Buffer.allocUnsafeSlow(Math.max(bound, 2 * encoded.length));
  let length = 0;
  for (const line of lines) {
    length += encoded.write(line, length, "utf8");
    encoded[length++] = 0x0a;
  }
  const fd = openSync(path, "a");
  try {
    for (let done = 0; done < length; ) done += writeSync(fd, encoded, done, length - done);
  } finally {
    closeSync(fd);
  }
}

/** The encoding buffer of appendLines (3 bytes per UTF-16 unit bound every line). */
let encoded = Buffer.alloc(0);
