// Speech Intelligibility, voxmetrics profile: per agent turn, the product of speech-only SNR, loudness, band edge, speech lost in dropouts and clipping; silent or empty turns score 0.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import type { MetricEvaluation } from "../base-metric.js";
import { fmt2, mean, product, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import { rate, type Evidence } from "./options.js";

const NO_AUDIO_REASON = "No assistant audio was available to evaluate.";

/** Speech Intelligibility in the voxmetrics profile: speech-only SNR, level, band edge, speech lost in dropouts and clipping; a silent agent turn scores 0. */
export class VoxmetricsSpeechIntelligibilityMetric extends VoxmetricsMetric {
  readonly name = "Speech Intelligibility";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const o = this.profileOptions;
    const entries: Array<Record<string, unknown>> = [];
    const scores: number[] = [];
    for (const t of this.agentTurns(testCase, ctx)) {
      if (t.status === "missing") continue;
      if (t.status === "undecodable") {
        scores.push(0);
        entries.push({ turn: t.ordinal, score: 0, error: t.error });
        continue;
      }
      const m = t.integrity!;
      if (!m.audible) {
        scores.push(0);
        entries.push({ turn: t.ordinal, score: 0, silent: true, evidence: { peak_level_db: { value: m.peak_level_db, unit: "dBFS", band: "bad", score: 0 } } });
        continue;
      }
      const evidence: Record<string, Evidence> = {
        speech_snr_db: rate(m.speech_snr_db, o.snrDb, "dB (WADA, speech only)"),
        loudness_lufs: rate(t.standards!.integrated_lufs, o.loudnessLufs, "LUFS"),
        band_edge_hz: rate(m.band_edge_hz, o.bandEdgeHz, "Hz"),
        lost_fraction: rate(m.measured_s > 0 ? Math.min(1, m.dropouts.total_s / m.measured_s) : 0, o.lostFraction, "fraction of speech"),
        clipped_fraction: rate(m.clipped_fraction, o.clippedFraction, "fraction of speech samples"),
      };
      const score = product(Object.values(evidence).map((e) => e.score));
      scores.push(score);
      entries.push({ turn: t.ordinal, score, evidence });
    }
    const score = mean(scores);
    if (score === null) return { score: null, reason: NO_AUDIO_REASON, breakdown: { profile: VOXMETRICS_PROFILE, turns: entries } };
    return {
      score,
      reason: `Assistant speech intelligibility (SNR, level, bandwidth, lost speech, clipping) was ${fmt2(score)} across ${scores.length} turn(s).`,
      breakdown: { profile: VOXMETRICS_PROFILE, eligible_turns: scores.length, turns: entries },
    };
  }
}
