// Generated results JSONL for the HTML report's scale tests and benchmark: result records shaped as `score --acoustics` writes them (all seven metrics with their breakdowns, acoustics per turn), seeded, with error and skipped records.
import { writeFileSync } from "node:fs";
import type { ResultRecord } from "../../src/scoring/record.js";
import { seededRandom } from "./random.js";

export interface GeneratedArchiveOptions {
  calls: number;
  seed?: number;
  /** Every n-th call is an error record (0: none). */
  errorEvery?: number;
  /** Turns per call (min, max). */
  turns?: [number, number];
  /** Add the acoustics block to every turn. */
  acoustics?: boolean;
}

const FORMATS = ["deepeval-json", "deepeval-jsonl", "dual-channel", "deepeval-sim-folder", "voicelive-output"] as const;

function metric(score: number | null, reason: string, breakdown: Record<string, unknown>, threshold = 0.5) {
  return { score, threshold, success: score === null ? null : score >= threshold, skipped: score === null, strict_mode: false, reason, score_breakdown: breakdown, error: null };
}

/** One generated call of `turnCount` turns alternating user / assistant with gaps, barge-ins and overlaps. */
export function generateCall(id: string, turnCount: number, rnd: () => number, acoustics: boolean, format: string = FORMATS[0]): ResultRecord {
  const turns: NonNullable<ResultRecord["turns"]> = [];
  let t = 0;
  for (let i = 0; i < turnCount; i++) {
    const role = i % 2 === 0 ? "user" : "assistant";
    const duration = 0.8 + rnd() * 4;
    // Mostly gaps; some barge-ins and agent overlaps (negative gaps).
    const gap = rnd() < 0.12 ? -0.2 - rnd() * 0.6 : 0.2 + rnd() * 1.4;
    const start = i === 0 ? 0 : Math.max(0, t + gap);
    t = start + duration;
    const turn: NonNullable<ResultRecord["turns"]>[number] = {
      index: i,
      role,
      start_time: start,
      duration,
      measurements: {
        duration, rms_dbfs: -18 - rnd() * 8, clipping_fraction: 0, silence_fraction: rnd() * 0.4, longest_silence_ms: 100 + rnd() * 400,
        dropout_events: Math.floor(rnd() * 4), loop_events: 0, estimated_snr_db: 30 + rnd() * 40, zero_crossing_rate: 0.1 + rnd() * 0.2,
        pitch_mean_hz: 90 + rnd() * 120, pitch_variation_hz: 20 + rnd() * 80, starts_abruptly: false, ends_abruptly: rnd() < 0.2,
      },
    };
    if (acoustics) {
      const s1 = duration * (0.3 + rnd() * 0.2);
      turn.acoustics = {
        integrated_lufs: -20 - rnd() * 6, momentary_max_lufs: -16 - rnd() * 4, short_term_max_lufs: null, lra_lu: null, sample_peak_dbfs: -1 - rnd() * 3,
        true_peak_dbtp: -0.8 - rnd() * 3, speech_ratio: 0.6 + rnd() * 0.4,
        speech_segments: [[0, s1], [s1 + 0.25, duration]],
        pauses: { count: 1, total_s: 0.25, mean_s: 0.25, p50_s: 0.25, p95_s: 0.25, longest_s: 0.25, per_minute: 60 / duration },
        syllables_per_s: 3 + rnd() * 2, articulation_rate: 3.5 + rnd() * 2, words_per_minute: null, wada_snr_db: 20 + rnd() * 30,
        dc_offset: 0.0001, clipping_runs: 0, bandwidth: "wideband",
        pitch: { mean_hz: 110 + rnd() * 60, median_hz: 108 + rnd() * 60, std_semitones: 2, range_semitones: 8, voiced_fraction: 0.5 },
      };
    }
    turns.push(turn);
  }
  const assistant = turns.filter((x) => x.role === "assistant");
  const nat = assistant.map((x, k) => ({ turn: k + 1, score: 0.5 + rnd() * 0.5, speaking_rate_wpm: 150 + rnd() * 80, silence_fraction: rnd() * 0.4, pitch_variation_hz: 30 + rnd() * 70, clipping_fraction: 0, dropout_events: 1, loop_events: 0 }));
  const intel = assistant.map((x, k) => ({ turn: k + 1, score: 0.7 + rnd() * 0.3, estimated_snr_db: 40 + rnd() * 30, rms_dbfs: -20 - rnd() * 5, clipping_fraction: 0, dropout_events: 1 }));
  const cons = assistant.map((x) => ({ turn: x.index, rms_dbfs: -20 - rnd() * 5, pitch_mean_hz: 100 + rnd() * 60, zero_crossing_rate: 0.2 + rnd() * 0.1 }));
  const transitions = [];
  for (let k = 0; k + 1 < turns.length; k++) {
    const gap = turns[k + 1].start_time! - (turns[k].start_time! + turns[k].duration!);
    const kind = gap >= 0 ? "gap" : turns[k].role === "assistant" ? "user_barge_in" : "agent_overlap";
    transitions.push({ from_turn: k, to_turn: k + 1, kind, gap_seconds: gap, score: 0.4 + rnd() * 0.6 });
  }
  const events = assistant.filter(() => rnd() < 0.4).map((x) => ({ type: "audio_dropout", turn: x.index, count: 2, severity: 0.16, critical: false }));
  const integrity = Math.max(0, 1 - events.length * 0.16);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const skipTurnTaking = rnd() < 0.05;
  const natScore = mean(nat.map((x) => x.score));
  return {
    id,
    name: `generated ${id}`,
    source: { format: format as ResultRecord["source"]["format"], path: `generated/${id}.json` },
    status: "ok",
    error: null,
    metrics: {
      "Voice Naturalness": metric(natScore, `Assistant speech naturalness was ${natScore.toFixed(2)} across ${nat.length} eligible turn(s).`, { eligible_turns: nat.length, turns: nat }),
      "Speech Intelligibility": metric(mean(intel.map((x) => x.score)), `Assistant speech intelligibility was ${mean(intel.map((x) => x.score)).toFixed(2)} across ${intel.length} eligible turn(s).`, { eligible_turns: intel.length, turns: intel }),
      "Voice Consistency": metric(0.8 + rnd() * 0.2, "Assistant voice consistency was 0.90 across several turns.", { eligible_turns: cons.length, pitch_consistency: 0.9, loudness_consistency: 0.95, spectral_consistency: 0.88, turns: cons }),
      "Turn-Taking Naturalness": skipTurnTaking
        ? metric(null, "Turn-taking naturalness needs start_time on every turn with audio.", { missing_start_times: true })
        : metric(mean(transitions.map((x) => x.score)), `Turn-taking naturalness was ${mean(transitions.map((x) => x.score)).toFixed(2)} across ${transitions.length} speaker transition(s); timing is scored continuously rather than against a latency cutoff.`, { transitions }),
      "Agent Responsiveness": metric(1, "The agent responded without requiring a reprompt.", { critical_failure: false, events: [] }),
      "Audio Integrity": metric(integrity, `Audio integrity was ${integrity.toFixed(2)}; ${events.length} defect event(s) were detected.`, { critical_failure: false, events }),
      "Voice Reliability": metric((1 + integrity) / 2, `Voice reliability was ${((1 + integrity) / 2).toFixed(2)} (responsiveness=1.00, audio integrity=${integrity.toFixed(2)}).`, {
        critical_failure: false, responsiveness: { score: 1, critical_failure: false, events: [] }, audio_integrity: { score: integrity, critical_failure: false, events },
      }),
    },
    turns,
    elapsed_ms: 3 + rnd() * 5,
  } as ResultRecord;
}

/** Write a generated archive's results JSONL; returns the records' ids in file order. */
export function writeGeneratedResults(path: string, options: GeneratedArchiveOptions): string[] {
  const rnd = seededRandom(options.seed ?? 1);
  const [lo, hi] = options.turns ?? [6, 12];
  const lines: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < options.calls; i++) {
    const id = `call-${String(i).padStart(5, "0")}`;
    ids.push(id);
    const format = FORMATS[i % FORMATS.length];
    if (options.errorEvery && i % options.errorEvery === options.errorEvery - 1) {
      lines.push(JSON.stringify({ id, name: null, source: { format, path: `generated/${id}.json` }, status: "error", error: { code: "DECODE_ERROR", message: `generated/${id}.json: turns[1].audio: not a decodable PCM WAV` }, elapsed_ms: 0 }));
      continue;
    }
    lines.push(JSON.stringify(generateCall(id, lo + Math.floor(rnd() * (hi - lo + 1)), rnd, options.acoustics ?? true, format)));
  }
  writeFileSync(path, lines.join("\n") + "\n");
  return ids;
}
