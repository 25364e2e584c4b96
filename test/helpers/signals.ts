// Test-signal synthesis for the acoustics suites: tones, segment sequences and seeded noise.
import { seededRandom } from "./random.js";

export { seededRandom };

/** A segment of a test sequence: `seconds` of a sine at `dbfs` peak (null = digital silence). */
export interface Segment {
  seconds: number;
  dbfs: number | null;
}

/** Concatenated sine segments at `frequencyHz`, phase-continuous from phase 0, as Tech 3341 §1.7 describes. */
export function sineSequence(segments: Segment[], sampleRate: number, frequencyHz = 1000): Float32Array {
  const lengths = segments.map((s) => Math.round(s.seconds * sampleRate));
  const out = new Float32Array(lengths.reduce((a, b) => a + b, 0));
  let i = 0;
  segments.forEach((s, j) => {
    const amplitude = s.dbfs === null ? 0 : Math.pow(10, s.dbfs / 20);
    for (let n = 0; n < lengths[j]; n++, i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate);
  });
  return out;
}

/** A sine at `amplitude` (fraction of full scale) and `phaseDeg`, with linear fades, for the true-peak cases. */
export function fadedSine(sampleRate: number, frequencyHz: number, amplitude: number, phaseDeg: number, seconds: number, fadeSeconds: number): Float32Array {
  const n = Math.round(seconds * sampleRate);
  const fade = Math.round(fadeSeconds * sampleRate);
  const out = new Float32Array(n);
  const phase = (phaseDeg * Math.PI) / 180;
  for (let i = 0; i < n; i++) {
    const gain = Math.min(1, i / fade, (n - 1 - i) / fade);
    out[i] = gain * amplitude * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate + phase);
  }
  return out;
}

/** Uniform white noise in [−amplitude, amplitude). */
export function whiteNoise(n: number, amplitude: number, random: () => number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = amplitude * (2 * random() - 1);
  return out;
}
