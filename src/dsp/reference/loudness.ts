// Readable float64 twin of the loudness kernel: BS.1770-5 Annex 1 K-weighting, gating and EBU Tech 3342 LRA (acoustics.md §1.1–1.5).
//
// Whole-signal, no streaming, no ring buffers: every window is summed from scratch so the kernel's
// running bookkeeping can be checked against the equations themselves.

/** Biquad coefficients (a0 = 1): [b0, b1, b2, a1, a2]. */
export type Biquad = [number, number, number, number, number];

/**
 * The any-rate K-weighting design of acoustics.md §1.3: bilinear-transform high shelf and high pass
 * whose analog parameters were back-fitted to the BS.1770 48 kHz table (K = tan(π·f0/fs)).
 */
export function designKWeighting(sampleRate: number): [Biquad, Biquad] {
  let k = Math.tan((Math.PI * 1681.974450955533) / sampleRate);
  const q = 0.7071752369554196;
  const vh = Math.pow(10, 3.999843853973347 / 20);
  const vb = Math.pow(vh, 0.4996667741545416);
  let a0 = 1 + k / q + k * k;
  const shelf: Biquad = [
    (vh + (vb * k) / q + k * k) / a0,
    (2 * (k * k - vh)) / a0,
    (vh - (vb * k) / q + k * k) / a0,
    (2 * (k * k - 1)) / a0,
    (1 - k / q + k * k) / a0,
  ];
  k = Math.tan((Math.PI * 38.13547087602444) / sampleRate);
  const q2 = 0.5003270373238773;
  a0 = 1 + k / q2 + k * k;
  const highPass: Biquad = [1, -2, 1, (2 * (k * k - 1)) / a0, (1 - k / q2 + k * k) / a0];
  return [shelf, highPass];
}

/** y = biquad(x), direct form I in float64. */
export function applyBiquad(x: ArrayLike<number>, [b0, b1, b2, a1, a2]: Biquad): Float64Array {
  const y = new Float64Array(x.length);
  let x1 = 0, x2 = 0, y1 = 0, y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const v = b0 * x[i] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    x2 = x1; x1 = x[i]; y2 = y1; y1 = v;
    y[i] = v;
  }
  return y;
}

/** L = −0.691 + 10·log10(Σ G_i·z_i) (BS.1770-5 eq. 2); null for zero energy. */
function energyToLufs(energy: number): number | null {
  return energy > 0 ? -0.691 + 10 * Math.log10(energy) : null;
}

export interface ReferenceLoudness {
  integratedLufs: number | null;
  momentaryMaxLufs: number | null;
  shortTermMaxLufs: number | null;
  loudnessRangeLu: number | null;
  /** Gating-block energies (400 ms, hop 100 ms). */
  blockEnergies: number[];
  /** Short-term energies (3 s windows ending at 3.0 s, 3.1 s, …). */
  shortTermEnergies: number[];
}

/** BS.1770-5 loudness, Tech 3341 maxima on the 10 ms grid and Tech 3342 LRA of planar channels. */
export function measureLoudnessReference(
  channels: ArrayLike<number>[],
  sampleRate: number,
  weights: number[] = channels.map(() => 1),
): ReferenceLoudness {
  const [shelf, highPass] = designKWeighting(sampleRate);
  const n = channels.length ? channels[0].length : 0;
  // Σ_i G_i·y_i² per sample, with a prefix sum so any window's mean square is one subtraction.
  const prefix = new Float64Array(n + 1);
  const weighted = new Float64Array(n);
  channels.forEach((x, c) => {
    const y = applyBiquad(applyBiquad(x, shelf), highPass);
    for (let i = 0; i < n; i++) weighted[i] += weights[c] * y[i] * y[i];
  });
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + weighted[i];
  const boundary = (k: number) => Math.floor((k * sampleRate) / 100);
  const windowEnergy = (fromSub: number, toSub: number) =>
    (prefix[boundary(toSub)] - prefix[boundary(fromSub)]) / (boundary(toSub) - boundary(fromSub));
  let momentaryMax = -1, shortTermMax = -1;
  const blockEnergies: number[] = [];
  const shortTermEnergies: number[] = [];
  for (let k = 40; boundary(k) <= n; k++) {
    const m = windowEnergy(k - 40, k);
    momentaryMax = Math.max(momentaryMax, m);
    if (k >= 300) shortTermMax = Math.max(shortTermMax, windowEnergy(k - 300, k));
    if (k % 10 === 0) {
      blockEnergies.push(m);
      if (k >= 300) shortTermEnergies.push(windowEnergy(k - 300, k));
    }
  }
  return {
    integratedLufs: gateIntegratedReference(blockEnergies),
    momentaryMaxLufs: momentaryMax > 0 ? energyToLufs(momentaryMax) : null,
    shortTermMaxLufs: shortTermMax > 0 ? energyToLufs(shortTermMax) : null,
    loudnessRangeLu: loudnessRangeReference(shortTermEnergies),
    blockEnergies,
    shortTermEnergies,
  };
}

/** BS.1770-5 eq. 6–7: absolute gate −70 LKFS, relative gate −10 LU from the mean energy, strict `>`. */
function gateIntegratedReference(blockEnergies: number[]): number | null {
  const lufs = (e: number) => energyToLufs(e) ?? -Infinity;
  const absolute = blockEnergies.filter((e) => lufs(e) > -70);
  if (!absolute.length) return null;
  const relativeGate = -0.691 + 10 * Math.log10(absolute.reduce((s, e) => s + e, 0) / absolute.length) - 10;
  const gated = absolute.filter((e) => lufs(e) > relativeGate);
  if (!gated.length) return null;
  return energyToLufs(gated.reduce((s, e) => s + e, 0) / gated.length);
}

/** EBU Tech 3342: gates −70 LUFS and −20 LU (mean power, `≥`), LRA = P95 − P10 by nearest rank. */
function loudnessRangeReference(shortTermEnergies: number[]): number | null {
  const values = shortTermEnergies.map((e) => energyToLufs(e) ?? -Infinity).filter((l) => l >= -70);
  if (values.length < 2) return null;
  const meanPower = values.reduce((s, l) => s + Math.pow(10, l / 10), 0) / values.length;
  const relativeGate = 10 * Math.log10(meanPower) - 20;
  const kept = values.filter((l) => l >= relativeGate).sort((a, b) => a - b);
  if (kept.length < 2) return null;
  const rank = (p: number) => kept[Math.round(((kept.length - 1) * p) / 100 + 1) - 1];
  return rank(95) - rank(10);
}
