// Seeded int16 test signals for the parity kernel properties: noise, tones up to full scale, clipping, bursts, near-constant and sparse frames.
import { seededRandom } from "../helpers/random.js";

export { seededRandom };

export type Random = () => number;

const toI16 = (v: number): number => Math.max(-32768, Math.min(32767, Math.round(v)));
const randomInt = (random: Random, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** Uniform integers in [−amplitude, amplitude] (amplitude 32768 reaches −32768). */
export function noise(random: Random, n: number, amplitude: number): Int16Array {
  return Int16Array.from({ length: n }, () => toI16((random() * 2 - 1) * amplitude));
}

/** A sine of random frequency (20 Hz–0.45·sr) and phase at `amplitude`, clamped to int16 (so > 32767 clips). */
export function tone(random: Random, n: number, sampleRate: number, amplitude: number): Int16Array {
  const hz = 20 + random() * Math.max(1, 0.45 * sampleRate - 20);
  const phase = random() * 2 * Math.PI;
  return Int16Array.from({ length: n }, (_, i) => toI16(amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate + phase)));
}

/** Digital silence with a few noise or tone bursts. */
export function bursts(random: Random, n: number, sampleRate: number): Int16Array {
  const x = new Int16Array(n);
  const count = randomInt(random, 1, 4);
  for (let b = 0; b < count && n > 0; b++) {
    const start = randomInt(random, 0, n - 1);
    const len = Math.min(n - start, randomInt(random, 1, Math.max(1, Math.floor(n / 3))));
    const amplitude = [500, 3000, 20000, 32768][randomInt(random, 0, 3)];
    x.set(random() < 0.5 ? noise(random, len, amplitude) : tone(random, len, sampleRate, amplitude), start);
  }
  return x;
}

/** A large DC offset plus ±1–2 of noise: float rounding is large next to the correlations, so near-ties abound. */
export function nearConstant(random: Random, n: number): Int16Array {
  const dc = randomInt(random, -32000, 32000);
  const spread = randomInt(random, 1, 2);
  return Int16Array.from({ length: n }, () => dc + randomInt(random, -spread, spread));
}

/** Sparse full-scale impulses on silence: most lags correlate exactly equally, so ties are common. */
export function impulses(random: Random, n: number): Int16Array {
  const x = new Int16Array(n);
  const count = Math.max(1, Math.floor(n / randomInt(random, 40, 400)));
  for (let k = 0; k < count && n > 0; k++) x[randomInt(random, 0, n - 1)] = random() < 0.5 ? -32768 : 32767;
  return x;
}

/** A periodic integer pattern (period 2–200 samples) of random amplitude: exact repeats for loops and pitch. */
export function periodic(random: Random, n: number): Int16Array {
  const period = randomInt(random, 2, 200);
  const cycle = noise(random, period, [300, 4000, 32768][randomInt(random, 0, 2)]);
  return Int16Array.from({ length: n }, (_, i) => cycle[i % period]);
}

export const SIGNAL_KINDS = ["noise", "tone", "full-scale tone", "clipped tone", "bursts", "near-constant", "impulses", "periodic"] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

export function makeSignal(kind: SignalKind, random: Random, n: number, sampleRate: number): Int16Array {
  switch (kind) {
    case "noise":
      return noise(random, n, [200, 1000, 8000, 32768][randomInt(random, 0, 3)]);
    case "tone":
      return tone(random, n, sampleRate, 300 + random() * 20000);
    case "full-scale tone":
      return tone(random, n, sampleRate, 32768);
    case "clipped tone":
      return tone(random, n, sampleRate, 32768 * (1.5 + random()));
    case "bursts":
      return bursts(random, n, sampleRate);
    case "near-constant":
      return nearConstant(random, n);
    case "impulses":
      return impulses(random, n);
    case "periodic":
      return periodic(random, n);
  }
}
