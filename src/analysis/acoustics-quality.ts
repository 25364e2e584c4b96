// Signal quality: WADA-SNR, DC offset, clipping runs and the effective-bandwidth class (acoustics.md §4, §5.1, §5.3).
//
// WADA-SNR runs on the whole clip: a clip is speech plus its pauses, which is what the statistic
// needs. Clean synthetic speech with digitally silent pauses saturates at the table's +100 dB.
import type { ChannelKernels, SignalStats } from "../dsp/channel-kernels.js";
import { WADA_SNR_MIN_DB, WADA_TABLE } from "../dsp/wada-table.js";
import type { Segment } from "./acoustics-activity.js";
import { percentile } from "./percentile.js";

/** Bandwidth classes of §5.3 (upper edge ≤ 4, 8, 16 kHz, else fullband). */
export type BandwidthClass = "narrowband" | "wideband" | "super-wideband" | "fullband";

/** Spectrum frames: ≈ 32 ms (512 points at 16 kHz), at most this many spread over the speech. */
const SPECTRUM_FRAME_S = 0.032;
const MAX_SPECTRUM_FRAMES = 2000;
/** Half-width of the moving average that smooths the long-term spectrum (Hz). */
const SPECTRUM_SMOOTHING_HZ = 150;
const REFERENCE_BAND_HZ: [number, number] = [300, 3000];

/** SNR (dB) for the WADA statistic G by linear interpolation in the table, clamped to its ends. */
export function wadaSnrFromStatistic(g: number): number {
  const t = WADA_TABLE;
  if (g <= t[0]) return WADA_SNR_MIN_DB;
  if (g >= t[t.length - 1]) return WADA_SNR_MIN_DB + t.length - 1;
  let i = 0;
  while (t[i + 1] < g) i++;
  return WADA_SNR_MIN_DB + i + (g - t[i]) / (t[i + 1] - t[i]);
}

/** WADA-SNR (dB) from the one-pass sums: G = ln(mean|x|) − mean(ln|x|); null for an empty or silent clip. */
export function wadaSnrDb(stats: SignalStats, n: number): number | null {
  if (n === 0 || stats.sumAbs <= 0) return null;
  return wadaSnrFromStatistic(Math.log(stats.sumAbs / n) - stats.sumLn / n);
}

/** Class of an upper band edge (Hz). */
export function classifyBandwidth(edgeHz: number): BandwidthClass {
  if (edgeHz <= 4000) return "narrowband";
  if (edgeHz <= 8000) return "wideband";
  if (edgeHz <= 16000) return "super-wideband";
  return "fullband";
}

/** The spectrum frames of the band-edge measure: FFT size and frame starts (≤ 2000, spread over the speech); null without speech frames. */
export function planBandEdge(length: number, sampleRate: number, speech: Segment[]): { fftSize: number; starts: Int32Array } | null {
  const fs = sampleRate;
  let fftSize = 1;
  while (fftSize < SPECTRUM_FRAME_S * fs) fftSize *= 2;
  // Every whole frame inside speech, walked twice (counted, then the chosen ones kept) rather than held: 4 h of speech at 48 kHz holds 300,000.
  const eachStart = (use: (at: number) => void) => {
    for (const [s, e] of speech) {
      for (let at = Math.round(s * fs); at + fftSize <= Math.min(length, Math.round(e * fs)); at += fftSize) use(at);
    }
  };
  let count = 0;
  eachStart(() => count++);
  if (!count) return null;
  const stride = Math.max(1, count / MAX_SPECTRUM_FRAMES);
  const chosen = new Int32Array(Math.min(count, MAX_SPECTRUM_FRAMES));
  // Frame j is chosen as the i-th when j = ⌊i·stride⌋ (strictly increasing in i, as stride ≥ 1).
  let i = 0, j = 0;
  eachStart((at) => {
    while (i < chosen.length && Math.floor(i * stride) === j) chosen[i++] = at;
    j++;
  });
  return { fftSize, starts: chosen };
}

/** The band edge (Hz) from the summed power spectra (N/2 + 1 bins) of the planned frames. */
export function bandEdgeFromPower(power: Float64Array, sampleRate: number, fftSize: number, floorDb: number): number | null {
  const binHz = sampleRate / fftSize;
  const half = Math.max(1, Math.round(SPECTRUM_SMOOTHING_HZ / binHz));
  const smoothedDb = new Float64Array(power.length);
  for (let k = 0; k < power.length; k++) {
    let sum = 0, count = 0;
    for (let j = Math.max(0, k - half); j <= Math.min(power.length - 1, k + half); j++) { sum += power[j]; count++; }
    smoothedDb[k] = 10 * Math.log10(sum / count + 1e-30);
  }
  const reference: number[] = [];
  for (let k = 0; k < power.length; k++) {
    const f = k * binHz;
    if (f >= REFERENCE_BAND_HZ[0] && f <= REFERENCE_BAND_HZ[1]) reference.push(smoothedDb[k]);
  }
  if (!reference.length) return null;
  const floor = percentile(reference.sort((a, b) => a - b), 50)! - floorDb;
  for (let k = power.length - 1; k >= 0; k--) if (smoothedDb[k] >= floor) return k * binHz;
  return 0;
}

/**
 * Highest frequency (Hz) where the smoothed long-term speech spectrum stays within `floorDb` of the
 * 300–3000 Hz median level; null without speech.
 */
export function measureBandEdgeHz(ch: ChannelKernels, speech: Segment[], floorDb: number): number | null {
  const plan = planBandEdge(ch.length, ch.sampleRate, speech);
  if (!plan) return null;
  const { power } = ch.spectrum(plan.starts, plan.fftSize);
  return bandEdgeFromPower(power, ch.sampleRate, plan.fftSize, floorDb);
}
