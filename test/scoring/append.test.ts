// appendRecordLines: whole lines appended in one write, any text (multi-byte UTF-8, astral characters), batch after batch.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendRecordLines } from "../../src/scoring/record.js";
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
