// The reference vectors of voice-metrics.md §8 (deepeval's outputs on defined signals), from fixtures/reference-vectors.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clips, sampleHash } from "../../fixtures/generate-reference-vectors.js";
import { loadDeepevalJsonFile } from "../../src/ingest/formats/deepeval-json.js";
import { scoreTestCase, type ScoreResult } from "../../src/scoring/score-test-case.js";
import { compareDeep } from "../helpers/compare.js";
import { REPO_ROOT } from "../helpers/shared.js";

const DIR = join(REPO_ROOT, "fixtures", "reference-vectors");

const HASHES: Record<string, string> = {
  "t160-0.3.wav": "52d1e30ae326e600",
  "t180-0.3.wav": "1344e3f7b2bac30f",
  "t190-0.3.wav": "7d1026ed6fdac105",
  "t165-0.3.wav": "aec4069e19e86d46",
  "t192-0.3.wav": "839f07c603de86d0",
  "t160-1.0.wav": "64699bfea5d151da",
  "t190-2.0.wav": "9ff8cf7d97852c8e",
  "t165-0.5.wav": "f64ba1b4801f38e7",
  "t192-1.0.wav": "eaae96512fe2dd9d",
  "s201.wav": "5fde7f3ac277f975",
  "saw1.wav": "2417ed82597aaa73",
  "saw075.wav": "fa3cc1e11b26e3f9",
  "tri.wav": "9dac45c855b45582",
  "z16.wav": "0c92bddb4e96f3ea",
};

function score(id: string, options: Parameters<typeof scoreTestCase>[1] = {}): ScoreResult {
  const parsed = loadDeepevalJsonFile(join(DIR, `${id}.json`), { compat: "deepeval" });
  return scoreTestCase(parsed[0].testCase!, { compat: "deepeval", ...options });
}

/** §8.2 per-clip measurements: [case, turn index, expected subset]. */
const MEASUREMENTS: Array<[string, number, Record<string, unknown>]> = [
  ["F", 1, { duration: 0.3, rms_dbfs: -18.16312405823833, silence_fraction: 0.0, longest_silence_ms: 0, dropout_events: 0, loop_events: 0, estimated_snr_db: 40.0, zero_crossing_rate: 0.04751979991663193, pitch_mean_hz: 191.0569105691057, pitch_variation_hz: 1.5364409471919798, starts_abruptly: true, ends_abruptly: true, clipping_fraction: 0.0 }],
  ["F", 3, { duration: 0.3, rms_dbfs: -18.163097805412743, silence_fraction: 0.0, dropout_events: 0, estimated_snr_db: 40.0, zero_crossing_rate: 0.04835348061692372, pitch_mean_hz: 193.37979094076655, pitch_variation_hz: 2.2491192486686495, starts_abruptly: true, ends_abruptly: true }],
  ["S", 1, { duration: 1.0, rms_dbfs: -15.844879773100873, silence_fraction: 0.1, longest_silence_ms: 100, dropout_events: 1, loop_events: 0, estimated_snr_db: 40.0, zero_crossing_rate: 0.02262641415088443, pitch_mean_hz: 200.0, pitch_variation_hz: 0.0, starts_abruptly: true, ends_abruptly: true }],
  ["W1", 1, { duration: 1.0, rms_dbfs: -23.03814291771524, silence_fraction: 0.0, dropout_events: 0, loop_events: 3, estimated_snr_db: 40.0, zero_crossing_rate: 0.019877484685585697, pitch_mean_hz: 80.0, pitch_variation_hz: 0.0, starts_abruptly: true, ends_abruptly: true }],
  ["W075", 1, { duration: 0.75, rms_dbfs: -23.03814291771524, loop_events: 2, zero_crossing_rate: 0.019836639439906652, pitch_mean_hz: 80.0, pitch_variation_hz: 0.0 }],
  ["Tr", 1, { duration: 2.0, rms_dbfs: -21.554514644198886, silence_fraction: 0.35, longest_silence_ms: 140, dropout_events: 4, loop_events: 0, estimated_snr_db: 32.255837891966415, zero_crossing_rate: 0.195524906768891, pitch_mean_hz: 133.99446541744612, pitch_variation_hz: 17.026565898289128, starts_abruptly: true, ends_abruptly: false }],
  ["Zc", 1, { duration: 1.0, rms_dbfs: -96.0, silence_fraction: 1.0, longest_silence_ms: 1000, dropout_events: 0, loop_events: 0, estimated_snr_db: 0.0, zero_crossing_rate: 0.0, pitch_mean_hz: null, pitch_variation_hz: null, starts_abruptly: false, ends_abruptly: false }],
];

/** §8.3 metric results: [case, metric, score, reason (null = not checked), options]. */
const RESULTS: Array<[string, string, number | null, string | null, Parameters<typeof scoreTestCase>[1]?]> = [
  ["F", "Voice Naturalness", 0.7000000000000001, "Assistant speech naturalness was 0.70 across 2 eligible turn(s)."],
  ["F", "Speech Intelligibility", 0.9868793637987539, "Assistant speech intelligibility was 0.99 across 2 eligible turn(s)."],
  ["F", "Voice Consistency", 0.9954087856738122, "Assistant voice consistency was 1.00 across 2 turns."],
  ["F", "Turn-Taking Naturalness", 0.9231163463866358, "Turn-taking naturalness was 0.92 across 3 speaker transition(s); timing is scored continuously rather than against a latency cutoff."],
  ["F", "Agent Responsiveness", 1.0, "The agent responded without requiring a reprompt."],
  ["F", "Audio Integrity", 0.76, "Audio integrity was 0.76; 2 defect event(s) were detected."],
  ["F", "Voice Reliability", 0.88, "Voice reliability was 0.88 (responsiveness=1.00, audio integrity=0.76)."],
  ["F", "Audio Integrity", 0.0, "Audio integrity was 0.76; 2 defect event(s) were detected.", { strict: true }],
  ["F", "Voice Naturalness", 0.0, "Assistant speech naturalness was 0.70 across 2 eligible turn(s).", { strict: true }],
  ["F", "Audio Integrity", 0.76, "Audio integrity was 0.76; 2 defect event(s) were detected.", { threshold: null }],
  ["U", "Voice Naturalness", null, "No decodable assistant audio was available to evaluate."],
  ["U", "Speech Intelligibility", null, "No decodable assistant audio was available to evaluate."],
  ["U", "Voice Consistency", null, "At least two decodable assistant audio turns are required to evaluate voice consistency."],
  ["U", "Turn-Taking Naturalness", null, "At least two timestamped audio turns are required to evaluate turn-taking."],
  ["U", "Agent Responsiveness", 0.0, "A critical responsiveness failure occurred: agent_failed_to_respond."],
  ["U", "Audio Integrity", 0.0, "A critical audio-integrity failure occurred: assistant_turn_missing."],
  ["U", "Voice Reliability", 0.0, "Voice reliability was 0 because at least one critical responsiveness or audio-integrity failure occurred."],
  ["N", "Voice Naturalness", null, "No decodable assistant audio was available to evaluate."],
  ["N", "Audio Integrity", 0.0, "A critical audio-integrity failure occurred: audio_undecodable."],
  ["N", "Agent Responsiveness", 1.0, null],
  ["N", "Voice Reliability", 0.0, null],
  ["X", "Audio Integrity", 0.0, "A critical audio-integrity failure occurred: audio_missing."],
  ["X", "Agent Responsiveness", 0.0, "A critical responsiveness failure occurred: assistant_audio_missing."],
  ["X", "Voice Reliability", 0.0, null],
  ["R", "Agent Responsiveness", 0.5, "Responsiveness was 0.50; 2 reprompt event(s) were detected."],
  ["R", "Voice Reliability", 0.69, "Voice reliability was 0.69 (responsiveness=0.50, audio integrity=0.88)."],
  ["Q", "Agent Responsiveness", 0.25, "Responsiveness was 0.25; 3 reprompt event(s) were detected."],
  ["Q", "Voice Reliability", 0.625, "Voice reliability was 0.62 (responsiveness=0.25, audio integrity=1.00)."],
  ["E", "Agent Responsiveness", 0.0, "A critical responsiveness failure occurred: unexpected_end."],
  ["Zc", "Voice Naturalness", 0.6000000000000001, "Assistant speech naturalness was 0.60 across 1 eligible turn(s)."],
  ["Zc", "Speech Intelligibility", 0.35, "Assistant speech intelligibility was 0.35 across 1 eligible turn(s)."],
  ["Zc", "Audio Integrity", 1.0, "No audio-integrity failures were detected."],
  ["Zc", "Agent Responsiveness", 1.0, null],
  ["Zc", "Voice Reliability", 1.0, "Voice reliability was 1.00 (responsiveness=1.00, audio integrity=1.00)."],
  ["H", "Audio Integrity", 0.0, "A critical audio-integrity failure occurred: audio_undecodable."],
  ["B8", "Audio Integrity", 0.0, "A critical audio-integrity failure occurred: audio_undecodable."],
  ["B", "Turn-Taking Naturalness", 0.7346873986206734, "Turn-taking naturalness was 0.73 across 3 speaker transition(s); timing is scored continuously rather than against a latency cutoff."],
  ["S", "Voice Naturalness", 0.62, "Assistant speech naturalness was 0.62 across 1 eligible turn(s)."],
  ["S", "Speech Intelligibility", 0.9523205698078635, "Assistant speech intelligibility was 0.95 across 1 eligible turn(s)."],
  ["S", "Audio Integrity", 0.8, "Audio integrity was 0.80; 2 defect event(s) were detected."],
  ["W1", "Audio Integrity", 0.0, "A critical audio-integrity failure occurred: abrupt_cutoff, audio_loop."],
  ["W1", "Voice Naturalness", 0.7000000000000001, null],
  ["W075", "Audio Integrity", 0.5800000000000001, "Audio integrity was 0.58; 2 defect event(s) were detected."],
  ["W075", "Voice Naturalness", 0.7000000000000001, null],
  ["Tr", "Voice Naturalness", 0.5838461538461539, "Assistant speech naturalness was 0.58 across 1 eligible turn(s)."],
  ["Tr", "Speech Intelligibility", 0.916896323970008, "Assistant speech intelligibility was 0.92 across 1 eligible turn(s)."],
  ["Tr", "Audio Integrity", 0.6799999999999999, "Audio integrity was 0.68; 1 defect event(s) were detected."],
];

describe("reference-vector signals (§8.1)", () => {
  const all = clips();
  for (const [name, hash] of Object.entries(HASHES)) {
    it(`${name} sample hash`, () => expect(sampleHash(all[name].samples)).toBe(hash));
  }
});

describe("reference-vector measurements (§8.2)", () => {
  for (const [id, index, exp] of MEASUREMENTS) {
    it(`${id} turn ${index}`, () => {
      const turn = score(id).turns.find((t) => t.index === index)!;
      const actual = Object.fromEntries(Object.keys(exp).map((k) => [k, (turn.measurements as unknown as Record<string, unknown>)[k]]));
      expect(compareDeep(actual, exp, "$", 1e-9, 1e-12)).toEqual([]);
    });
  }
});

describe("reference-vector metric results (§8.3)", () => {
  for (const [id, metric, expScore, expReason, options] of RESULTS) {
    const label = `${id} ${metric}${options ? ` ${JSON.stringify(options)}` : ""}`;
    it(label, () => {
      const r = score(id, options).metrics[metric];
      if (expScore === null) {
        expect(r.score).toBeNull();
        expect(r.skipped).toBe(true);
        expect(r.success).toBe(false);
      } else expect(Math.abs((r.score as number) - expScore)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expScore)));
      if (expReason !== null) expect(r.reason).toBe(expReason);
    });
  }

  it("strict mode fails and threshold null has no success value", () => {
    expect(score("F", { strict: true }).metrics["Audio Integrity"].success).toBe(false);
    expect(score("F", { threshold: null }).metrics["Audio Integrity"].success).toBeNull();
  });

  it("F turn-taking breakdown, B transitions, error reasons", () => {
    const f = score("F").metrics["Turn-Taking Naturalness"].score_breakdown as { transitions: Array<Record<string, unknown>> };
    expect(f.transitions.map((t) => [t.from_turn, t.to_turn, t.kind])).toEqual([[0, 1, "gap"], [1, 2, "gap"], [2, 3, "gap"]]);
    const b = score("B").metrics["Turn-Taking Naturalness"].score_breakdown as { transitions: Array<Record<string, number | string>> };
    expect(compareDeep(b.transitions.map((t) => [t.kind, t.gap_seconds, t.score]), [
      ["gap", 0.5, 0.8187307530779818],
      ["user_barge_in", -0.5, 0.7788007830714049],
      ["agent_overlap", -0.2999999999999998, 0.6065306597126336],
    ], "$", 1e-9)).toEqual([]);
    const n = score("N").metrics["Voice Naturalness"].score_breakdown;
    expect(n).toEqual({ turns: [{ turn: 1, error: "Audio is not a decodable PCM WAV." }] });
    const h = score("H").metrics["Audio Integrity"].score_breakdown as { events: Array<Record<string, unknown>> };
    expect(h.events[0].reason).toBe("Audio contains no decodable PCM samples.");
    const b8 = score("B8").metrics["Audio Integrity"].score_breakdown as { events: Array<Record<string, unknown>> };
    expect(b8.events[0].reason).toBe("Audio is not a decodable PCM WAV.");
    const e = score("E").metrics["Agent Responsiveness"].score_breakdown as { events: unknown[] };
    expect(e.events).toEqual([{ type: "unexpected_end", end_reason: "agent_hangup", critical: true }]);
    const w1 = score("W1").metrics["Audio Integrity"].score_breakdown as { events: Array<Record<string, unknown>> };
    expect(w1.events[1]).toEqual({ type: "audio_loop", turn: 1, count: 3, severity: 0.4, critical: true });
  });
});
