// Readable float64 twin of the activity kernel: Butterworth band-pass and 20 ms / 10 ms frame levels (acoustics.md §2.3).
import { applyBiquad, type Biquad } from "./loudness.js";

/** 2nd-order Butterworth high pass or low pass at `cutoffHz` (bilinear transform, Q = 1/√2). */
export function butterworth2(kind: "highpass" | "lowpass", cutoffHz: number, sampleRate: number): Biquad {
  const k = Math.tan((Math.PI * cutoffHz) / sampleRate);
  const q = Math.SQRT1_2;
  const norm = 1 / (1 + k / q + k * k);
  const a1 = 2 * (k * k - 1) * norm, a2 = (1 - k / q + k * k) * norm;
  return kind === "highpass" ? [norm, -2 * norm, norm, a1, a2] : [k * k * norm, 2 * k * k * norm, k * k * norm, a1, a2];
}

/** Band-pass 100–3800 Hz (fs ≤ 8 kHz) or 80 Hz–min(7 kHz, 0.45·fs), then L_i = 10·log10(mean square + 1e−12) of frame i = 10 ms sub-blocks i and i+1. */
export function activityLevelsReference(x: ArrayLike<number>, sampleRate: number): number[] {
  const low = sampleRate <= 8000 ? 100 : 80;
  const high = sampleRate <= 8000 ? 3800 : Math.min(7000, 0.45 * sampleRate);
  const y = applyBiquad(applyBiquad(x, butterworth2("highpass", low, sampleRate)), butterworth2("lowpass", high, sampleRate));
  const boundary = (k: number) => Math.floor((k * sampleRate) / 100);
  const levels: number[] = [];
  for (let i = 0; boundary(i + 2) <= x.length; i++) {
    let sum = 0;
    for (let j = boundary(i); j < boundary(i + 2); j++) sum += y[j] * y[j];
    levels.push(10 * Math.log10(sum / (boundary(i + 2) - boundary(i)) + 1e-12));
  }
  return levels;
}
