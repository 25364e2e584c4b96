// Readable float64 twin of the intensity kernel: Kaiser-windowed, mean-subtracted power in dB (Praat "To Intensity", acoustics.md §3.2).

/** I0 by its power series. */
function besselI0(x: number): number {
  let sum = 1, term = 1;
  for (let k = 1; k < 60; k++) {
    term *= (x * x) / 4 / (k * k);
    sum += term;
  }
  return sum;
}

/** w[i] = I0(β·√(1 − r²)) / I0(β), r = (i − (L−1)/2) / ((L−1)/2). */
function kaiserWindowReference(length: number, beta: number): number[] {
  const half = (length - 1) / 2;
  return Array.from({ length }, (_, i) => {
    const r = half > 0 ? (i - half) / half : 0;
    return besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / besselI0(beta);
  });
}

/** Frame k = samples [k·step, k·step + L): 10·log10(Σw(x − x̄_w)² / Σw + 1e−20), x̄_w the weighted mean. */
export function intensityReference(x: ArrayLike<number>, length: number, step: number, beta: number): number[] {
  const w = kaiserWindowReference(length, beta).map(Math.fround);
  const weight = w.reduce((s, v) => s + v, 0);
  const out: number[] = [];
  for (let start = 0; start + length <= x.length; start += step) {
    let mean = 0;
    for (let i = 0; i < length; i++) mean += w[i] * x[start + i];
    mean /= weight;
    let variance = 0;
    for (let i = 0; i < length; i++) variance += w[i] * (x[start + i] - mean) ** 2;
    out.push(10 * Math.log10(variance / weight + 1e-20));
  }
  return out;
}
