// The validation contract of the voxmetrics profile (issue 17): on degradation ladders from human, TTS and espeak-ng speech, each metric falls where it must and holds still where it must not move.
import { describe, expect, it } from "vitest";
import { CONTRACT, GENTLE, LADDERS, METRIC_IDS, type MetricId } from "./ladders.js";
import { scoreSource, type LadderScores } from "./run-ladders.js";
import { sourceUnavailable, type SourceId } from "./sources.js";

/** Scores may rise by at most this between severity levels of a contract ladder. */
const MONOTONE_TOLERANCE = 0.02;
/** Least fall from the clean call to the most severe level of a contract ladder. */
const MIN_FALL = 0.4;
/** Gentle pairs (telephone × intelligibility): least fall, and the floor the most severe level keeps. */
const GENTLE_MIN_FALL = 0.1;
const GENTLE_FLOOR = 0.6;
/** Most movement of a metric on a ladder outside its contract. */
const MAX_MOVE = 0.1;
/** Least score of every metric on a clean call. */
const CLEAN_FLOOR = 0.85;
/** Scoring a source's 66 calls with both profiles takes tens of seconds on a shared machine. */
const SOURCE_TIMEOUT_MS = 600_000;

const SOURCES: readonly SourceId[] = ["human", "tts", "espeak"];

function series(scores: LadderScores, metric: MetricId): Array<number | null> {
  return scores.map((level) => level[metric]);
}

/** Every violation of the contract on one ladder, as readable lines (empty when it holds). */
export function contractViolations(ladder: string, scores: LadderScores): string[] {
  const out: string[] = [];
  for (const metric of METRIC_IDS) {
    const s = series(scores, metric);
    const shown = s.map((v) => (v === null ? "null" : v.toFixed(3))).join(" → ");
    if (s.some((v) => v === null)) {
      out.push(`${metric} × ${ladder}: skipped at some level (${shown})`);
      continue;
    }
    const v = s as number[];
    const gentle = GENTLE.some(([m, l]) => m === metric && l === ladder);
    if (CONTRACT[metric].includes(ladder)) {
      for (let k = 1; k < v.length; k++) {
        if (v[k] > v[k - 1] + MONOTONE_TOLERANCE) out.push(`${metric} × ${ladder}: rises from level ${k - 1} to ${k} (${shown})`);
      }
      const fall = v[0] - v[v.length - 1];
      if (fall < (gentle ? GENTLE_MIN_FALL : MIN_FALL)) out.push(`${metric} × ${ladder}: falls only ${fall.toFixed(3)} (${shown})`);
      if (gentle && v[v.length - 1] < GENTLE_FLOOR) out.push(`${metric} × ${ladder}: ends below ${GENTLE_FLOOR} (${shown})`);
    } else {
      const move = Math.max(...v.map((x) => Math.abs(x - v[0])));
      if (move > MAX_MOVE) out.push(`${metric} × ${ladder}: moves ${move.toFixed(3)} outside its contract (${shown})`);
    }
  }
  return out;
}

for (const source of SOURCES) {
  const why = sourceUnavailable(source);
  if (why) console.warn(`validation ladders of the ${source} source skipped: ${why}`);
  describe.skipIf(why !== null)(`voxmetrics profile on ${source} speech`, () => {
    it("scores the clean call at 0.85 or more on every metric", () => {
      const clean = scoreSource(source).voxmetrics[LADDERS[0].id][0];
      for (const metric of METRIC_IDS) expect(clean[metric], metric).toBeGreaterThanOrEqual(CLEAN_FLOOR);
    }, SOURCE_TIMEOUT_MS);

    it.each(LADDERS.map((l) => [l.id]))("%s: contract pairs fall monotonically by 0.4, the others hold within 0.1", (ladder) => {
      expect(contractViolations(ladder, scoreSource(source).voxmetrics[ladder])).toEqual([]);
    }, SOURCE_TIMEOUT_MS);

    it("every ladder has at least five severity levels beyond the clean call", () => {
      for (const l of LADDERS) expect(l.levels.length, l.id).toBeGreaterThanOrEqual(5);
    });
  });
  if (why !== null) {
    describe(`voxmetrics profile on ${source} speech`, () => {
      it.skip(`skipped: ${why}`, () => {});
    });
  }
}

describe("the contract check itself", () => {
  const flat = (v: number) => Object.fromEntries(METRIC_IDS.map((m) => [m, v])) as Record<MetricId, number>;
  const about = (metric: string, violations: string[]) => violations.filter((v) => v.startsWith(`${metric} ×`));
  it("flags a contract pair that rises, one that does not fall, and a non-contract pair that moves", () => {
    const rising = [1, 0.5, 0.6, 0.3, 0.2, 0.1].map((v) => ({ ...flat(1), naturalness: v }));
    expect(about("naturalness", contractViolations("clipping", rising))).toEqual([expect.stringMatching(/^naturalness × clipping: rises from level 1 to 2/)]);
    const flatLadder = [1, 1, 1, 1, 1, 0.9].map((v) => ({ ...flat(1), naturalness: v }));
    expect(about("naturalness", contractViolations("clipping", flatLadder))).toEqual([expect.stringMatching(/^naturalness × clipping: falls only 0.100/)]);
    const moving = [1, 1, 0.8, 1, 1, 1].map((v) => ({ ...flat(1), naturalness: v }));
    expect(about("naturalness", contractViolations("white-noise", moving))).toEqual([expect.stringMatching(/^naturalness × white-noise: moves 0.200/)]);
    const gentle = [1, 0.95, 0.9, 0.85, 0.8, 0.55].map((v) => ({ ...flat(1), intelligibility: v }));
    expect(about("intelligibility", contractViolations("telephone", gentle))).toEqual([expect.stringMatching(/^intelligibility × telephone: ends below 0.6/)]);
  });
});
