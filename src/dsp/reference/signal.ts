// Readable float64 twins of the signal-quality kernels: one-pass sums, clipping runs and the Hann-windowed power spectrum (acoustics.md §4, §5).

export interface SignalStatsReference {
  sum: number;
  sumAbs: number;
  sumLn: number;
  clippingRuns: number;
  clippedSamples: number;
}

/** Σx, Σ|x|, Σ ln max(|x|, 1e−10), and runs of ≥ minRun samples with |x| ≥ clipLevel. */
export function signalStatsReference(x: ArrayLike<number>, clipLevel: number, minRun: number): SignalStatsReference {
  const r = { sum: 0, sumAbs: 0, sumLn: 0, clippingRuns: 0, clippedSamples: 0 };
  let run = 0;
  const close = () => {
    if (run >= minRun) { r.clippingRuns++; r.clippedSamples += run; }
    run = 0;
  };
  for (let i = 0; i < x.length; i++) {
    const a = Math.abs(x[i]);
    r.sum += x[i];
    r.sumAbs += a;
    r.sumLn += Math.log(Math.max(a, 1e-10));
    if (a >= clipLevel) run++;
    else close();
  }
  close();
  return r;
}

/** Σ over frames of |DFT(hann · x[start …])|², bins 0…N/2, by the direct DFT definition. */
export function powerSpectrumReference(x: ArrayLike<number>, starts: number[], fftSize: number): number[] {
  const power = new Array<number>(fftSize / 2 + 1).fill(0);
  for (const start of starts) {
    if (start < 0 || start + fftSize > x.length) continue;
    for (let k = 0; k <= fftSize / 2; k++) {
      let re = 0, im = 0;
      for (let i = 0; i < fftSize; i++) {
        const v = x[start + i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / fftSize));
        re += v * Math.cos((-2 * Math.PI * k * i) / fftSize);
        im += v * Math.sin((-2 * Math.PI * k * i) / fftSize);
      }
      power[k] += re * re + im * im;
    }
  }
  return power;
}
