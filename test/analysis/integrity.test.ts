// The voxmetrics profile's per-clip measurements on real read speech: speech-only SNR follows added noise, lost frames are dropouts and word gaps are not, a cut-off ending is truncated, digital silence is not audible.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectSpeechSegments } from "../../src/analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { DEFAULT_INTEGRITY_OPTIONS, measureIntegrity, resolveIntegrityOptions, type IntegrityBlock } from "../../src/analysis/integrity.js";
import { decodeAudio } from "../../src/audio/index.js";
import { ChannelKernels } from "../../src/dsp/channel-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { evaPercentile } from "../../src/timeline/index.js";
import { seededRandom } from "../helpers/random.js";

const CARD = "/usr/share/pocketsphinx/test/data/cards/005.wav";
const HAVE_SPEECH = existsSync(CARD);
if (!HAVE_SPEECH) console.warn("pocketsphinx-testdata is not installed: the integrity measurements on real speech are skipped");

function measure(x: Float32Array, rate: number): IntegrityBlock {
  return withArena((arena) => {
    const ch = ChannelKernels.copyOf(arena, x, rate);
    return measureIntegrity(ch, detectSpeechSegments(ch, DEFAULT_ACOUSTICS_OPTIONS), DEFAULT_INTEGRITY_OPTIONS, { level: Math.pow(10, -0.45 / 20), minRun: 3, bandwidthFloorDb: 35 });
  });
}

describe.skipIf(!HAVE_SPEECH)("integrity measurements on real read speech (pocketsphinx-testdata)", () => {
  const d = HAVE_SPEECH ? decodeAudio(readFileSync(CARD)) : null;
  const rate = d?.sampleRate ?? 16000;
  const clean = d ? Float32Array.from(d.samples, (v) => v / 32768) : new Float32Array(0);

  it("finds no dropout, repeat or truncation in the clean recording", () => {
    const m = measure(clean, rate);
    expect([m.dropouts.count, m.repeats.count, m.truncated, m.audible, m.whole_clip]).toEqual([0, 0, false, true, false]);
    expect(m.speech_s).toBeGreaterThan(2);
  });

  it("speech-only SNR falls with added white noise, step by step", () => {
    const random = seededRandom(5);
    const noise = Float32Array.from({ length: clean.length }, () => random() + random() + random() - 1.5);
    const power = (x: Float32Array) => x.reduce((s, v) => s + v * v, 0) / x.length;
    const snrs = [20, 10, 5, 0].map((db) => {
      const g = Math.sqrt((power(clean) / power(noise)) * Math.pow(10, -db / 10));
      return measure(clean.map((v, i) => v + g * noise[i]), rate).speech_snr_db!;
    });
    for (let k = 1; k < snrs.length; k++) expect(snrs[k], `${snrs}`).toBeLessThan(snrs[k - 1]);
  });

  it("counts 20 ms frames lost inside speech as dropouts, where they are", () => {
    const x = clean.slice();
    const at = Math.round(1.0 * rate);
    // Move the cut to the loudest 20 ms around 1 s so it lands inside speech.
    let best = at, bestE = -1;
    for (let s = at - rate / 2; s < at + rate / 2; s += rate / 100) {
      let e = 0;
      for (let i = s; i < s + rate / 50; i++) e += x[i] * x[i];
      if (e > bestE) { bestE = e; best = s; }
    }
    x.fill(0, best, best + rate / 50);
    const m = measure(x, rate);
    expect(m.dropouts.count).toBe(1);
    expect(m.dropouts.events[0][0]).toBeCloseTo(best / rate, 2);
  });

  it("calls an ending cut inside a word truncated", () => {
    const speech = measure(clean, rate);
    expect(speech.truncated).toBe(false);
    let loud = 0, loudAt = 0;
    for (let i = rate; i < clean.length - rate / 2; i += rate / 100) {
      let e = 0;
      for (let j = i; j < i + rate / 100; j++) e += clean[j] * clean[j];
      if (e > loud) { loud = e; loudAt = i; }
    }
    expect(measure(clean.slice(0, loudAt + rate / 200), rate).truncated).toBe(true);
  });

  it("reads digital silence as not audible, with no speech evidence", () => {
    const m = measure(new Float32Array(rate), rate);
    expect([m.audible, m.speech_s, m.speech_snr_db, m.dropouts.count, m.repeats.count]).toEqual([false, 0, null, 0, 0]);
  });
});

describe("profile measurement options", () => {
  it("are validated with the field and range named", () => {
    expect(resolveIntegrityOptions({ repeatMaxS: 0.8 }).repeatMaxS).toBe(0.8);
    expect(() => resolveIntegrityOptions({ edgeS: 0 })).toThrow(/edgeS must be a number in \[0.0001, 0.05\], got 0/);
    expect(() => resolveIntegrityOptions({ repeatMinS: 0.7 })).toThrow(/repeatMinS must not exceed repeatMaxS/);
  });
});

describe("EVA percentile", () => {
  it("is sorted[min(n − 1, ⌊p·n⌋)]", () => {
    expect(evaPercentile([], 0.5)).toBeNull();
    expect(evaPercentile([300, 100, 200, 400], 0.5)).toBe(300);
    expect(evaPercentile([300, 100, 200, 400], 0.9)).toBe(400);
    expect(evaPercentile([7], 0.9)).toBe(7);
  });
});
