// appendRecordLines / appendEncodedLines: whole lines appended in one write, any text (multi-byte UTF-8, astral characters), batch after batch; encodeRecordLine equals JSON.stringify byte for byte.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendEncodedLines, appendRecordLines, encodeRecordLine, releaseRecordLine, type ResultRecord } from "../../src/scoring/record.js";
import { seededRandom } from "../helpers/random.js";

const dir = mkdtempSync(join(tmpdir(), "vox-append-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("appendRecordLines", () => {
  it("appends each batch's lines, each ended by a line break, exactly as written", () => {
    const path = join(dir, "out.jsonl");
    const rnd = seededRandom(5);
    const pieces = ["a", "é", "€", "日本", "😀", "\\u0000", '"x"', " "];
    const written: string[] = [];
    for (let batch = 0; batch < 30; batch++) {
      // Batch sizes grow and shrink, so the reused encoding buffer is both grown and reused part-full.
      const lines = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () =>
        JSON.stringify({ id: `call-${batch}`, text: Array.from({ length: Math.floor(rnd() * (batch % 5 === 0 ? 20000 : 50)) }, () => pieces[Math.floor(rnd() * pieces.length)]).join("") }),
      );
      appendRecordLines(path, lines);
      written.push(...lines);
    }
    appendRecordLines(path, []);
    const text = readFileSync(path, "utf8");
    expect(text).toBe(written.join("\n") + "\n");
    expect(text.split("\n").slice(0, -1).map((l) => JSON.parse(l).id)).toEqual(written.map((l) => JSON.parse(l).id));
  });
});

describe("encodeRecordLine", () => {
  /** A record-shaped value with everything JSON.stringify treats specially, nested deeper than the piece depth. */
  function oddRecord(rnd: () => number): ResultRecord {
    const texts = ["", "é", "€ 日本", "😀", "\ud800 lone", "q\"uote\\", "\n\t\u0001", "</script>"];
    const value = (depth: number): unknown => {
      const r = rnd();
      if (depth === 0 || r < 0.3) {
        const leaves = [0, -0, 1.5e-300, -12.25, NaN, Infinity, -Infinity, null, true, false, undefined, texts[Math.floor(rnd() * texts.length)], new Date(0), () => 1, Symbol("s")];
        return leaves[Math.floor(rnd() * leaves.length)];
      }
      if (r < 0.55) return Array.from({ length: Math.floor(rnd() * 5) }, () => value(depth - 1));
      if (r < 0.6) {
        const replaced = value(depth - 1);
        return { toJSON: () => ({ replaced }) };
      }
      if (r < 0.65) return new Map([[1, 2]]);
      if (r < 0.7) return Object.assign(Object.create(null), { bare: value(depth - 1) });
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 5) }, (_, i) => [`${texts[i % texts.length]}k${i}`, value(depth - 1)]));
    };
    return { id: "c", name: null, source: { format: "dual-channel", path: "x.wav" }, status: "ok", error: null, metrics: value(8) as never, turns: value(8) as never, elapsed_ms: 1.5 };
  }

  it("gives JSON.stringify(record) and a line break, byte for byte, whatever the record holds", () => {
    const rnd = seededRandom(11);
    for (let i = 0; i < 300; i++) {
      const record = oddRecord(rnd);
      expect(Buffer.from(encodeRecordLine(record)).toString("utf8")).toBe(JSON.stringify(record) + "\n");
    }
  });

  it("appends one encoded line from its own buffer, several in one write, in order", () => {
    const path = join(dir, "encoded.jsonl");
    const records = Array.from({ length: 7 }, (_, i) => ({ id: `call-${i}`, name: "é😀".repeat(i * 1000), source: { format: null, path: "p" }, status: "ok", error: null, elapsed_ms: i }) as ResultRecord);
    appendEncodedLines(path, [encodeRecordLine(records[0])]);
    appendEncodedLines(path, records.slice(1, 4).map(encodeRecordLine));
    appendEncodedLines(path, []);
    appendEncodedLines(path, records.slice(4).map(encodeRecordLine));
    expect(readFileSync(path, "utf8")).toBe(records.map((r) => JSON.stringify(r) + "\n").join(""));
  });

  it("a line released after it was written is empty, and what was written stays", () => {
    const path = join(dir, "released.jsonl");
    const record = { id: "long", name: "x".repeat(100000), source: { format: null, path: "p" }, status: "ok", error: null, elapsed_ms: 0 } as ResultRecord;
    const line = encodeRecordLine(record);
    appendEncodedLines(path, [line]);
    releaseRecordLine(line);
    expect(line.length).toBe(0);
    releaseRecordLine(line);
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(record) + "\n");
  });
});
