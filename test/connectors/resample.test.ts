// §L10 linear resampler (bit-exact), the band-limited resampler (streaming = one-shot, pass band kept, aliasing suppressed) and G.711 μ-law.
import { describe, expect, it } from "vitest";
import { BandLimitedResampler, mulawDecode, mulawDecodeSample, mulawEncode, mulawEncodeSample, resamplePcm16, resamplePcm16Linear } from "../../src/index.js";
import { seededRandom } from "../helpers/random.js";

/** §L10 written out from the spec's formula, independently of the implementation's loop. */
function linearByFormula(s: number[], from: number, to: number): number[] {
  const n = s.length;
  const x = (n * to) / from;
  const fl = Math.floor(x);
  const outN = Math.max(1, x - fl === 0.5 ? (fl % 2 === 0 ? fl : fl + 1) : Math.round(x));
  const step = outN > 1 ? (n - 1) / outN : 0;
  return Array.from({ length: outN }, (_, i) => {
    const pos = i * step;
    const l = Math.trunc(pos);
    const f = pos - l;
    return Math.trunc(s[l] * (1 - f) + s[Math.min(l + 1, n - 1)] * f);
  });
}

function tone(hz: number, rate: number, seconds: number, amp = 10000): Int16Array {
  const n = Math.round(rate * seconds);
  return Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)));
}

function rms(x: Int16Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i] * x[i];
  return Math.sqrt(s / Math.max(1, to - from));
}

describe("linear resampler (§L10)", () => {
  it("matches the spec formula on random signals, rates and lengths (0, 1, odd)", () => {
    const rnd = seededRandom(11);
    const rates = [8000, 11025, 16000, 22050, 24000, 44100, 48000];
    for (let trial = 0; trial < 200; trial++) {
      const n = [1, 2, 3, 7, 160, 161, 997][trial % 7] + Math.floor(rnd() * 50);
      const s = Array.from({ length: n }, () => Math.round((rnd() * 2 - 1) * 32767));
      const from = rates[Math.floor(rnd() * rates.length)];
      let to = rates[Math.floor(rnd() * rates.length)];
      if (to === from) to = from === 8000 ? 16000 : 8000;
      expect(Array.from(resamplePcm16Linear(Int16Array.from(s), from, to))).toEqual(linearByFormula(s, from, to));
    }
  });

  it("keeps step = (n−1)/out_n, so the last output sample is not the last input sample", () => {
    const out = resamplePcm16Linear(Int16Array.from([0, 100, 200, 300]), 8000, 16000);
    expect(Array.from(out)).toEqual([0, 37, 75, 112, 150, 187, 225, 262]);
  });

  it("rounds the output length half to even and returns empty input and equal rates unchanged", () => {
    expect(resamplePcm16Linear(new Int16Array(3), 16000, 8000).length).toBe(2); // 1.5 → 2
    expect(resamplePcm16Linear(new Int16Array(5), 16000, 8000).length).toBe(2); // 2.5 → 2
    expect(resamplePcm16Linear(new Int16Array(0), 16000, 8000).length).toBe(0);
    const x = Int16Array.from([1, -2, 3]);
    expect(Array.from(resamplePcm16Linear(x, 24000, 24000))).toEqual([1, -2, 3]);
    expect(() => resamplePcm16Linear(x, 0, 8000)).toThrow(/fromRate/);
  });
});

describe("band-limited resampler", () => {
  it("gives the same samples however the stream is cut into chunks", () => {
    const rnd = seededRandom(5);
    for (const [from, to] of [[48000, 16000], [16000, 24000], [22050, 24000], [44100, 8000]]) {
      const x = Int16Array.from({ length: 4001 }, () => Math.round((rnd() * 2 - 1) * 20000));
      const whole = resamplePcm16(x, from, to);
      expect(whole.length).toBe(Math.ceil((x.length * to) / from));
      const r = new BandLimitedResampler(from, to);
      const parts: number[] = [];
      for (let i = 0; i < x.length; ) {
        const step = 1 + Math.floor(rnd() * 700);
        parts.push(...r.push(x.subarray(i, i + step)));
        i += step;
      }
      parts.push(...r.flush());
      expect(parts).toEqual(Array.from(whole));
    }
  });

  it("handles lengths 0, 1 and odd", () => {
    expect(resamplePcm16(new Int16Array(0), 16000, 24000).length).toBe(0);
    expect(resamplePcm16(Int16Array.from([1000]), 16000, 24000).length).toBe(2);
    expect(resamplePcm16(new Int16Array(7), 24000, 16000).length).toBe(5);
  });

  it("keeps a pass-band tone within 0.1 dB and removes a tone above the new Nyquist (the linear one folds it back)", () => {
    const keep = resamplePcm16(tone(1000, 48000, 0.5), 48000, 16000);
    const mid = [2000, keep.length - 2000] as const;
    expect(Math.abs(20 * Math.log10(rms(keep, ...mid) / (10000 / Math.SQRT2)))).toBeLessThan(0.1);
    const alias = tone(11000, 48000, 0.5);
    const bl = resamplePcm16(alias, 48000, 16000);
    const lin = resamplePcm16Linear(alias, 48000, 16000);
    const blDb = 20 * Math.log10(rms(bl, ...mid) / (10000 / Math.SQRT2));
    const linDb = 20 * Math.log10(rms(lin, 2000, lin.length - 2000) / (10000 / Math.SQRT2));
    expect(blDb).toBeLessThan(-60);
    expect(linDb).toBeGreaterThan(-20);
  });
});

describe("G.711 μ-law", () => {
  it("encodes and decodes the reference values (bias 0x84, clip 32635, inverted byte)", () => {
    expect(mulawEncodeSample(0)).toBe(0xff);
    expect(mulawEncodeSample(32767)).toBe(0x80);
    expect(mulawEncodeSample(-32768)).toBe(0x00);
    expect(mulawEncodeSample(-1)).toBe(0x7f);
    expect(mulawDecodeSample(0xff)).toBe(0);
    expect(mulawDecodeSample(0x80)).toBe(32124);
    expect(mulawDecodeSample(0x00)).toBe(-32124);
  });

  it("round-trips every int16 within its segment's quantisation step, and every byte exactly", () => {
    for (let b = 0; b < 256; b++) expect(mulawEncodeSample(mulawDecodeSample(b)) === b || mulawDecodeSample(b) === 0).toBe(true);
    const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const back = mulawDecode(mulawEncode(all));
    for (let i = 0; i < all.length; i++) {
      const s = Math.min(Math.abs(all[i]), 32635);
      const step = 1 << (Math.max(0, 31 - Math.clz32((s + 0x84) >> 7)) + 3);
      expect(Math.abs(Math.min(Math.max(all[i], -32635), 32635) - back[i])).toBeLessThanOrEqual(step);
    }
  });
});
