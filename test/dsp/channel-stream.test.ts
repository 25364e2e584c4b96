// Streaming speech runs ≡ RecordingKernels.speechRuns on the whole recording, exactly, at random chunk sizes from 1 frame up.
import { describe, expect, it } from "vitest";
import { speechRunOptions } from "../../src/analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { memoryPcmSource, randomChunkSizes } from "../../src/audio/pcm-source.js";
import type { DecodedAudio } from "../../src/audio/types.js";
import { ChannelKernels } from "../../src/dsp/channel-kernels.js";
import { ActivityStream, readPlanarChunks, speechRunsStream } from "../../src/dsp/channel-stream.js";
import { RecordingKernels } from "../../src/dsp/recording-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { speechLikeAudio } from "../helpers/stream-audio.js";

const OPTIONS = speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS);
const BLOCK = 1 << 17;

function wholeRuns(audio: DecodedAudio, channel: number): Int32Array {
  return withArena((arena) => new RecordingKernels(arena, audio).speechRuns(channel, OPTIONS));
}

/** The first `frames` frames of a recording. */
function head(audio: DecodedAudio, frames: number): DecodedAudio {
  return {
    ...audio,
    frames,
    samples: audio.samples.slice(0, frames * audio.channels),
    floatChannels: audio.floatChannels?.map((c) => c.slice(0, frames)),
  };
}

describe("speechRunsStream ≡ RecordingKernels.speechRuns", () => {
  it.each([8000, 16000, 22050, 24000, 44100, 48000])("short clips at %i Hz, chunks of 1–7 frames, mono and stereo, int16 and float", (rate) => {
    let seed = rate;
    for (const channels of [1, 2]) {
      for (const float of [false, true]) {
        const audio = speechLikeAudio(0.9, rate, channels, seed++, { float, noise: float ? 0.003 : 0.001 });
        for (let c = 0; c < channels; c++) {
          const expected = wholeRuns(audio, c);
          for (const max of [1, 3, 7]) {
            expect(speechRunsStream(memoryPcmSource(audio, randomChunkSizes(seed++, max)), c, OPTIONS)).toEqual(expected);
          }
        }
      }
    }
  });

  it.each([8000, 16000, 22050, 24000, 44100, 48000])("long recordings at %i Hz across filter blocks, random chunk sizes", (rate) => {
    const seconds = Math.max(4, (2.4 * BLOCK) / rate);
    let seed = 7 * rate;
    for (const [channels, float] of [[1, false], [2, true], [2, false]] as const) {
      const audio = speechLikeAudio(seconds, rate, channels, seed++, { float, clip: channels === 2, dc: float ? 0.01 : 0 });
      for (let c = 0; c < channels; c++) {
        const expected = wholeRuns(audio, c);
        expect(expected.length).toBeGreaterThan(4);
        for (const max of [1000, 65536, 300000]) {
          expect(speechRunsStream(memoryPcmSource(audio, randomChunkSizes(seed++, max)), c, OPTIONS)).toEqual(expected);
        }
      }
    }
  });

  it("activity levels equal the whole-clip kernel at lengths around a filter block's end", () => {
    const rate = 16000;
    const audio = speechLikeAudio((2 * BLOCK + 400) / rate, rate, 1, 99, { noise: 0.01 });
    const sub = rate / 100;
    let seed = 5;
    for (const frames of [0, 1, sub - 1, sub, 2 * sub, 2 * sub + 1, BLOCK - 1, BLOCK, BLOCK + 1, BLOCK + sub - 1, BLOCK + sub, BLOCK + sub + 1, BLOCK + sub + 2, BLOCK + 2 * sub, 2 * BLOCK, 2 * BLOCK + sub + 2]) {
      const clip = head(audio, frames);
      const expected = withArena((arena) => ChannelKernels.copyOf(arena, clip.samples.length ? Float32Array.from(clip.samples, (s) => s / 32768) : new Float32Array(0), rate).activityLevels());
      for (const max of [frames < 50 ? 3 : 4096, 200000]) {
        const levels = withArena((arena) => {
          const activity = new ActivityStream(arena, rate, arena.alloc(ActivityStream.yBytes(arena)));
          readPlanarChunks(arena, memoryPcmSource(clip, randomChunkSizes(seed++, max)), [0], false, (chunk) => activity.push(chunk.channel(0), chunk.frames));
          return activity.finish();
        });
        expect(levels, `${frames} frames`).toEqual(expected);
      }
    }
  });

  it("names a bad channel", () => {
    const audio = speechLikeAudio(0.2, 16000, 2, 1);
    expect(() => speechRunsStream(memoryPcmSource(audio), 2, OPTIONS)).toThrow(/channel must be an integer in \[0, 1\], got 2/);
  });
});
