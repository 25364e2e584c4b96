// measureIntegrityStream ≡ measureIntegrity on the whole clip's mixdown (the voxmetrics profile's integrity block), at random chunk sizes from 1 frame up; and the percentiles it selects without sorting ≡ the sorted ones.
import { describe, expect, it } from "vitest";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { clippingCriteria, measureAcoustics } from "../../src/analysis/acoustics.js";
import type { AcousticsOptions } from "../../src/analysis/acoustics-options.js";
import { DEFAULT_INTEGRITY_OPTIONS, measureIntegrity, percentileOfLevels, type IntegrityBlock, type IntegrityClipping } from "../../src/analysis/integrity.js";
import { measureIntegrityStream } from "../../src/analysis/integrity-stream.js";
import { percentile } from "../../src/analysis/percentile.js";
import type { Segment } from "../../src/analysis/acoustics-activity.js";
import { memoryPcmSource, randomChunkSizes } from "../../src/audio/pcm-source.js";
import type { DecodedAudio } from "../../src/audio/types.js";
import { ClipKernels } from "../../src/dsp/clip-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { seededRandom } from "../helpers/random.js";
import { speechLikeAudio } from "../helpers/stream-audio.js";

type Random = () => number;
const randomInt = (random: Random, lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

function clippingOf(o: AcousticsOptions, sampleRate: number): IntegrityClipping {
  const c = clippingCriteria(o, sampleRate);
  return { level: c.level, minRun: c.minRun, bandwidthFloorDb: o.bandwidthFloorDb };
}

/** What CallAnalysis measures on a whole clip: the standards set's speech segments, then measureIntegrity on its mixdown. */
function wholeClip(audio: DecodedAudio, o: AcousticsOptions): { speech: Segment[]; block: IntegrityBlock } {
  return withArena((arena) => {
    const planar = new ClipKernels(arena, audio).planar();
    const speech = measureAcoustics(planar, o).speech_segments as Segment[];
    return { speech, block: measureIntegrity(planar.mixdown(o.mixdown), speech, DEFAULT_INTEGRITY_OPTIONS, clippingOf(o, audio.sampleRate)) };
  });
}

/** Defects the profile looks for, put into every channel: lost frames (exact zeros) inside bursts, a segment repeated right after itself, a collapse to a faint floor; and the clip cut inside a burst. */
function withDefects(audio: DecodedAudio, random: Random, cutEnd: boolean): DecodedAudio {
  const { sampleRate: fs, channels } = audio;
  const planar = Array.from({ length: channels }, (_, c) => audio.floatChannels ? audio.floatChannels[c].slice() : Float32Array.from({ length: audio.frames }, (_, f) => audio.samples[f * channels + c] / 32768));
  const n = audio.frames;
  const loudest = (x: Float32Array, from: number, to: number) => {
    let best = from, bestE = -1;
    for (let s = from; s + fs / 100 < to; s += Math.round(fs / 100)) {
      let e = 0;
      for (let i = s; i < s + fs / 100; i++) e += x[i] * x[i];
      if (e > bestE) { bestE = e; best = s; }
    }
    return best;
  };
  for (const x of planar) {
    // Lost 20 ms frames inside loud speech.
    for (let k = 0; k < 3; k++) {
      const at = loudest(x, Math.floor((k / 4 + 0.05) * n), Math.floor(((k + 1) / 4) * n));
      x.fill(0, at, Math.min(n, at + Math.round(0.02 * fs)));
    }
    // A 0.3 s segment repeated right after itself.
    const lag = Math.round(0.3 * fs);
    const at = loudest(x, Math.floor(0.55 * n), Math.floor(0.6 * n));
    for (let i = 0; i < lag && at + lag + i < n; i++) x[at + lag + i] = x[at + i];
    // A 30 ms collapse to a faint floor.
    const c = loudest(x, Math.floor(0.8 * n), Math.floor(0.9 * n));
    for (let i = c; i < Math.min(n, c + Math.round(0.03 * fs)); i++) x[i] = 1e-5 * (random() - 0.5);
  }
  let frames = n;
  if (cutEnd) frames = loudest(planar[0], Math.floor(0.9 * n), n) + Math.round(0.004 * fs);
  const cut = planar.map((x) => x.slice(0, frames));
  const samples = new Int16Array(frames * channels);
  for (let f = 0; f < frames; f++) for (let ch = 0; ch < channels; ch++) samples[f * channels + ch] = Math.max(-32768, Math.min(32767, Math.round(cut[ch][f] * 32768)));
  return { ...audio, frames, samples, floatChannels: audio.floatChannels ? cut : undefined };
}

let events = 0, truncated = 0;
function check(audio: DecodedAudio, sizes: (i: number) => number, o: AcousticsOptions = DEFAULT_ACOUSTICS_OPTIONS): IntegrityBlock {
  const { speech, block } = wholeClip(audio, o);
  const streamed = measureIntegrityStream(memoryPcmSource(audio, sizes), speech, DEFAULT_INTEGRITY_OPTIONS, clippingOf(o, audio.sampleRate), o.mixdown);
  expect(streamed).toEqual(block);
  expect(JSON.stringify(streamed)).toBe(JSON.stringify(block));
  events += block.dropouts.count + block.repeats.count;
  if (block.truncated) truncated++;
  return block;
}

describe("measureIntegrityStream ≡ measureIntegrity on the whole clip", () => {
  it.each([8000, 16000, 24000, 44100, 48000])("clips with dropouts, repeats, a collapse and a cut ending at %i Hz: mono and stereo, int16 and float, chunks of 1 frame up", (rate) => {
    const random = seededRandom(rate + 7);
    let seed = rate;
    for (const channels of [1, 2]) {
      for (const float of [false, true]) {
        const base = speechLikeAudio(2.5 + random(), rate, channels, seed++, { float, clip: !float, noise: float ? 0.001 : 0.003 });
        const audio = withDefects(base, random, (seed & 1) === 0);
        for (const max of [randomInt(random, 1, 5), randomInt(random, 6, 3000), randomInt(random, 3001, 200000)]) {
          const block = check(audio, randomChunkSizes(seed++, max));
          expect(block.audible).toBe(true);
        }
      }
    }
  }, 120_000);

  it("found what it looks for on those clips (the comparison is not between empty blocks)", () => {
    expect(events).toBeGreaterThan(20);
    expect(truncated).toBeGreaterThan(0);
  });

  it("digital silence (no second reading), noise without speech (measured whole), an empty clip and a 1-sample clip", () => {
    const rate = 16000;
    const silent: DecodedAudio = { sampleRate: rate, channels: 1, frames: rate, samples: new Int16Array(rate), format: "wav/pcm16", warnings: [] };
    expect(check(silent, randomChunkSizes(3, 999)).audible).toBe(false);
    const random = seededRandom(9);
    const noise = Int16Array.from({ length: 2 * rate }, () => Math.round(3000 * (random() - 0.5)));
    const whole = check({ ...silent, frames: 2 * rate, samples: noise }, randomChunkSizes(4, 777));
    expect([whole.audible, whole.whole_clip]).toEqual([true, true]);
    check({ ...silent, frames: 0, samples: new Int16Array(0) }, randomChunkSizes(5, 3));
    check({ ...silent, frames: 1, samples: Int16Array.of(1000) }, randomChunkSizes(6, 3));
  });

  it("the first channel as the mixdown, and a long clip whose percentiles are selected without sorting (> 65,536 blocks)", () => {
    const stereo = withDefects(speechLikeAudio(3, 22050, 2, 31, { clip: true }), seededRandom(32), true);
    check(stereo, randomChunkSizes(33, 4000), { ...DEFAULT_ACOUSTICS_OPTIONS, mixdown: "first" });
    const long = speechLikeAudio(340, 8000, 1, 41, { noise: 0.004 });
    const block = check(long, randomChunkSizes(42, 300000));
    expect(block.speech_s).toBeGreaterThan(100);
  }, 120_000);
});

describe("percentileOfLevels ≡ percentile of the sorted levels", () => {
  it("small and large arrays, over every block or runs of them, ties, negative and positive values, signed zeros", () => {
    const random = seededRandom(77);
    for (const n of [1, 2, 3, 10, 1000, 65536, 65537, 150000]) {
      const levels = Float32Array.from({ length: n }, () => {
        const r = random();
        if (r < 0.05) return -200;
        if (r < 0.1) return random() < 0.5 ? 0 : -0;
        if (r < 0.2) return Math.round(random() * 10) - 60;
        return (random() - 0.8) * 120;
      });
      // Runs of kept blocks, 1 to 40 long, with gaps of 0 to 40 blocks between them.
      const mask = new Uint8Array(n);
      const pairs: number[] = [];
      for (let at = randomInt(random, 0, 3); at < n;) {
        const to = Math.min(n, at + randomInt(random, 1, 40));
        mask.fill(1, at, to);
        pairs.push(at, to);
        at = to + randomInt(random, 1, 40);
      }
      const runs = Int32Array.from(pairs);
      const sorted = Array.from(levels).sort((a, b) => a - b);
      const kept = Array.from(levels).filter((_, i) => mask[i] === 1).sort((a, b) => a - b);
      for (const p of [0, 5, 10, 50, 90, 95, 99.9, 100]) {
        const all = percentile(sorted, p);
        // Equal as numbers (a tie of −0 and +0 may come out with either sign, as a sort keeps either first).
        expect(Math.abs(percentileOfLevels(levels, p)! - all!), `n ${n}, p ${p}`).toBe(0);
        const want = percentile(kept, p);
        const got = percentileOfLevels(levels, p, runs);
        expect(got === null ? null : Math.abs(got - want!), `masked, n ${n}, p ${p}`).toBe(want === null ? null : 0);
      }
    }
    expect(percentileOfLevels(new Float32Array(0), 50)).toBeNull();
    expect(percentileOfLevels(Float32Array.of(1, 2), 50, new Int32Array(0))).toBeNull();
  });
});
