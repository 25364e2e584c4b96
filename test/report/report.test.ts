// Report pieces: resumable JSONL writer (partial last line), summary aggregation, CSV quoting, atomic writes, the table.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ResultRecord } from "../../src/scoring/record.js";
import { CsvWriter, csvRows, formatSummaryTable, ResultWriter, SummaryAccumulator, writeFileAtomic } from "../../src/report/index.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-report-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function metric(score: number | null, extra: Partial<{ skipped: boolean; success: boolean | null; error: string | null; reason: string }> = {}) {
  return { score, threshold: 0.5, success: score === null ? null : score >= 0.5, skipped: false, strict_mode: false, reason: "r", score_breakdown: null, error: null, ...extra };
}

function ok(id: string, scores: Record<string, ReturnType<typeof metric>>): ResultRecord {
  return { id, name: null, source: { format: "deepeval-json", path: "a.json" }, status: "ok", error: null, metrics: scores, turns: [], elapsed_ms: 1 };
}

function failed(id: string): ResultRecord {
  return { id, name: null, source: { format: "dual-channel", path: "b.wav" }, status: "error", error: { code: "DECODE_ERROR", message: 'b.wav: bad, "quoted"\nline' }, elapsed_ms: 0 };
}

describe("ResultWriter", () => {
  it("appends whole lines, and on resume reads the ids back and cuts a partial last line", () => {
    const path = join(tmp, "results.jsonl");
    const w = ResultWriter.open(path, false);
    w.writeLine(JSON.stringify(ok("a#0", {})));
    w.writeLine(JSON.stringify(failed("b")));
    appendFileSync(path, '{"id": "c#0", "status": "o');
    const seen: string[] = [];
    const again = ResultWriter.open(path, true, (r) => seen.push(r.id));
    expect(seen).toEqual(["a#0", "b"]);
    again.writeLine(JSON.stringify(ok("c#0", {})));
    expect(readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l).id)).toEqual(["a#0", "b", "c#0"]);
    ResultWriter.open(path, false);
    expect(readFileSync(path, "utf8")).toBe("");
  });
});

describe("SummaryAccumulator", () => {
  it("aggregates per metric: count, skipped, errors, mean, p50, p95 (linear interpolation), pass rate", () => {
    const acc = new SummaryAccumulator();
    [0.2, 0.4, 0.6, 0.8, 1.0].forEach((s, i) => acc.add(ok(`x${i}`, { M: metric(s), N: metric(null, { skipped: true }) })));
    acc.add(ok("y", { M: metric(null, { error: "boom" }), N: metric(0.5) }));
    acc.add(failed("z"));
    const s = acc.summary(2);
    expect(s).toMatchObject({ calls: 7, ok: 6, errors: 1, elapsed_s: 2 });
    expect(s.metrics.M).toEqual({ count: 5, skipped: 0, errors: 1, mean: expect.closeTo(0.6, 12), p50: 0.6, p95: expect.closeTo(0.96, 12), pass_rate: 0.6 });
    expect(s.metrics.N).toEqual({ count: 1, skipped: 5, errors: 0, mean: 0.5, p50: 0.5, p95: 0.5, pass_rate: 1 });
    expect(formatSummaryTable(s)).toMatch(/7 call\(s\): 6 scored, 1 error\(s\)[\s\S]*M\s+5\s+0\.600\s+0\.600\s+0\.960\s+60\.0%\s+0\s+1/);
  });
});

describe("CSV", () => {
  it("writes one row per metric, one per error record, quoting per RFC 4180, atomically", () => {
    expect(csvRows(ok("a,1", { M: metric(0.75, { reason: 'say "hi"' }) }))).toEqual(['"a,1",,deepeval-json,a.json,ok,,,M,0.75,0.5,true,false,false,,"say ""hi""",,,,,,,,,,,']);
    expect(csvRows(failed("b"))).toEqual(['b,,dual-channel,b.wav,error,DECODE_ERROR,"b.wav: bad, ""quoted""\nline",,,,,,,,,,,,,,,,,,,']);
    const path = join(tmp, "out.csv");
    const w = new CsvWriter(path);
    w.add(ok("a", { M: metric(1), N: metric(0) }));
    expect(existsSync(path)).toBe(false);
    w.finish();
    expect(readFileSync(path, "utf8").split("\r\n")).toHaveLength(4);
  });

  it("replaces files atomically", () => {
    const path = join(tmp, "summary.json");
    writeFileSync(path, "old");
    writeFileAtomic(path, "new");
    expect(readFileSync(path, "utf8")).toBe("new");
    expect(readdirSync(tmp).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
