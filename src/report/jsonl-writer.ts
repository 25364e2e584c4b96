// Resumable results JSONL: one complete line per call, appended as calls finish (by whichever thread scored it); --resume reads back the ids already done.
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync } from "node:fs";
import { appendEncodedLines, appendRecordLines, isResultRecord, outputWriteError, releaseRecordLine, type ResultRecord } from "../scoring/record.js";

/** Bytes read at a time when scanning an existing results file. */
const SCAN_CHUNK = 1 << 20;

/**
 * Stream the complete records of an existing results file to `visit`. A trailing partial line (a
 * run killed mid-write) is not a record; its start offset is returned so the caller can cut it.
 */
function scanResults(path: string, visit: (record: ResultRecord) => void): { validEnd: number } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(SCAN_CHUNK);
    let carry = Buffer.alloc(0);
    let offset = 0;
    let lineStart = 0;
    while (offset < size) {
      const n = readSync(fd, buf, 0, SCAN_CHUNK, offset);
      if (n === 0) break;
      offset += n;
      let data = Buffer.concat([carry, buf.subarray(0, n)]);
      let nl: number;
      while ((nl = data.indexOf(0x0a)) >= 0) {
        const line = data.subarray(0, nl).toString("utf8").trim();
        lineStart += nl + 1;
        data = data.subarray(nl + 1);
        if (!line) continue;
        try {
          const value = JSON.parse(line);
          if (isResultRecord(value)) visit(value);
        } catch {
          continue;
        }
      }
      carry = Buffer.from(data);
    }
    return { validEnd: lineStart };
  } finally {
    closeSync(fd);
  }
}

/**
 * The results of a run: a file that every thread appends whole lines to (one O_APPEND write per
 * batch: workers append their own records, this thread the rest), or stdout.
 */
export class ResultWriter {
  private constructor(
    /** The results file, or null for stdout (written through the stream: a pipe's fd may be non-blocking). */
    readonly path: string | null,
  ) {}

  /**
   * Open the results file. With `resume`, existing complete records are streamed to `visitExisting`
   * (their ids are what the run skips) and a trailing partial line is cut; without it the file is
   * truncated. `path` null writes to stdout.
   */
  static open(path: string | null, resume: boolean, visitExisting: (record: ResultRecord) => void = () => {}): ResultWriter {
    if (path === null) return new ResultWriter(null);
    if (resume && existsSync(path)) {
      const { validEnd } = scanResults(path, visitExisting);
      const fd = openSync(path, "r+");
      ftruncateSync(fd, validEnd);
      closeSync(fd);
    } else {
      closeSync(openSync(path, "w"));
    }
    return new ResultWriter(path);
  }

  /**
   * Append one record given as its encoded line (UTF-8 with its line break, as encodeRecordLine or a
   * worker gives it): the bytes are written as they are, and a line of encodeRecordLine's is
   * released once written.
   */
  writeEncodedLine(line: Uint8Array): void {
    if (this.path === null) {
      // The stream may hold the bytes until the pipe takes them: released only then.
      process.stdout.write(line, () => releaseRecordLine(line));
      return;
    }
    try {
      appendEncodedLines(this.path, [line]);
    } catch (e) {
      throw outputWriteError(this.path, e, true);
    }
    releaseRecordLine(line);
  }

  /** Append one record given as its JSON text (no line break). */
  writeLine(json: string): void {
    this.writeLines([json]);
  }

  /** Append records given as JSON texts (no line breaks), in one write to a file. */
  writeLines(jsons: string[]): void {
    if (jsons.length === 0) return;
    if (this.path === null) process.stdout.write(jsons.join("\n") + "\n");
    else {
      try {
        appendRecordLines(this.path, jsons);
      } catch (e) {
        throw outputWriteError(this.path, e, true);
      }
    }
  }
}
