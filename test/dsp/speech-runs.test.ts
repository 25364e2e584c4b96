// Speech-run kernel ≡ twin: per-frame decisions (percentiles, hysteresis both ways, hangover) on random and edge frame levels, exactly.
import { describe, expect, it } from "vitest";
import { ChannelKernels, type SpeechRunOptions } from "../../src/dsp/channel-kernels.js";
import { checkStatus } from "../../src/dsp/kernel-error.js";
import { withArena } from "../../src/dsp/wasm.js";
import { speechRunsReference } from "../../src/dsp/reference/activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { speechRunOptions } from "../../src/analysis/acoustics-activity.js";
import { seededRandom, whiteNoise } from "../helpers/signals.js";

const random = seededRandom(4242);
const DEFAULTS = speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS);

/** The speech-run kernel over given frame levels (f32 dBFS at a 10 ms hop), as flat (first frame, last frame above T_off) pairs. */
function speechRunsOfLevels(levels: Float32Array, o: SpeechRunOptions): Int32Array {
  return withArena((arena) => {
    const n = levels.length;
    const input = arena.putF32(levels);
    const scratch = arena.alloc(arena.k.activitySpeechRunsScratchSize(n));
    const out = arena.allocI32(2 * n);
    const runs = checkStatus(arena.k.activitySpeechRuns(input, n, o.peakPercentile, o.noisePercentile, o.noiseHalfWindowFrames,
      o.enterAboveNoiseDb, o.enterBelowPeakDb, o.stayBelowEnterDb, o.hangoverFrames, scratch, out), "activitySpeechRuns");
    return arena.i32(out, 2 * runs).slice();
  });
}

/** Kernel runs as [first, last] pairs. */
function kernelRuns(levels: Float32Array, o: SpeechRunOptions): Array<[number, number]> {
  const flat = speechRunsOfLevels(levels, o);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** Frame levels quantised to 0.5 dB (so levels land exactly on thresholds): noise with bursts, dips and clicks. */
function burstLevels(n: number): Float32Array {
  const x = new Float32Array(n);
  const noise = -75 + 20 * random();
  let i = 0;
  while (i < n) {
    const quiet = Math.floor(random() * 120);
    for (let j = 0; j < quiet && i < n; j++, i++) x[i] = Math.round((noise + 6 * (random() - 0.5)) * 2) / 2;
    const loud = Math.floor(random() * 150);
    const level = noise + 10 + 50 * random();
    for (let j = 0; j < loud && i < n; j++, i++) {
      // Dips of a few frames inside bursts exercise the hangover; ramps exercise the onset back-off.
      const dip = random() < 0.08 ? 15 + 25 * random() : 0;
      const ramp = j < 5 ? (5 - j) * 4 * random() : 0;
      x[i] = Math.round((level - dip - ramp + 4 * (random() - 0.5)) * 2) / 2;
    }
  }
  return x;
}

function randomOptions(): SpeechRunOptions {
  return {
    peakPercentile: [50, 90, 99, 100, 95.5][Math.floor(random() * 5)],
    noisePercentile: [0, 10, 25, 50, 12.5][Math.floor(random() * 5)],
    noiseHalfWindowFrames: [25, 50, 137, 500, 3000][Math.floor(random() * 5)],
    enterAboveNoiseDb: Math.round(random() * 30),
    enterBelowPeakDb: Math.round(random() * 60),
    stayBelowEnterDb: Math.round(random() * 12 * 2) / 2,
    hangoverFrames: Math.floor(random() * 40),
  };
}

const LENGTHS = [0, 1, 2, 3, 49, 50, 51, 99, 100, 101, 149, 150, 151, 199, 200, 201, 999, 1000, 1001, 1049, 1050, 1051, 6001];

describe("speech-run kernel ≡ twin", () => {
  it("default parameters, edge and odd lengths", () => {
    for (const n of LENGTHS) {
      const levels = burstLevels(n);
      expect(kernelRuns(levels, DEFAULTS), `n=${n}`).toEqual(speechRunsReference(levels, DEFAULTS));
    }
  });

  it("random parameters and lengths", () => {
    for (let t = 0; t < 300; t++) {
      const n = t < LENGTHS.length ? LENGTHS[t] : Math.floor(random() * 4000);
      const levels = burstLevels(n);
      const o = randomOptions();
      expect(kernelRuns(levels, o), `n=${n} ${JSON.stringify(o)}`).toEqual(speechRunsReference(levels, o));
    }
  });

  it("all-silent, constant, all-speech and single-burst inputs", () => {
    const cases: Float32Array[] = [
      new Float32Array(500).fill(-120),
      new Float32Array(777).fill(-20),
      Float32Array.from({ length: 700 }, (_, i) => (i % 2 ? -20 : -20.5)),
      Float32Array.from({ length: 900 }, (_, i) => (i < 3 ? -90 : -20 + (i % 7))),
      Float32Array.from({ length: 260 }, (_, i) => (i >= 100 && i < 130 ? -10 : -80)),
    ];
    for (const levels of cases) {
      for (const o of [DEFAULTS, { ...DEFAULTS, enterAboveNoiseDb: 0, enterBelowPeakDb: 0 }, { ...DEFAULTS, hangoverFrames: 0, stayBelowEnterDb: 0 }]) {
        expect(kernelRuns(levels, o)).toEqual(speechRunsReference(levels, o));
      }
    }
  });

  it("hysteresis edges: levels exactly at T_on and T_off, onset back-off stops at the previous run", () => {
    // Noise floor −80 (10th percentile), peak −20 → T_on = max(−80 + 10, −20 − 35) = −55, T_off = −61.
    const o: SpeechRunOptions = { ...DEFAULTS, enterAboveNoiseDb: 10, enterBelowPeakDb: 35, stayBelowEnterDb: 6, hangoverFrames: 3 };
    const levels = new Float32Array(400).fill(-80);
    levels.set([-61, -60.5, -55, -54.5, -20, -61, -61, -61, -61, -60.5, -61, -61, -61, -61, -61], 50);
    levels.set([-60, -54.5, -30, -61, -80, -80, -80, -80, -58, -54], 120);
    levels.set([-20, -20, -20, -20, -20], 300);
    const want = speechRunsReference(levels, o);
    expect(kernelRuns(levels, o)).toEqual(want);
    expect(want.length).toBeGreaterThan(1);
  });
});

describe("ChannelKernels.speechRuns ≡ twin over the kernel's own levels", () => {
  it.each([8000, 16000, 44100])("%i Hz", (rate) => {
    for (const seconds of [0, 0.005, 0.5, 1.49, 1.51, 7.3]) {
      const n = Math.floor(rate * seconds);
      const x = whiteNoise(n, 0.001, random);
      for (let b = 0; b < 4; b++) {
        const s = Math.floor(random() * n), e = Math.min(n, s + Math.floor(random() * rate));
        const f = 100 + 400 * random();
        for (let i = s; i < e; i++) x[i] += 0.2 * Math.sin((2 * Math.PI * f * i) / rate);
      }
      withArena((arena) => {
        const ch = ChannelKernels.copyOf(arena, x, rate);
        const levels = ch.activityLevels();
        const want = speechRunsReference(levels, DEFAULTS).flat();
        expect(Array.from(ch.speechRuns(DEFAULTS)), `n=${n}`).toEqual(want);
      });
    }
  });
});

describe("speech at the very end of a clip", () => {
  it("is found whatever the length (frames that round to an anchor past the last one keep the last floor)", () => {
    // 1.5–1.99 s of frames: the last frames round to anchor 2 of 2 (0 and 1 exist).
    for (const n of [150, 160, 175, 199, 250, 1051, 1099]) {
      const levels = new Float32Array(n).fill(-70);
      for (let i = n - 20; i < n; i++) levels[i] = -20;
      const expected: Array<[number, number]> = [[n - 20, n - 1]];
      expect(speechRunsReference(levels, DEFAULTS), `twin n=${n}`).toEqual(expected);
      expect(kernelRuns(levels, DEFAULTS), `kernel n=${n}`).toEqual(expected);
    }
  });
});
