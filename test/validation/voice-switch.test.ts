// A channel or voice switch between turns (wideband ↔ telephone band) is a consistency failure through the band-edge spread; the same band on every turn is not.
import { describe, expect, it } from "vitest";
import { createMetrics, evaluate } from "../../src/metrics/index.js";
import { telephone } from "./degrade.js";
import { CLEAN_REPLY_GAP_S } from "./ladders.js";
import { testCaseOf } from "./run-ladders.js";
import { loadSource, sourceUnavailable } from "./sources.js";

const why = sourceUnavailable("human");
if (why) console.warn(`voice-switch check skipped: ${why}`);

describe.skipIf(why !== null)("Voice Consistency, voxmetrics profile, on a band switch between turns (human speech)", () => {
  const consistency = (switchEvery: boolean) => {
    const call = loadSource("human");
    const agents = call.agents.map((c, i) => (switchEvery ? (i % 2 ? telephone(c, true) : c) : telephone(c, true)));
    const [r] = evaluate([testCaseOf(call, { users: call.users, agents, replyGapS: agents.map(() => CLEAN_REPLY_GAP_S) }, "switch")], createMetrics(["consistency"], {}, "voxmetrics"));
    return r.metrics["Voice Consistency"];
  };

  it("falls when every other turn comes through a telephone channel, and holds when all do", () => {
    const switching = consistency(true);
    const evidence = switching.score_breakdown!.evidence as Record<string, { band: string; value: number }>;
    expect(evidence.band_edge_spread_oct.band).not.toBe("good");
    expect(switching.score!).toBeLessThan(0.6);
    expect(consistency(false).score!).toBeGreaterThanOrEqual(0.85);
  });
});
