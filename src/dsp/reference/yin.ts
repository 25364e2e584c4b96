// Readable float64 twin of the YIN kernel (de Cheveigné & Kawahara 2002, steps 1–4; acoustics.md §6.1).
import { applyBiquad } from "./loudness.js";

export interface YinFrameReference {
  period: number;
  aperiodicity: number;
}

/** YIN on x[start …]: window W, lags τmin…τmax, absolute threshold; period 0 / aperiodicity 1 when the frame does not fit. */
export function yinFrameReference(x: ArrayLike<number>, start: number, window: number, tauMin: number, tauMax: number, threshold: number): YinFrameReference {
  if (start < 0 || start + window + tauMax > x.length) return { period: 0, aperiodicity: 1 };
  // Step 1: d(τ) = Σ_{j<W} (x_j − x_{j+τ})².
  const d = (tau: number) => {
    let s = 0;
    for (let j = 0; j < window; j++) s += (x[start + j] - x[start + j + tau]) ** 2;
    return s;
  };
  // Step 2: d′(τ) = d(τ)·τ / Σ_{j=1}^{τ} d(j), d′(0) = 1.
  const dn = [1];
  let running = 0;
  for (let tau = 1; tau <= tauMax; tau++) {
    const v = d(tau);
    running += v;
    dn.push(running > 0 ? (v * tau) / running : 1);
  }
  // Step 3: first τ below the threshold, then down to its local minimum; else the global minimum.
  let best = -1;
  for (let tau = tauMin; tau <= tauMax && best < 0; tau++) {
    if (dn[tau] < threshold) {
      while (tau < tauMax && dn[tau + 1] < dn[tau]) tau++;
      best = tau;
    }
  }
  if (best < 0) {
    best = tauMin;
    for (let tau = tauMin + 1; tau <= tauMax; tau++) if (dn[tau] < dn[best]) best = tau;
  }
  // Step 4: parabolic interpolation.
  let shift = 0;
  if (best < tauMax) {
    const curvature = dn[best - 1] - 2 * dn[best] + dn[best + 1];
    if (curvature > 0) shift = Math.max(-1, Math.min(1, (0.5 * (dn[best - 1] - dn[best + 1])) / curvature));
  }
  return { period: best + shift, aperiodicity: dn[best] };
}

/** 4th-order Butterworth low pass (poles Q = 1/(2cos(π/8)), 1/(2cos(3π/8)), bilinear) then every factor-th sample. */
export function decimateReference(x: ArrayLike<number>, sampleRate: number, cutoffHz: number, factor: number): number[] {
  const k = Math.tan((Math.PI * cutoffHz) / sampleRate);
  let y: ArrayLike<number> = x;
  for (const q of [1 / (2 * Math.cos(Math.PI / 8)), 1 / (2 * Math.cos((3 * Math.PI) / 8))]) {
    const norm = 1 / (1 + k / q + k * k);
    y = applyBiquad(y, [k * k * norm, 2 * k * k * norm, k * k * norm, 2 * (k * k - 1) * norm, (1 - k / q + k * k) * norm]);
  }
  const out: number[] = [];
  for (let i = 0; i < x.length; i += factor) out.push(y[i]);
  return out;
}
