// Readable float64 twin of the true-peak kernel: BS.1770-5 Annex 2 polyphase interpolation (acoustics.md §1.6).

/** BS.1770-5 Annex 2 example filter, phase 0; phase 3 is its reverse. */
const PHASE_0 = [
  0.001708984375, 0.010986328125, -0.0196533203125, 0.033203125, -0.0594482421875, 0.1373291015625,
  0.97216796875, -0.102294921875, 0.047607421875, -0.026611328125, 0.014892578125, -0.00830078125,
];
/** Phase 1; phase 2 is its reverse. */
const PHASE_1 = [
  -0.0291748046875, 0.029296875, -0.0517578125, 0.089111328125, -0.16650390625, 0.465087890625,
  0.77978515625, -0.2003173828125, 0.1015625, -0.0582275390625, 0.0330810546875, -0.0189208984375,
];

/** Oversampling factor: ×4 below 96 kHz, ×2 (phases 0 and 2) below 192 kHz, none above. */
function truePeakFactorReference(sampleRate: number): number {
  return sampleRate >= 192000 ? 1 : sampleRate >= 96000 ? 2 : 4;
}

/**
 * max(|x|, |y_p[k]|) with y_p[k] = Σ_{t=0}^{11} h_p[t]·x[k−t], x = 0 outside the signal and k running
 * over the input extended by 11 zeros (acoustics.md §1.6). Linear, not dB.
 */
export function truePeakReference(x: ArrayLike<number>, sampleRate: number): number {
  const factor = truePeakFactorReference(sampleRate);
  const phases = [PHASE_0, PHASE_1, [...PHASE_1].reverse(), [...PHASE_0].reverse()].filter(
    (_, p) => factor === 4 || (factor === 2 && p % 2 === 0),
  );
  let peak = 0;
  for (let i = 0; i < x.length; i++) peak = Math.max(peak, Math.abs(x[i]));
  if (factor === 1) return peak;
  for (let k = 0; k < x.length + 11; k++) {
    for (const h of phases) {
      let y = 0;
      for (let t = 0; t < 12; t++) if (k - t >= 0 && k - t < x.length) y += h[t] * x[k - t];
      peak = Math.max(peak, Math.abs(y));
    }
  }
  return peak;
}
