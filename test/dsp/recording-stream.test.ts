// speechRunsOfChannels: several channels' speech runs in one pass, each equal to speechRunsStream of that channel alone, whatever the source says of its length and whichever channels are asked (repeats included).
import { describe, expect, it } from "vitest";
import { speechRunOptions } from "../../src/analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { memoryPcmSource } from "../../src/audio/pcm-source.js";
import type { DecodedAudio } from "../../src/audio/types.js";
import { speechRunsStream } from "../../src/dsp/channel-stream.js";
import { IN_PLACE_DECISION_MIN_LEVELS, speechRunsOfChannels } from "../../src/dsp/recording-stream.js";
import { seededRandom } from "../helpers/random.js";

/** Bursts of a tone on each channel at its own times, over faint noise. */
function stereoCall(rate: number, seconds: number, channels: number, seed: number): DecodedAudio {
  const rnd = seededRandom(seed);
  const frames = Math.round(rate * seconds);
  const samples = new Int16Array(frames * channels);
  for (let c = 0; c < channels; c++) {
    for (let at = Math.floor(rnd() * rate); at < frames; ) {
      const length = Math.floor((0.4 + rnd() * 1.5) * rate);
      const f = 120 + 80 * c + 30 * rnd();
      for (let k = 0; k < length && at + k < frames; k++) samples[(at + k) * channels + c] = Math.round(9000 * Math.sin((2 * Math.PI * f * k) / rate));
      at += length + Math.floor((0.3 + rnd() * 1.2) * rate);
    }
  }
  for (let i = 0; i < samples.length; i++) samples[i] += Math.round((rnd() - 0.5) * 40);
  return { sampleRate: rate, channels, frames, samples, format: "wav/pcm16", warnings: [] };
}

describe("speechRunsOfChannels", () => {
  const options = speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS);

  for (const [rate, channels] of [[16000, 2], [24000, 3], [48000, 2]] as const) {
    it(`equals speechRunsStream per channel, ${rate} Hz, ${channels} channels, length known or not, any chunk size`, () => {
      const audio = stereoCall(rate, 12, channels, rate + channels);
      const alone = Array.from({ length: channels }, (_, c) => speechRunsStream(memoryPcmSource(audio), c, options));
      expect(alone.some((r) => r.length > 0)).toBe(true);
      const rnd = seededRandom(rate);
      for (const knownLength of [true, false]) {
        const source = { ...memoryPcmSource(audio, () => 1 + Math.floor(rnd() * 5000)), frames: knownLength ? audio.frames : null };
        const asked = channels === 2 ? [1, 0] : [2, 0, 2, 1];
        const runs = speechRunsOfChannels(source, asked, options);
        expect(runs.map((r) => Array.from(r))).toEqual(asked.map((c) => Array.from(alone[c])));
        // A channel asked twice gets two arrays: changing one leaves the other as it was.
        if (channels === 3) {
          expect(runs[0]).not.toBe(runs[2]);
          runs[0].fill(-1);
          expect(Array.from(runs[2])).toEqual(Array.from(alone[2]));
        }
      }
    });
  }

  it("decides a channel of more levels than IN_PLACE_DECISION_MIN_LEVELS where they are, with the same runs as speechRunsStream (the kernel on a copy)", () => {
    // 8 kHz (the lowest telephone rate) keeps the PCM small: the threshold is reached at about 44 minutes.
    const rate = 8000;
    const seconds = Math.ceil((IN_PLACE_DECISION_MIN_LEVELS * 1.05) / 100);
    const audio = stereoCall(rate, seconds, 2, 7);
    const runs = speechRunsOfChannels(memoryPcmSource(audio), [0, 1], options);
    const alone = [0, 1].map((c) => speechRunsStream(memoryPcmSource(audio), c, options));
    expect(alone.every((r) => r.length > 1000)).toBe(true);
    expect(runs.map((r) => Array.from(r))).toEqual(alone.map((r) => Array.from(r)));
  });

  it("refuses a channel the source does not have", () => {
    const audio = stereoCall(16000, 1, 2, 1);
    expect(() => speechRunsOfChannels(memoryPcmSource(audio), [0, 2], options)).toThrow(RangeError);
    expect(() => speechRunsOfChannels(memoryPcmSource(audio), [0.5], options)).toThrow(RangeError);
  });
});
