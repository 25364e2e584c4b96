// Plain, serialisable measurement records shared by analysis, timeline, metrics and reports.

/** deepeval's `analyze_audio` result (voice-metrics.md §3.3); key order is normative. */
export interface ParityMeasurements {
  duration: number;
  rms_dbfs: number;
  clipping_fraction: number;
  silence_fraction: number;
  longest_silence_ms: number;
  dropout_events: number;
  loop_events: number;
  estimated_snr_db: number;
  zero_crossing_rate: number;
  pitch_mean_hz: number | null;
  pitch_variation_hz: number | null;
  starts_abruptly: boolean;
  ends_abruptly: boolean;
}

/** A clip that could not be decoded/measured; `error` is one of deepeval's exact strings (voice-metrics.md §2.4). */
export interface MeasurementError {
  error: string;
}

/** A clip's parity-set measurements, or deepeval's error when the clip could not be decoded. */
export type ClipMeasurements = ParityMeasurements | MeasurementError;

/** True when a clip's measurements are deepeval's decode error rather than values. */
export function isMeasurementError(m: ClipMeasurements): m is MeasurementError {
  return (m as MeasurementError).error !== undefined;
}
