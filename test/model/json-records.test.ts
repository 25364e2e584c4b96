// Record splitting of JSON / JSON array / JSONL files as byte ranges.
import { describe, expect, it } from "vitest";
import { parseRecord, scanJsonRecords } from "../../src/model/json-records.js";

const enc = (s: string) => new TextEncoder().encode(s);
const texts = (s: string, jsonl = false) => {
  const b = enc(s);
  const r = scanJsonRecords(b, jsonl);
  return { container: r.container, records: r.ranges.map(([a, z]) => new TextDecoder().decode(b.subarray(a, z))), lines: r.lines };
};

describe("scanJsonRecords", () => {
  it("reads one object", () => {
    expect(texts(' {"turns": []}\n')).toEqual({ container: "object", records: ['{"turns": []}'], lines: undefined });
  });

  it("splits arrays without being fooled by brackets, commas and escapes inside strings", () => {
    const r = texts('[{"a": "x],{\\"y"}, {"b": [1, 2]} , 3, "s,]"]');
    expect(r.container).toBe("array");
    expect(r.records).toEqual(['{"a": "x],{\\"y"}', '{"b": [1, 2]}', "3", '"s,]"']);
    expect(r.records.slice(0, 2).map(parseRecord)).toEqual([{ a: 'x],{"y' }, { b: [1, 2] }]);
  });

  it("handles UTF-8, a byte-order mark and empty arrays", () => {
    expect(texts("\ufeff[]").records).toEqual([]);
    expect(texts('\ufeff[{"é": "日本"}]').records).toEqual(['{"é": "日本"}']);
  });

  it("reads JSONL lines with blank lines and CRLF, keeping line numbers", () => {
    const r = texts('{"a":1}\r\n\r\n  \n{"b":2}\n{broken\n', true);
    expect(r.container).toBe("lines");
    expect(r.records).toEqual(['{"a":1}', '{"b":2}', "{broken"]);
    expect(r.lines).toEqual([1, 4, 5]);
  });

  it("reads several values in a .json file as JSONL", () => {
    expect(texts('{"a":1}\n{"b":2}\n').container).toBe("lines");
  });

  it("keeps a malformed array as one record so that its parse error is reported once", () => {
    const r = texts('[{"a": 1}, {"b": ');
    expect(r.container).toBe("object");
    expect(r.records).toHaveLength(1);
    expect(() => parseRecord(r.records[0])).toThrow();
  });
});
