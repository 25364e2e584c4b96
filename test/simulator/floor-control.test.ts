// Floor-control pieces of §L6.2 in isolation: the policy and preset tables, the 13 chars/s whole-word heard cap, the judgement grid, the seeded rule judge.
import { describe, expect, it } from "vitest";
import { FRUSTRATION_GUIDANCE, modelJudgeMessages, DEFAULT_FLOOR_CONTROL, FLOOR_CONTROL_PRESETS, FLOOR_POLL_MS, FLOOR_STATES, FRUSTRATED_UTTERANCE, INTERRUPTION_POLICIES, JudgeGate, RuleBasedJudge, heardTranscript, parseGolden } from "../../src/index.js";

describe("§L6.2 tables", () => {
  it("frequency policies, overlap presets, bare defaults, states, loop period and the frustrated utterance are the spec's", () => {
    expect(INTERRUPTION_POLICIES).toEqual({
      rare: { minNewChars: 80, minJudgeIntervalS: 2.0, maxBargesPerCall: 1, maxBargesPerUtterance: 1 },
      normal: { minNewChars: 40, minJudgeIntervalS: 1.0, maxBargesPerCall: 4, maxBargesPerUtterance: 2 },
      frequent: { minNewChars: 20, minJudgeIntervalS: 0.5, maxBargesPerCall: 8, maxBargesPerUtterance: 3 },
    });
    expect(FLOOR_CONTROL_PRESETS).toEqual({
      yield: { interruptGraceMs: 800, overlapYieldMs: 350, awkwardSilenceMs: 500, restartBackoffMs: [0, 0], retryAfterYield: false },
      adaptive: { interruptGraceMs: 2000, overlapYieldMs: 600, awkwardSilenceMs: 800, restartBackoffMs: [200, 1200], retryAfterYield: true },
      insist: { interruptGraceMs: 5000, overlapYieldMs: 1200, awkwardSilenceMs: 400, restartBackoffMs: [100, 500], retryAfterYield: true },
    });
    expect(DEFAULT_FLOOR_CONTROL).toEqual({ interruptGraceMs: 5000, overlapYieldMs: 600, awkwardSilenceMs: 800, restartBackoffMs: [200, 1200], retryAfterYield: true });
    expect(FLOOR_STATES).toEqual(["listening", "barging", "overlap", "grace_wait", "frustrated_yield", "awkward_silence", "restart_barge"]);
    expect(FLOOR_POLL_MS).toBe(50);
    expect(FRUSTRATED_UTTERANCE).toBe("Sorry — go ahead.");
  });
});

describe("heardTranscript", () => {
  const text = "Your order shipped yesterday and should arrive on Friday.";
  it("caps at 13 characters per delivered second, rounded down to a whole word", () => {
    expect(heardTranscript(text, 0)).toBe("");
    expect(heardTranscript(text, 0.25)).toBe(""); // 3 chars: "You" is not a whole word yet
    expect(heardTranscript(text, 0.5)).toBe("Your"); // 6 chars: "Your o" cut back to "Your"
    expect(heardTranscript(text, 1)).toBe("Your order"); // 13 chars: "Your order sh"
    expect(heardTranscript(text, 11 / 13)).toBe("Your order"); // 11 chars: "Your order " ends on a word
    expect(heardTranscript(text, 10 / 13)).toBe("Your order"); // exactly "Your order", next char a space
    expect(heardTranscript(text, 2)).toBe("Your order shipped");
    expect(heardTranscript(text, 100)).toBe(text);
  });
});

describe("judgement grid and rule judge", () => {
  it("judgement k waits for (k+1) × minNewChars heard characters and the interval of agent speech", () => {
    const g = new JudgeGate(INTERRUPTION_POLICIES.normal);
    expect(g.ready(39, 5)).toBe(false);
    expect(g.ready(40, 0)).toBe(true);
    g.mark(47, 3.1);
    expect(g.ready(79, 10)).toBe(false);
    expect(g.ready(80, 4.0)).toBe(false);
    expect(g.ready(80, 4.1)).toBe(true);
  });

  it("the rule judge is deterministic for a seed and interrupts at the frequency's rate", async () => {
    const golden = parseGolden({ scenario: "s" }, "/", "t");
    const run = async (seed: number, frequency: "rare" | "normal" | "frequent") => {
      const j = new RuleBasedJudge(seed);
      const out: boolean[] = [];
      for (let k = 0; k < 2000; k++) out.push((await j.decide({ golden, behavior: { frequency, overlap: "adaptive" }, history: [], heard: "x", elapsedS: 1, judgementIndex: k })).shouldInterrupt);
      return out;
    };
    expect(await run(5, "normal")).toEqual(await run(5, "normal"));
    expect(await run(5, "normal")).not.toEqual(await run(6, "normal"));
    for (const [f, p] of [["rare", 0.5], ["normal", 0.6], ["frequent", 0.75]] as const) {
      const share = (await run(9, f)).filter(Boolean).length / 2000;
      expect(Math.abs(share - p)).toBeLessThan(0.04);
    }
  });
});

describe("model judge prompt", () => {
  it("holds the persona, scenario, level guidance, previous turns and the heard transcript, and the frustration once a barge was talked over", () => {
    const golden = parseGolden({ scenario: "Late parcel", persona: { characteristics: "a nurse on a break" } }, "/", "t");
    const input = { golden, behavior: { frequency: "rare" as const, overlap: "insist" as const }, history: [{ role: "caller" as const, text: "Where is it?" }, { role: "agent" as const, text: "Let me see." }], heard: "Your parcel", elapsedS: 1, judgementIndex: 0 };
    const [system, user] = modelJudgeMessages(input);
    expect(system.content).toContain("a nurse on a break");
    expect(system.content).toContain("Late parcel");
    expect(system.content).toMatch(/almost never interrupt/);
    expect(system.content).toContain('"should_interrupt"');
    expect(system.content).not.toContain(FRUSTRATION_GUIDANCE);
    expect(user.content).toContain("You: Where is it?\nAgent: Let me see.");
    expect(user.content).toContain('heard so far): "Your parcel"');
    expect(modelJudgeMessages({ ...input, frustrated: true })[0].content).toContain(FRUSTRATION_GUIDANCE);
  });
});
