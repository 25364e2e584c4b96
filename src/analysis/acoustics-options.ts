// Every option of the standards set (the `acoustics` block, acoustics.md): its unit, default and allowed range, in one place.

/** Every option of the standards set, with its unit; defaults in DEFAULT_ACOUSTICS_OPTIONS. */
export interface AcousticsOptions {
  /**
   * Signal used for everything except loudness when there are several channels.
   * @defaultValue "mean"
   */
  mixdown: "mean" | "first";
  /**
   * BS.1770 channel weights G_i; null = from the channel count (5.0/5.1 surrounds 1.41, LFE 0, else 1).
   * @defaultValue null
   */
  channelWeights: readonly number[] | null;
  /**
   * Measure sample and true peak (BS.1770-5 Annex 2); off leaves both null.
   * @defaultValue true
   */
  truePeak: boolean;
  /**
   * VAD: percentile of the frame levels taken as the speech peak P (%).
   * @defaultValue 99
   */
  vadPeakPercentile: number;
  /**
   * VAD: percentile of the frame levels in the noise window taken as the noise floor N (%).
   * @defaultValue 10
   */
  vadNoisePercentile: number;
  /**
   * VAD: length of the centred noise-floor window (s); the whole clip when shorter.
   * @defaultValue 10
   */
  vadNoiseWindowS: number;
  /**
   * VAD: speech starts above max(N + this, P − vadEnterBelowPeakDb) (dB).
   * @defaultValue 12
   */
  vadEnterAboveNoiseDb: number;
  /**
   * VAD: see vadEnterAboveNoiseDb (dB).
   * @defaultValue 35
   */
  vadEnterBelowPeakDb: number;
  /**
   * VAD: speech continues while the level stays above the entry threshold minus this (dB).
   * @defaultValue 6
   */
  vadStayBelowEnterDb: number;
  /**
   * VAD: dips shorter than this (s) do not end a segment; segment ends are not padded by it.
   * @defaultValue 0.2
   */
  vadHangoverS: number;
  /**
   * VAD clean-up: gaps shorter than this (s) are filled.
   * @defaultValue 0.1
   */
  vadMinGapS: number;
  /**
   * VAD clean-up: speech bursts shorter than this (s) are dropped.
   * @defaultValue 0.1
   */
  vadMinSpeechS: number;
  /**
   * Shortest silence between two speech segments counted as a pause (s).
   * @defaultValue 0.25
   */
  minPauseS: number;
  /**
   * Syllables: pitch floor of the intensity contour, window 3.2/floor, step 0.8/floor (Hz).
   * @defaultValue 50
   */
  syllableIntensityFloorHz: number;
  /**
   * Syllables: peak threshold below the 99th-percentile intensity (dB).
   * @defaultValue 25
   */
  syllableThresholdBelowPeakDb: number;
  /**
   * Syllables: minimum dip on both sides of a peak (dB).
   * @defaultValue 2
   */
  syllableMinDipDb: number;
  /**
   * Syllables: a peak is voiced when YIN's aperiodicity d′ is at most this. Praat's voicing threshold
   * 0.25 is an autocorrelation strength r (d′ ≈ 1 − r), so acoustics.md §3.2's literal d′ ≤ 0.25 is far
   * stricter than de Jong & Wempe's check: on espeak-ng speech at 100–350 wpm it rejected up to 45 % of
   * the nuclei at 350 wpm, while 0.5 keeps every rate within 13 % of the known syllable count.
   * @defaultValue 0.5
   */
  syllableVoicingThreshold: number;
  /**
   * Syllables: pitch floor of the voicing check (Hz).
   * @defaultValue 30
   */
  syllableVoicingFloorHz: number;
  /**
   * Syllables: pitch ceiling of the voicing check (Hz).
   * @defaultValue 450
   */
  syllableVoicingCeilingHz: number;
  /**
   * Syllables: sounding intervals merge VAD speech across gaps shorter than this (s).
   * @defaultValue 0.3
   */
  syllableMinPauseS: number;
  /**
   * Pitch: lowest F0 searched (Hz).
   * @defaultValue 60
   */
  pitchMinHz: number;
  /**
   * Pitch: highest F0 searched (Hz).
   * @defaultValue 400
   */
  pitchMaxHz: number;
  /**
   * Pitch: YIN integration window W (s).
   * @defaultValue 0.025
   */
  pitchWindowS: number;
  /**
   * Pitch: frame hop (s).
   * @defaultValue 0.01
   */
  pitchHopS: number;
  /**
   * Pitch: YIN absolute threshold.
   * @defaultValue 0.1
   */
  pitchThreshold: number;
  /**
   * Pitch: a speech frame is voiced when d′(τ*) is at most this (2 × threshold).
   * @defaultValue 0.2
   */
  pitchVoicedMaxAperiodicity: number;
  /**
   * Clipping level (dBFS): samples with |x| at or above it count (Netflix's −0.45 dBFS; acoustics.md §4 uses |x| ≥ 0.999 ≈ −0.009 dBFS).
   * @defaultValue -0.45
   */
  clipLevelDbfs: number;
  /**
   * Shortest clipping run (samples) counted as an event above 8 kHz.
   * @defaultValue 3
   */
  clipMinRunSamples: number;
  /**
   * Shortest clipping run (samples) at 8 kHz and below.
   * @defaultValue 2
   */
  clipMinRunNarrowbandSamples: number;
  /**
   * Bandwidth: the band edge is the highest frequency within this of the 300–3000 Hz median level (dB).
   * @defaultValue 35
   */
  bandwidthFloorDb: number;
}

/** Defaults of every acoustics option (acoustics.md §1–§6 and the clipping level). */
export const DEFAULT_ACOUSTICS_OPTIONS: Readonly<AcousticsOptions> = Object.freeze({
  mixdown: "mean",
  channelWeights: null,
  truePeak: true,
  vadPeakPercentile: 99,
  vadNoisePercentile: 10,
  vadNoiseWindowS: 10,
  vadEnterAboveNoiseDb: 12,
  vadEnterBelowPeakDb: 35,
  vadStayBelowEnterDb: 6,
  vadHangoverS: 0.2,
  vadMinGapS: 0.1,
  vadMinSpeechS: 0.1,
  minPauseS: 0.25,
  syllableIntensityFloorHz: 50,
  syllableThresholdBelowPeakDb: 25,
  syllableMinDipDb: 2,
  syllableVoicingThreshold: 0.5,
  syllableVoicingFloorHz: 30,
  syllableVoicingCeilingHz: 450,
  syllableMinPauseS: 0.3,
  pitchMinHz: 60,
  pitchMaxHz: 400,
  pitchWindowS: 0.025,
  pitchHopS: 0.01,
  pitchThreshold: 0.1,
  pitchVoicedMaxAperiodicity: 0.2,
  clipLevelDbfs: -0.45,
  clipMinRunSamples: 3,
  clipMinRunNarrowbandSamples: 2,
  bandwidthFloorDb: 35,
} satisfies AcousticsOptions);

/** Allowed ranges of the numeric options: [min, max] inclusive. */
const RANGES: Partial<Record<keyof AcousticsOptions, [number, number]>> = {
  vadPeakPercentile: [50, 100],
  vadNoisePercentile: [0, 50],
  vadNoiseWindowS: [0.5, 600],
  vadEnterAboveNoiseDb: [0, 60],
  vadEnterBelowPeakDb: [0, 100],
  vadStayBelowEnterDb: [0, 40],
  vadHangoverS: [0, 5],
  vadMinGapS: [0, 5],
  vadMinSpeechS: [0, 5],
  minPauseS: [0, 60],
  syllableIntensityFloorHz: [20, 200],
  syllableThresholdBelowPeakDb: [0, 80],
  syllableMinDipDb: [0, 20],
  syllableVoicingThreshold: [0, 1],
  syllableVoicingFloorHz: [20, 200],
  syllableVoicingCeilingHz: [100, 1000],
  syllableMinPauseS: [0, 5],
  pitchMinHz: [20, 500],
  pitchMaxHz: [50, 1000],
  pitchWindowS: [0.005, 0.1],
  pitchHopS: [0.001, 0.1],
  pitchThreshold: [0, 1],
  pitchVoicedMaxAperiodicity: [0, 1],
  clipLevelDbfs: [-60, 0],
  clipMinRunSamples: [1, 1000],
  clipMinRunNarrowbandSamples: [1, 1000],
  bandwidthFloorDb: [5, 80],
};

/** Defaults overlaid with `partial`; throws a RangeError naming the field and its allowed range. */
export function resolveAcousticsOptions(partial: Partial<AcousticsOptions> = {}): AcousticsOptions {
  const o: AcousticsOptions = { ...DEFAULT_ACOUSTICS_OPTIONS };
  for (const [key, value] of Object.entries(partial) as [keyof AcousticsOptions, unknown][]) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_ACOUSTICS_OPTIONS)) throw new RangeError(`acoustics option ${key} is unknown`);
    (o as unknown as Record<string, unknown>)[key] = value;
  }
  for (const [key, [lo, hi]] of Object.entries(RANGES) as [keyof AcousticsOptions, [number, number]][]) {
    const v = o[key];
    if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi) {
      throw new RangeError(`acoustics option ${key} must be a number in [${lo}, ${hi}], got ${String(v)}`);
    }
  }
  if (o.mixdown !== "mean" && o.mixdown !== "first") throw new RangeError(`acoustics option mixdown must be "mean" or "first", got ${String(o.mixdown)}`);
  if (typeof o.truePeak !== "boolean") throw new RangeError("acoustics option truePeak must be a boolean");
  if (o.channelWeights !== null && (!Array.isArray(o.channelWeights) || o.channelWeights.some((w) => !(w >= 0)))) {
    throw new RangeError("acoustics option channelWeights must be null or an array of non-negative numbers");
  }
  if (o.pitchMinHz >= o.pitchMaxHz) throw new RangeError("acoustics option pitchMinHz must be below pitchMaxHz");
  if (o.syllableVoicingFloorHz >= o.syllableVoicingCeilingHz) throw new RangeError("acoustics option syllableVoicingFloorHz must be below syllableVoicingCeilingHz");
  return o;
}

