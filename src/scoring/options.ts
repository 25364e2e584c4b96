// The options of scoring a call, resolved once: metrics, threshold, strict mode, audio acceptance (compat) and the standards set.
import { resolveAcousticsOptions, type AcousticsOptions } from "../analysis/acoustics-options.js";
import { DEFAULT_AUDIO_LIMITS, resolveAudioLimits, type AudioLimits } from "../audio/limits.js";
import { createMetrics, METRIC_PROFILES, resolveVoxmetricsProfileOptions, type MetricProfile, type VoxmetricsProfileOptions, type VoxmetricsProfileOptionsInput } from "../metrics/index.js";
import type { CompatMode } from "../model/codec.js";
import { VoxError } from "../model/errors.js";

/** Every option of scoring, resolved; defaults in DEFAULT_SCORE_OPTIONS. */
export interface ScoreOptions {
  /**
   * Metric names or ids (`naturalness`, `Voice Naturalness`…); all seven when empty.
   * @defaultValue [] (all seven)
   */
  metrics: readonly string[];
  /**
   * Pass mark of every metric (score units, 0–1); null = score-only mode.
   * @defaultValue 0.5
   */
  threshold: number | null;
  /**
   * Strict mode of every metric (a score below the threshold becomes 0).
   * @defaultValue false
   */
  strict: boolean;
  /**
   * Audio acceptance, for reading the call and for analysing its clips alike: `deepeval` accepts
   * exactly what deepeval accepts; `voxmetrics` anything decodable.
   * @defaultValue "voxmetrics"
   */
  compat: CompatMode;
  /**
   * The standards set per clip (the `acoustics` block) with these options; null leaves it out.
   * @defaultValue null
   */
  acoustics: AcousticsOptions | null;
  /**
   * Which metrics score the call: `deepeval` (deepeval's seven metrics, exactly) or `voxmetrics`
   * (the calibrated profile of the same seven, docs/voxmetrics-profile.md).
   * @defaultValue "deepeval"
   */
  profile: MetricProfile;
  /**
   * The voxmetrics profile's constants (DEFAULT_VOXMETRICS_PROFILE_OPTIONS overlaid with the caller's overrides).
   * @defaultValue DEFAULT_VOXMETRICS_PROFILE_OPTIONS
   */
  profileOptions: VoxmetricsProfileOptions;
  /**
   * The decoded-size budget of every file and clip of a call (`--max-audio-seconds`, `--max-channels`).
   * @defaultValue DEFAULT_AUDIO_LIMITS
   */
  limits: AudioLimits;
}

/** What a caller may give: any of the options; `acoustics` also as true (every default) or a partial set; `profileOptions` as overrides; `limits` partially. */
export type ScoreOptionsInput = Partial<Omit<ScoreOptions, "acoustics" | "profileOptions" | "limits">> & {
  acoustics?: boolean | Partial<AcousticsOptions> | null;
  profileOptions?: VoxmetricsProfileOptionsInput;
  limits?: Partial<AudioLimits>;
};

/** Defaults of scoring: all seven metrics, threshold 0.5, not strict, voxmetrics acceptance, no acoustics. */
export const DEFAULT_SCORE_OPTIONS: Readonly<ScoreOptions> = Object.freeze({
  metrics: Object.freeze([]) as readonly string[],
  threshold: 0.5,
  strict: false,
  compat: "voxmetrics",
  acoustics: null,
  profile: "deepeval",
  profileOptions: resolveVoxmetricsProfileOptions(),
  limits: DEFAULT_AUDIO_LIMITS,
} satisfies ScoreOptions);

const COMPAT_MODES: readonly CompatMode[] = ["voxmetrics", "deepeval"];

/** Defaults overlaid with `input`, validated: a VoxError (INVALID_OPTION) names the option and what it accepts. */
export function resolveScoreOptions(input: ScoreOptionsInput = {}): ScoreOptions {
  const o = { ...DEFAULT_SCORE_OPTIONS };
  const bad = (field: string, detail: string): never => {
    throw new VoxError("INVALID_OPTION", detail, { field });
  };
  if (input.metrics !== undefined) {
    if (!Array.isArray(input.metrics) || input.metrics.some((m) => typeof m !== "string")) bad("metrics", "must be a list of metric names or ids");
    createMetrics(input.metrics);
    o.metrics = Object.freeze([...input.metrics]);
  }
  if (input.threshold !== undefined) {
    if (input.threshold !== null && (typeof input.threshold !== "number" || !Number.isFinite(input.threshold) || input.threshold < 0 || input.threshold > 1)) {
      bad("threshold", `must be a number between 0 and 1, or null, got ${String(input.threshold)}`);
    }
    o.threshold = input.threshold;
  }
  if (input.strict !== undefined) {
    if (typeof input.strict !== "boolean") bad("strict", `must be true or false, got ${String(input.strict)}`);
    o.strict = input.strict;
  }
  if (input.compat !== undefined) {
    if (!COMPAT_MODES.includes(input.compat)) bad("compat", `must be one of ${COMPAT_MODES.join(", ")}, got ${String(input.compat)}`);
    o.compat = input.compat;
  }
  if (input.profile !== undefined) {
    if (!METRIC_PROFILES.includes(input.profile)) bad("profile", `must be one of ${METRIC_PROFILES.join(", ")}, got ${String(input.profile)}`);
    o.profile = input.profile;
  }
  if (input.profileOptions !== undefined) o.profileOptions = resolveVoxmetricsProfileOptions(input.profileOptions);
  const a = input.acoustics;
  if (a !== undefined && a !== null && a !== false) o.acoustics = resolveAcousticsOptions(a === true ? {} : a);
  if (input.limits !== undefined) o.limits = resolveAudioLimits(input.limits);
  return Object.freeze(o);
}
