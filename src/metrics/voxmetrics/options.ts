// Every constant of the calibrated voxmetrics profile in one overridable options object: unit, default and source of each (a standard, a paper, or the validation suite in test/validation).
import { DEFAULT_INTEGRITY_OPTIONS, resolveIntegrityOptions, type IntegrityOptions } from "../../analysis/integrity.js";
import { VoxError } from "../../model/errors.js";

/**
 * A sub-score ramp: 1 on the good side of `good`, 0 beyond `bad`, linear in between (either
 * direction: good < bad for "less is better", good > bad for "more is better"); `floor` is the
 * score at and beyond `bad` (0 unless the evidence can only lower a score gently).
 */
export interface Ramp {
  good: number;
  bad: number;
  floor?: number;
}

/** The profile's options; defaults in DEFAULT_VOXMETRICS_PROFILE_OPTIONS. */
export interface VoxmetricsProfileOptions {
  /** The per-clip measurements (speech-only SNR, dropouts, repeats, truncation…), see IntegrityOptions. */
  measure: IntegrityOptions;
  /**
   * Intelligibility: speech-only WADA-SNR (dB). ANSI S3.5-1997 (SII) maps band SNR linearly from
   * −15 dB (inaudible) to +15 dB (fully audible); the validation places "bad" at 0 dB, where
   * speech in white or babble noise loses much of its intelligibility, and "good" at 12 dB, the
   * level clean human read speech reaches (LibriVox recordings read 11–14 dB).
   * @defaultValue { good: 12, bad: 0 }
   */
  snrDb: Ramp;
  /**
   * Intelligibility: integrated loudness of the turn (LUFS). EBU R 128 targets −23 LUFS; speech
   * 15 dB below that is still comfortable, 35 dB below is barely audible on a phone earpiece.
   * @defaultValue { good: -38, bad: -58 }
   */
  loudnessLufs: Ramp;
  /**
   * Intelligibility: upper band edge of the speech spectrum (Hz). Wideband (≥ 7 kHz, ITU-T G.722,
   * EN 301 549) is full credit; narrowband (edge ≤ 4 kHz, acoustics.md §5.3: G.711 telephony) keeps
   * 0.75 of it — band limiting lowers intelligibility gently, never to failure. Validation: μ-law
   * noise fills a narrowband spectrum up to 4 kHz, so the whole narrowband class scores alike.
   * @defaultValue { good: 7000, bad: 4000, floor: 0.75 }
   */
  bandEdgeHz: Ramp;
  /**
   * Intelligibility: fraction of the speech lost in dropouts. A few percent of short gaps are
   * restored by listeners (phonemic restoration, Warren 1970); with 15 % of the speech gone in
   * gaps, words are lost (validation: 35 % of 20 ms frames lost removes about 15–20 % of the speech
   * inside loud passages, which is what the detector counts).
   * @defaultValue { good: 0.04, bad: 0.15 }
   */
  lostFraction: Ramp;
  /**
   * Naturalness, intelligibility, integrity: fraction of speech samples in clipping runs.
   * @defaultValue { good: 0.001, bad: 0.05 }
   */
  clippedFraction: Ramp;
  /**
   * Naturalness and integrity: dropouts per second of speech (per s). Validation: clean human and
   * TTS speech has none; one every two seconds is already a broken stream.
   * @defaultValue { good: 0, bad: 0.6 }
   */
  dropoutRatePerS: Ramp;
  /**
   * Naturalness and integrity: repeated speech per turn (s): one 0.4 s loop costs about 0.4.
   * @defaultValue { good: 0, bad: 1 }
   */
  repeatedS: Ramp;
  /**
   * Integrity: score factor of a turn whose speech is cut off at the end (no decay).
   * @defaultValue 0.7
   */
  truncatedFactor: number;
  /**
   * Reliability: repeats in one turn that make the agent a looping agent (a critical failure).
   * @defaultValue 2
   */
  loopCriticalCount: number;
  /**
   * Consistency: population standard deviation of the turns' speech levels (dB). Validation: a
   * human speaker's read utterances spread up to about 2 dB, and band-limiting or loops move a
   * turn's level by up to 0.6 dB more.
   * @defaultValue { good: 2.5, bad: 6 }
   */
  levelSpreadDb: Ramp;
  /**
   * Consistency: population standard deviation of the turns' median pitch (semitones).
   * acoustics.md §6.3 flags a voice switch at a 2–3 semitone median jump.
   * @defaultValue { good: 1.5, bad: 4 }
   */
  pitchSpreadSt: Ramp;
  /**
   * Consistency: population standard deviation of the turns' speech band edges (octaves): a voice
   * or channel switch between a wideband and a narrowband voice moves the edge by an octave
   * (acoustics.md §6.3, long-term spectrum family). Validation: clean voices spread ≤ 0.07 octave.
   * @defaultValue { good: 0.15, bad: 0.6 }
   */
  bandEdgeSpreadOct: Ramp;
  /**
   * Consistency: a turn's median pitch enters the pitch spread only when its speech-only SNR is at
   * least this (dB): below it the tracker locks onto the noise (other talkers in babble).
   * Validation: at 0 dB babble the tracked pitch jumps to the babble's talkers.
   * @defaultValue 10
   */
  pitchMinSnrDb: number;
  /**
   * Turn-taking: EVA's latency curve (ms), acoustics.md §7.3: 0 at ≤ −500 ms, rising to 1 at
   * sweetLowMs, 1 up to sweetHighMs, falling to 0 at hardLateMs.
   * @defaultValue { sweetLowMs: 500, sweetHighMs: 2000, hardLateMs: 3500 }
   */
  latencyCurveMs: { sweetLowMs: number; sweetHighMs: number; hardLateMs: number };
  /**
   * Turn-taking: EVA's early and late latency bounds (ms) of the early / on-time / late rates.
   * @defaultValue { earlyMs: 200, lateMs: 2750 }
   */
  latencyRatesMs: { earlyMs: number; lateMs: number };
  /**
   * Turn-taking: overlap (and yield) time at which EVA's overlap / yield score reaches 0 (ms).
   * @defaultValue 2000
   */
  overlapSpanMs: number;
  /**
   * Responsiveness: penalty per user reprompt (deepeval's rule, voice-metrics.md §5.5).
   * @defaultValue 0.25
   */
  repromptPenalty: number;
  /**
   * Responsiveness: penalty of a silent agent turn nobody was waiting for (a silent turn after a
   * caller turn that owes a reply is a critical failure).
   * @defaultValue 0.5
   */
  silentTurnPenalty: number;
  /**
   * Reliability: weights of responsiveness and integrity (deepeval's 0.5 / 0.5, §5.7).
   * @defaultValue { responsiveness: 0.5, integrity: 0.5 }
   */
  reliabilityWeights: { responsiveness: number; integrity: number };
}

/** Every constant of the voxmetrics profile (bands, weights, limits) with its documented default; override any of them through `profileOptions`. */
export const DEFAULT_VOXMETRICS_PROFILE_OPTIONS: Readonly<VoxmetricsProfileOptions> = Object.freeze({
  measure: DEFAULT_INTEGRITY_OPTIONS,
  snrDb: Object.freeze({ good: 12, bad: 0 }),
  loudnessLufs: Object.freeze({ good: -38, bad: -58 }),
  bandEdgeHz: Object.freeze({ good: 7000, bad: 4000, floor: 0.75 }),
  lostFraction: Object.freeze({ good: 0.04, bad: 0.15 }),
  clippedFraction: Object.freeze({ good: 0.001, bad: 0.05 }),
  dropoutRatePerS: Object.freeze({ good: 0, bad: 0.6 }),
  repeatedS: Object.freeze({ good: 0, bad: 1 }),
  truncatedFactor: 0.7,
  loopCriticalCount: 2,
  levelSpreadDb: Object.freeze({ good: 2.5, bad: 6 }),
  pitchSpreadSt: Object.freeze({ good: 1.5, bad: 4 }),
  bandEdgeSpreadOct: Object.freeze({ good: 0.15, bad: 0.6 }),
  pitchMinSnrDb: 10,
  latencyCurveMs: Object.freeze({ sweetLowMs: 500, sweetHighMs: 2000, hardLateMs: 3500 }),
  latencyRatesMs: Object.freeze({ earlyMs: 200, lateMs: 2750 }),
  overlapSpanMs: 2000,
  repromptPenalty: 0.25,
  silentTurnPenalty: 0.5,
  reliabilityWeights: Object.freeze({ responsiveness: 0.5, integrity: 0.5 }),
} satisfies VoxmetricsProfileOptions);

/** A partial override: any field, ramps and nested objects field by field. */
export type VoxmetricsProfileOptionsInput = {
  [K in keyof VoxmetricsProfileOptions]?: VoxmetricsProfileOptions[K] extends number ? number : Partial<VoxmetricsProfileOptions[K]>;
};

const RAMPS = ["snrDb", "loudnessLufs", "bandEdgeHz", "lostFraction", "clippedFraction", "dropoutRatePerS", "repeatedS", "levelSpreadDb", "pitchSpreadSt", "bandEdgeSpreadOct"] as const;

function bad(field: string, detail: string): never {
  throw new VoxError("INVALID_OPTION", `profile option ${field} ${detail}`, { field: `profile.${field}` });
}

function finite(field: string, v: unknown, min = -Infinity): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min) bad(field, `must be a finite number${min > -Infinity ? ` ≥ ${min}` : ""}, got ${String(v)}`);
  return v as number;
}

/** Defaults overlaid with `input` (nested objects merged field by field), validated: an INVALID_OPTION names the field. */
export function resolveVoxmetricsProfileOptions(input: VoxmetricsProfileOptionsInput = {}): VoxmetricsProfileOptions {
  const d = DEFAULT_VOXMETRICS_PROFILE_OPTIONS;
  for (const key of Object.keys(input)) if (!(key in d)) bad(key, "is unknown");
  let measure: IntegrityOptions;
  try {
    measure = resolveIntegrityOptions(input.measure ?? {});
  } catch (e) {
    bad("measure", (e as Error).message);
  }
  const o = { ...d, measure: measure! } as VoxmetricsProfileOptions;
  for (const key of RAMPS) {
    const r = { ...d[key], ...(input[key] ?? {}) } as Ramp;
    finite(`${key}.good`, r.good);
    finite(`${key}.bad`, r.bad);
    if (r.good === r.bad) bad(key, "needs good ≠ bad");
    if (r.floor !== undefined && (finite(`${key}.floor`, r.floor, 0) > 1)) bad(`${key}.floor`, "must be in [0, 1]");
    (o as unknown as Record<string, Ramp>)[key] = Object.freeze(r);
  }
  for (const key of ["truncatedFactor", "repromptPenalty", "silentTurnPenalty"] as const) {
    if (input[key] !== undefined && finite(key, input[key], 0) > 1) bad(key, "must be in [0, 1]");
    o[key] = input[key] ?? d[key];
  }
  if (input.pitchMinSnrDb !== undefined) finite("pitchMinSnrDb", input.pitchMinSnrDb);
  o.pitchMinSnrDb = input.pitchMinSnrDb ?? d.pitchMinSnrDb;
  for (const key of ["loopCriticalCount", "overlapSpanMs"] as const) {
    if (input[key] !== undefined) finite(key, input[key], 1);
    o[key] = input[key] ?? d[key];
  }
  const curve = { ...d.latencyCurveMs, ...(input.latencyCurveMs ?? {}) };
  Object.entries(curve).forEach(([k, v]) => finite(`latencyCurveMs.${k}`, v));
  if (!(curve.sweetLowMs > -500 && curve.sweetLowMs <= curve.sweetHighMs && curve.sweetHighMs < curve.hardLateMs)) {
    bad("latencyCurveMs", "needs −500 < sweetLowMs ≤ sweetHighMs < hardLateMs");
  }
  o.latencyCurveMs = Object.freeze(curve);
  const rates = { ...d.latencyRatesMs, ...(input.latencyRatesMs ?? {}) };
  Object.entries(rates).forEach(([k, v]) => finite(`latencyRatesMs.${k}`, v));
  o.latencyRatesMs = Object.freeze(rates);
  const weights = { ...d.reliabilityWeights, ...(input.reliabilityWeights ?? {}) };
  Object.entries(weights).forEach(([k, v]) => finite(`reliabilityWeights.${k}`, v, 0));
  o.reliabilityWeights = Object.freeze(weights);
  return Object.freeze(o);
}

/** Where a value fell on a ramp. */
export type Band = "good" | "degraded" | "bad";

/** One piece of evidence: the measured value and unit, the band it fell in, its sub-score. */
export interface Evidence {
  value: number | null;
  unit: string;
  band: Band | "n/a";
  score: number;
}

/** The sub-score of `value` on `ramp`, with its band; null values score 1 with band "n/a" (no evidence against). */
export function rate(value: number | null, ramp: Ramp, unit: string): Evidence {
  if (value === null || !Number.isFinite(value)) return { value, unit, band: "n/a", score: 1 };
  const floor = ramp.floor ?? 0;
  const t = (value - ramp.good) / (ramp.bad - ramp.good);
  if (t <= 0) return { value, unit, band: "good", score: 1 };
  if (t >= 1) return { value, unit, band: "bad", score: floor };
  return { value, unit, band: "degraded", score: 1 - (1 - floor) * t };
}
