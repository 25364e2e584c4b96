// Scores every ladder level of a source with both profiles (each call analysed once per profile), cached for the run.
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { createMetrics, evaluate, METRICS, type MetricProfile } from "../../src/metrics/index.js";
import { Audio } from "../../src/model/audio.js";
import { createTestCase, type ConversationalTestCase, type Turn } from "../../src/model/test-case.js";
import { toPcm16, type Clip } from "./degrade.js";
import { CALLER_GAP_S, LADDERS, makeBabble, METRIC_IDS, type CallVariant, type MetricId } from "./ladders.js";
import { loadSource, type CleanCall, type SourceId } from "./sources.js";

/** Scores of one ladder: level → metric id → score (null = skipped). */
export type LadderScores = Array<Record<MetricId, number | null>>;
export type SourceScores = Record<MetricProfile, Record<string, LadderScores>>;

const USER_TEXT = "Could you help me with my account?";

function audioOf(c: Clip, start: number): Audio {
  return Audio.fromBytes(writeWavPcm16(toPcm16(c.x), c.rate), "audio/wav", { start_time: Math.round(start * 1e6) / 1e6 });
}

/** The test case of a call variant: caller, agent, caller, agent…, placed on the call clock. */
export function testCaseOf(call: CleanCall, v: CallVariant, name: string): ConversationalTestCase {
  const turns: Turn[] = [];
  let t = 0;
  v.agents.forEach((agent, i) => {
    const user = v.users[i];
    turns.push({ role: "user", content: USER_TEXT, audio: audioOf(user, t) } as Turn);
    const userEnd = t + user.x.length / user.rate;
    const agentStart = Math.max(0, userEnd + v.replyGapS[i]);
    turns.push({ role: "assistant", content: call.agentText[i], audio: audioOf(agent, agentStart) } as Turn);
    t = Math.max(userEnd, agentStart + agent.x.length / agent.rate) + CALLER_GAP_S;
  });
  return createTestCase({ name, turns } as ConversationalTestCase);
}

const ID_BY_NAME = new Map(METRICS.map((m) => [m.name, m.id as MetricId]));

function scoresOf(tc: ConversationalTestCase, profile: MetricProfile): Record<MetricId, number | null> {
  const [r] = evaluate([tc], createMetrics([], { threshold: 0.5 }, profile));
  const out = Object.fromEntries(METRIC_IDS.map((id) => [id, null])) as Record<MetricId, number | null>;
  for (const [name, m] of Object.entries(r.metrics)) out[ID_BY_NAME.get(name)!] = m.score;
  return out;
}

const cache = new Map<SourceId, SourceScores>();

/** Every ladder of a source under both profiles (computed once per run). */
export function scoreSource(id: SourceId): SourceScores {
  const hit = cache.get(id);
  if (hit) return hit;
  const call = loadSource(id);
  const babble = makeBabble(call, call.agents[0].rate);
  const result: SourceScores = { deepeval: {}, voxmetrics: {} };
  let cleanScores: Record<MetricProfile, Record<MetricId, number | null>> | null = null;
  for (const ladder of LADDERS) {
    for (const profile of ["deepeval", "voxmetrics"] as const) result[profile][ladder.id] = [];
    for (let level = 0; level <= ladder.levels.length; level++) {
      if (level === 0 && cleanScores) {
        for (const profile of ["deepeval", "voxmetrics"] as const) result[profile][ladder.id].push(cleanScores[profile]);
        continue;
      }
      const tc = testCaseOf(call, ladder.apply(call, level, babble), `${id}/${ladder.id}/${level}`);
      const scores = { deepeval: scoresOf(tc, "deepeval"), voxmetrics: scoresOf(tc, "voxmetrics") };
      if (level === 0) cleanScores = scores;
      for (const profile of ["deepeval", "voxmetrics"] as const) result[profile][ladder.id].push(scores[profile]);
    }
  }
  cache.set(id, result);
  return result;
}
