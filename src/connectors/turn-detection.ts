// Turn-detection presets of voice-metrics.md §L5: end-of-turn silence, hard cap and frame-gap timeout, same numbers for every protocol.
import { VoxError } from "../model/errors.js";
import { SILENCE_RMS } from "./frames.js";

/** deepeval's turn-detection presets. */
export type TurnDetectionPreset = "eager" | "balanced" | "patient";

/** deepeval's presets: end-of-turn silence (ms) and maximum turn length (s) of each. */
export const TURN_DETECTION_PRESETS: Readonly<Record<TurnDetectionPreset, Readonly<{ endOfTurnSilenceMs: number; maxTurnTimeoutS: number }>>> =
  Object.freeze({
    eager: Object.freeze({ endOfTurnSilenceMs: 500, maxTurnTimeoutS: 20 }),
    balanced: Object.freeze({ endOfTurnSilenceMs: 800, maxTurnTimeoutS: 30 }),
    patient: Object.freeze({ endOfTurnSilenceMs: 2500, maxTurnTimeoutS: 120 }),
  });

/** A preset name, or a preset with some numbers overridden. */
export interface TurnDetectionOptions {
  /**
   * The preset the other fields start from.
   * @defaultValue "balanced"
   */
  preset?: TurnDetectionPreset;
  /** Silence after the agent's last speech frame that ends its turn, in ms (preset: 500 / 800 / 2500). */
  endOfTurnSilenceMs?: number;
  /** Hard cap of one agent turn, in seconds, so a silent agent never hangs a run (preset: 20 / 30 / 120). */
  maxTurnTimeoutS?: number;
  /** Longest wait for the next frame once the agent has spoken, in seconds (default max(1, silence + 0.5)). */
  frameGapTimeoutS?: number;
  /**
   * A 20 ms frame below this RMS (int16 units) is silence.
   * @defaultValue 300
   */
  silenceThresholdRms?: number;
}

/** When the turn engine ends an agent turn: silence after speech, and a hard cap. */
export interface TurnDetection {
  preset: TurnDetectionPreset;
  endOfTurnSilenceMs: number;
  maxTurnTimeoutS: number;
  frameGapTimeoutS: number;
  silenceThresholdRms: number;
}

/** The default turn detection (the `balanced` preset). */
export const DEFAULT_TURN_DETECTION: Readonly<TurnDetection> = Object.freeze(resolveTurnDetection("balanced"));

function isPreset(v: unknown): v is TurnDetectionPreset {
  return v === "eager" || v === "balanced" || v === "patient";
}

/** Resolve a preset name or options; throws deepeval's message for an unknown preset. */
export function resolveTurnDetection(value: TurnDetectionPreset | TurnDetectionOptions | string = "balanced"): TurnDetection {
  const o: TurnDetectionOptions = typeof value === "string" ? { preset: value as TurnDetectionPreset } : value;
  const preset = o.preset ?? "balanced";
  if (!isPreset(preset)) {
    throw new VoxError("INVALID_OPTION", `Invalid turn_detection '${String(preset)}'; expected 'eager', 'balanced', or 'patient'.`, { field: "turn_detection" });
  }
  const base = TURN_DETECTION_PRESETS[preset];
  const endOfTurnSilenceMs = o.endOfTurnSilenceMs ?? base.endOfTurnSilenceMs;
  const maxTurnTimeoutS = o.maxTurnTimeoutS ?? base.maxTurnTimeoutS;
  const frameGapTimeoutS = o.frameGapTimeoutS ?? Math.max(1.0, endOfTurnSilenceMs / 1000 + 0.5);
  const silenceThresholdRms = o.silenceThresholdRms ?? SILENCE_RMS;
  const check = (field: string, v: number) => {
    if (!Number.isFinite(v) || v <= 0) throw new VoxError("INVALID_OPTION", `must be a positive number, got ${v}`, { field: `turn_detection.${field}` });
  };
  check("endOfTurnSilenceMs", endOfTurnSilenceMs);
  check("maxTurnTimeoutS", maxTurnTimeoutS);
  check("frameGapTimeoutS", frameGapTimeoutS);
  check("silenceThresholdRms", silenceThresholdRms);
  return { preset, endOfTurnSilenceMs, maxTurnTimeoutS, frameGapTimeoutS, silenceThresholdRms };
}
