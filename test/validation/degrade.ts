// Degradations of clean speech for the validation ladders: noise at an SNR, hard clipping, dropouts, frame loss, loops, telephone band and μ-law, gain, pitch shift.
import { mulawDecode, mulawEncode } from "../../src/audio/mulaw.js";
import { resamplePcm16 } from "../../src/audio/resample.js";

export interface Clip {
  rate: number;
  x: Float32Array;
}

const FRAME_S = 0.01;

/** 10 ms frame powers of a signal. */
function framePowers(c: Clip): number[] {
  const n = Math.max(1, Math.round(FRAME_S * c.rate));
  const out: number[] = [];
  for (let s = 0; s + n <= c.x.length; s += n) {
    let e = 0;
    for (let i = s; i < s + n; i++) e += c.x[i] * c.x[i];
    out.push(e / n);
  }
  return out;
}

/** Active speech power: mean power of the 10 ms frames within 30 dB of the loudest (a simplified ITU-T P.56 active level). */
export function activePower(c: Clip): number {
  const p = framePowers(c);
  const max = Math.max(...p);
  const active = p.filter((v) => v >= max * 1e-3);
  return active.reduce((s, v) => s + v, 0) / Math.max(1, active.length);
}

/** Start times (samples) of the 10 ms frames whose level is within `belowDb` of the active speech level. */
export function loudFrameStarts(c: Clip, belowDb: number): number[] {
  const n = Math.round(FRAME_S * c.rate);
  const ref = activePower(c) * Math.pow(10, -belowDb / 10);
  return framePowers(c).flatMap((p, i) => (p >= ref ? [i * n] : []));
}

/** Gaussian noise (sum of 12 uniforms) from a seeded generator. */
export function gaussianNoise(n: number, random: () => number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let g = 0;
    for (let k = 0; k < 12; k++) g += random();
    out[i] = g - 6;
  }
  return out;
}

/** `noise` (cycled) scaled so that active speech power / noise power = `snrDb`, added to the clip. */
export function addNoise(c: Clip, noise: Float32Array, snrDb: number, noiseOffset = 0): Clip {
  let e = 0;
  for (let i = 0; i < noise.length; i++) e += noise[i] * noise[i];
  const g = Math.sqrt(activePower(c) / Math.pow(10, snrDb / 10) / (e / noise.length));
  const x = c.x.map((v, i) => v + g * noise[(i + noiseOffset) % noise.length]);
  return { rate: c.rate, x };
}

export function gain(c: Clip, db: number): Clip {
  const g = Math.pow(10, db / 20);
  return { rate: c.rate, x: c.x.map((v) => v * g) };
}

/** Peak-normalise to `peakDbfs`, then add `db` of gain and clip hard at full scale. */
export function hardClip(c: Clip, peakDbfs: number, db: number): Clip {
  let peak = 0;
  for (const v of c.x) peak = Math.max(peak, Math.abs(v));
  const g = Math.pow(10, (peakDbfs + db) / 20) / Math.max(peak, 1e-9);
  return { rate: c.rate, x: c.x.map((v) => Math.max(-1, Math.min(32767 / 32768, v * g))) };
}

/** Zero `count` gaps of random length in [minS, maxS] starting at random loud frames. */
export function dropouts(c: Clip, count: number, minS: number, maxS: number, random: () => number): Clip {
  const x = c.x.slice();
  const starts = loudFrameStarts(c, 10);
  for (let k = 0; k < count && starts.length; k++) {
    const at = starts[Math.floor(random() * starts.length)] + Math.floor(random() * FRAME_S * c.rate);
    x.fill(0, at, Math.min(x.length, at + Math.round((minS + (maxS - minS) * random()) * c.rate)));
  }
  return { rate: c.rate, x };
}

/** Lose each 20 ms frame with probability `lossRate` (the frame becomes digital silence). */
export function frameLoss(c: Clip, lossRate: number, random: () => number): Clip {
  const x = c.x.slice();
  const n = Math.round(0.02 * c.rate);
  for (let s = 0; s < x.length; s += n) if (random() < lossRate) x.fill(0, s, Math.min(x.length, s + n));
  return { rate: c.rate, x };
}

/** Insert `count` loops: a segment of random length in [minS, maxS] at a random loud offset, repeated right after itself. */
export function loops(c: Clip, count: number, minS: number, maxS: number, random: () => number): Clip {
  let x = c.x;
  for (let k = 0; k < count; k++) {
    const starts = loudFrameStarts({ rate: c.rate, x }, 10);
    const len = Math.round((minS + (maxS - minS) * random()) * c.rate);
    const at = Math.min(starts[Math.floor(random() * starts.length)] + Math.floor(random() * 0.01 * c.rate), x.length - len);
    const out = new Float32Array(x.length + len);
    out.set(x.subarray(0, at + len), 0);
    out.set(x.subarray(at, at + len), at + len);
    out.set(x.subarray(at + len), at + 2 * len);
    x = out;
  }
  return { rate: c.rate, x };
}

/** Windowed-sinc (Hamming) FIR: low-pass at `highHz`, band-pass when `lowHz` > 0. */
export function bandLimit(c: Clip, lowHz: number, highHz: number, taps = 201): Clip {
  const h = new Float64Array(taps);
  const mid = (taps - 1) / 2;
  const sinc = (f: number, i: number) => (i === mid ? 2 * f : Math.sin(2 * Math.PI * f * (i - mid)) / (Math.PI * (i - mid)));
  for (let i = 0; i < taps; i++) {
    const w = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1));
    h[i] = w * (sinc(highHz / c.rate, i) - (lowHz > 0 ? sinc(lowHz / c.rate, i) : 0));
  }
  const x = new Float32Array(c.x.length);
  for (let n = 0; n < x.length; n++) {
    let acc = 0;
    for (let i = 0; i < taps; i++) {
      const j = n - i + mid;
      if (j >= 0 && j < x.length) acc += h[i] * c.x[j];
    }
    x[n] = acc;
  }
  return { rate: c.rate, x };
}

function toPcm16(x: Float32Array): Int16Array {
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
}

/** Telephone: 300–3400 Hz, resampled to 8 kHz, and (with `mulaw`) G.711 μ-law encoded and decoded. */
export function telephone(c: Clip, mulaw: boolean): Clip {
  const band = bandLimit(c, 300, 3400);
  const narrow = resamplePcm16(toPcm16(band.x), c.rate, 8000);
  const decoded = mulaw ? mulawDecode(mulawEncode(narrow)) : narrow;
  return { rate: 8000, x: Float32Array.from(decoded, (v) => v / 32768) };
}

/** Pitch (and formants, and tempo) shifted by `semitones`: the clip played `2^(s/12)` times faster. */
export function shiftVoice(c: Clip, semitones: number): Clip {
  if (semitones === 0) return c;
  const from = Math.round(c.rate * Math.pow(2, semitones / 12));
  const y = resamplePcm16(toPcm16(c.x), from, c.rate);
  return { rate: c.rate, x: Float32Array.from(y, (v) => v / 32768) };
}

/** Digital silence as long as the clip. */
export function mute(c: Clip): Clip {
  return { rate: c.rate, x: new Float32Array(c.x.length) };
}

export { toPcm16 };
