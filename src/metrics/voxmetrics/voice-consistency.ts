// Voice Consistency, voxmetrics profile: spread of speech level, median pitch and band edge between the agent's audible turns, times the share of its turns that carry speech.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import type { MetricEvaluation } from "../base-metric.js";
import { fmt2, pstdev, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import { rate } from "./options.js";

const SKIP_REASON = "At least two assistant audio turns are required to evaluate voice consistency.";
/** Reference of the semitone scale (Hz); any constant works, spreads do not depend on it. */
const SEMITONE_REFERENCE_HZ = 100;

/** Voice Consistency in the voxmetrics profile: spread of level, pitch and band edge between agent turns, times the share of agent turns with speech. */
export class VoxmetricsVoiceConsistencyMetric extends VoxmetricsMetric {
  readonly name = "Voice Consistency";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const o = this.profileOptions;
    const withAudio = this.agentTurns(testCase, ctx).filter((t) => t.status !== "missing");
    const records = withAudio.map((t) => ({
      turn: t.ordinal,
      speaking: t.status === "ok" && t.integrity!.audible,
      speech_level_db: t.status === "ok" ? t.integrity!.speech_level_db : null,
      pitch_median_hz: t.status === "ok" ? t.standards!.pitch.median_hz : null,
      speech_snr_db: t.status === "ok" ? t.integrity!.speech_snr_db : null,
      band_edge_hz: t.status === "ok" ? t.integrity!.band_edge_hz : null,
    }));
    if (records.length < 2) return { score: null, reason: SKIP_REASON, breakdown: { profile: VOXMETRICS_PROFILE, eligible_turns: records.length, turns: records } };
    const speaking = records.filter((r) => r.speaking);
    const share = speaking.length / records.length;
    const levels = speaking.map((r) => r.speech_level_db).filter((v): v is number => v !== null);
    const pitches = speaking
      .filter((r) => r.speech_snr_db !== null && r.speech_snr_db >= o.pitchMinSnrDb)
      .map((r) => r.pitch_median_hz)
      .filter((v): v is number => v !== null && v > 0)
      .map((f) => 12 * Math.log2(f / SEMITONE_REFERENCE_HZ));
    const edges = speaking.map((r) => r.band_edge_hz).filter((v): v is number => v !== null && v > 0).map((f) => Math.log2(f));
    const evidence = {
      level_spread_db: rate(pstdev(levels), o.levelSpreadDb, "dB (pstdev of speech levels)"),
      pitch_spread_st: rate(pstdev(pitches), o.pitchSpreadSt, "semitones (pstdev of median pitch)"),
      band_edge_spread_oct: rate(pstdev(edges), o.bandEdgeSpreadOct, "octaves (pstdev of band edges)"),
      speaking_share: { value: share, unit: "fraction of audio turns with speech", band: share === 1 ? "good" : share === 0 ? "bad" : "degraded", score: share },
    };
    const score = speaking.length === 0 ? 0 : evidence.level_spread_db.score * evidence.pitch_spread_st.score * evidence.band_edge_spread_oct.score * share;
    return {
      score,
      reason: speaking.length === 0
        ? "Voice consistency was 0 because the agent never spoke in its audio turns."
        : `Assistant voice consistency was ${fmt2(score)} across ${records.length} turns (${speaking.length} with speech).`,
      breakdown: { profile: VOXMETRICS_PROFILE, eligible_turns: records.length, evidence, turns: records },
    };
  }
}
