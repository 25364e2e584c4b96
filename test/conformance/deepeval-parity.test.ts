// Parity suite: every case of ../shared/parity/expected.jsonl (deepeval's own output) under --compat deepeval.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDeepevalJsonFile } from "../../src/ingest/formats/deepeval-json.js";
import { scoreTestCase } from "../../src/scoring/score-test-case.js";
import { compareDeep } from "../helpers/compare.js";
import { sharedDir } from "../helpers/shared.js";

const shared = sharedDir();

interface ExpectedCase {
  name: string;
  metrics: Record<string, { score: number | null; reason: string; success: boolean; skipped: boolean; threshold: number; score_breakdown: unknown }>;
  measurements: Record<string, unknown>;
}

function caseFiles(dir: string): string[] {
  const sim = ["call.json", "conversation-mix.json"].map((f) => join(dir, "parity", "deepeval-sim", f));
  const synth = readdirSync(join(dir, "parity", "synthetic"))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(dir, "parity", "synthetic", f));
  return [...sim, ...synth];
}

describe.skipIf(!shared)("deepeval parity set (../shared/parity)", () => {
  if (!shared) return;
  const expected = new Map<string, ExpectedCase>(
    readFileSync(join(shared, "parity", "expected.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as ExpectedCase)
      .map((c) => [c.name, c]),
  );
  const files = caseFiles(shared);

  it("has a case file for every expected line", () => {
    const names = files.map((f) => loadDeepevalJsonFile(f, { compat: "deepeval" })[0].testCase?.name);
    expect(names.sort()).toEqual([...expected.keys()].sort());
  });

  for (const file of files) {
    const parsed = loadDeepevalJsonFile(file, { compat: "deepeval" });
    const tc = parsed[0].testCase!;
    const exp = expected.get(tc.name!)!;
    describe(tc.name!, () => {
      const result = scoreTestCase(tc, { compat: "deepeval" });
      for (const [metricName, em] of Object.entries(exp.metrics)) {
        it(metricName, () => {
          const am = result.metrics[metricName];
          expect(am, `${metricName} missing`).toBeDefined();
          if (em.score === null) expect(am.score).toBeNull();
          else expect(Math.abs((am.score as number) - em.score)).toBeLessThanOrEqual(1e-6);
          expect(am.reason).toBe(em.reason);
          expect(am.success).toBe(em.success);
          expect(am.skipped).toBe(em.skipped);
          expect(am.threshold).toBe(em.threshold);
          expect(compareDeep(am.score_breakdown, em.score_breakdown)).toEqual([]);
        });
      }
      it("measurements", () => {
        const actual: Record<string, unknown> = {};
        for (const t of result.turns) {
          const { detail: _detail, ...m } = t.measurements as unknown as Record<string, unknown>;
          actual[String(t.index)] = m;
        }
        expect(Object.keys(actual).sort()).toEqual(Object.keys(exp.measurements).sort());
        expect(compareDeep(actual, exp.measurements)).toEqual([]);
      });
    });
  }
});

describe.skipIf(shared)("deepeval parity set", () => {
  it.skip("parity set absent (no ../shared/parity/expected.jsonl): skipped; run it with VOXMETRICS_SHARED=<folder holding parity/expected.jsonl> npx vitest run test/conformance (the fixtures/ reference vectors still run)", () => {});
});
