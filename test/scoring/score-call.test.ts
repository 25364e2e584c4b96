// scoreCall reuses one call buffer per thread: a call's records must not depend on which calls this thread scored before it.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverCalls, loadCall } from "../../src/ingest/index.js";
import { resolveScoreOptions } from "../../src/scoring/options.js";
import type { ResultRecord } from "../../src/scoring/record.js";
import { scoreCall } from "../../src/scoring/score-call.js";
import { scoreTestCase } from "../../src/scoring/score-test-case.js";
import { REPO_ROOT } from "../helpers/shared.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");

describe("scoreCall and the reused call buffer", () => {
  const { calls } = discoverCalls([ARCHIVE]);
  const options = resolveScoreOptions({ acoustics: true });
  const score = (ref: (typeof calls)[number]) => scoreCall({ ref, ingest: {}, score: options });
  const strip = (r: ResultRecord) => JSON.stringify({ ...r, elapsed_ms: 0 });

  it("gives the same records in any order, and the same metrics as loading and scoring outside the buffer", () => {
    expect(new Set(calls.map((c) => c.format)).size).toBeGreaterThanOrEqual(4);
    const forward = calls.map(score);
    const backward = [...calls].reverse().map(score).reverse();
    const twice = calls.flatMap((c) => [score(c), score(c)]).filter((_, i) => i % 2 === 1);
    expect(forward.map((r) => r.status)).toEqual(calls.map(() => "ok"));
    expect(backward.map(strip)).toEqual(forward.map(strip));
    expect(twice.map(strip)).toEqual(forward.map(strip));
    calls.forEach((ref, i) => {
      // Outside any scope every file gets fresh memory: the reference for what the buffer must not change.
      const { testCase } = loadCall(ref, {});
      const fresh = scoreTestCase(testCase, { acoustics: true });
      expect(JSON.stringify(forward[i].metrics)).toBe(JSON.stringify(fresh.metrics));
      expect(JSON.stringify(forward[i].turns)).toBe(JSON.stringify(fresh.turns));
    });
  }, 60_000);
});
