// Interleaved recording kernels ≡ the plain-TS conversions: channel floats, turn PCM and per-channel speech runs, exactly.
import { describe, expect, it } from "vitest";
import { speechRunOptions } from "../../src/analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { ChannelKernels } from "../../src/dsp/channel-kernels.js";
import { ClipKernels } from "../../src/dsp/clip-kernels.js";
import { RecordingKernels, type RecordingPcm } from "../../src/dsp/recording-kernels.js";
import { extractChannel, toFloatPlanar } from "../../src/dsp/reference/interleaved.js";
import { withArena } from "../../src/dsp/wasm.js";
import { seededRandom } from "../helpers/random.js";

const random = seededRandom(9001);
const OPTIONS = speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS);

/** Interleaved int16 with full-scale extremes, zeros and random values (and a trailing partial frame when `extra`). */
function interleaved(frames: number, channels: number, extra = 0): Int16Array {
  const x = new Int16Array(frames * channels + extra);
  for (let i = 0; i < x.length; i++) {
    const r = random();
    x[i] = r < 0.02 ? -32768 : r < 0.04 ? 32767 : r < 0.06 ? 0 : Math.floor(random() * 65536) - 32768;
  }
  return x;
}

function withRecording<T>(pcm: RecordingPcm, run: (r: RecordingKernels) => T): T {
  return withArena((arena) => run(new RecordingKernels(arena, pcm)));
}

const FRAMES = [0, 1, 2, 7, 8, 9, 15, 16, 17, 159, 160, 161, 1001, 24001];

describe("RecordingKernels ≡ plain TS", () => {
  it.each([2, 3, 1])("channel floats and turn PCM, %i channel(s)", (channels) => {
    for (const frames of FRAMES) {
      const extra = frames % 3 === 0 ? channels - 1 : 0;
      const x = interleaved(frames, channels, extra);
      const planar = toFloatPlanar({ samples: x, channels });
      const floats = withArena((arena) => {
        const clip = new ClipKernels(arena, { samples: x, channels, sampleRate: 8000 }).planar();
        return Array.from({ length: channels }, (_, c) => clip.samples(c).slice());
      });
      withRecording({ samples: x, channels, sampleRate: 8000 }, (r) => {
        expect(r.frames).toBe(frames);
        for (let c = 0; c < channels; c++) {
          expect(Buffer.from(floats[c].buffer).equals(Buffer.from(planar[c].buffer)), `frames=${frames} c=${c}`).toBe(true);
          for (let t = 0; t < 6; t++) {
            const from = Math.floor(random() * (frames + 1));
            const to = t === 0 ? frames : from + Math.floor(random() * (frames - from + 1));
            const got = new Int16Array(to - from);
            r.pcm16(c, from, to, got);
            expect(Array.from(got), `frames=${frames} c=${c} [${from}, ${to})`).toEqual(
              Array.from(extractChannel(x.subarray(from * channels, to * channels), channels, c)),
            );
          }
        }
      });
    }
  });

  it.each([8000, 16000])("speech runs per channel = ChannelKernels over toFloatPlanar (or the exact float channel), %i Hz", (rate) => {
    for (const seconds of [0, 0.01, 0.03, 1.5, 12.34]) {
      const frames = Math.floor(rate * seconds);
      const channels = 2;
      const x = new Int16Array(frames * channels);
      // Faint noise on both channels, bursts on each.
      for (let i = 0; i < x.length; i++) x[i] = Math.floor(random() * 31) - 15;
      for (let b = 0; b < 6; b++) {
        const c = b % 2, s = Math.floor(random() * frames), e = Math.min(frames, s + Math.floor(random() * rate * 2));
        const f = 150 + 300 * random();
        for (let k = s; k < e; k++) x[k * channels + c] = Math.round(8000 * Math.sin((2 * Math.PI * f * k) / rate));
      }
      const planar = toFloatPlanar({ samples: x, channels });
      const exact = planar.map((p) => p.map((v) => v * 0.75));
      const want = (signal: Float32Array) => {
        if (signal.length === 0) return [];
        return withArena((arena) => Array.from(ChannelKernels.copyOf(arena, signal, rate).speechRuns(OPTIONS)));
      };
      const expected = planar.map(want);
      const expectedExact = exact.map(want);
      // The int16 recording, and the same samples decoded from a float source (detection on the exact floats).
      for (const [pcm, runs] of [[{ samples: x, channels, sampleRate: rate }, expected], [{ samples: x, channels, sampleRate: rate, floatChannels: exact }, expectedExact]] as const) {
        withRecording(pcm, (r) => {
          for (const c of [1, 0, 1]) {
            expect(Array.from(r.speechRuns(c, OPTIONS)), `frames=${frames} c=${c}${"floatChannels" in pcm ? " exact" : ""}`).toEqual(runs[c]);
          }
          // Turn PCM is still cut correctly after the detector has used the arena.
          const got = new Int16Array(frames);
          r.pcm16(1, 0, frames, got);
          expect(Array.from(got)).toEqual(Array.from(extractChannel(x, channels, 1)));
        });
      }
    }
  });

  it.each([1, 2, 3])("ClipKernels.planar = toFloatPlanar bit for bit, %i channel(s)", (channels) => {
    const planarOf = (pcm: RecordingPcm) =>
      withArena((arena) => {
        const planar = new ClipKernels(arena, pcm).planar();
        return Array.from({ length: planar.channels }, (_, c) => planar.samples(c).slice());
      });
    for (const frames of FRAMES) {
      const x = interleaved(frames, channels, frames % 2 ? channels - 1 : 0);
      const got = planarOf({ samples: x, channels, sampleRate: 16000 });
      const want = toFloatPlanar({ samples: x, channels });
      expect(got.length).toBe(channels);
      got.forEach((g, c) => expect(Buffer.from(g.buffer, g.byteOffset, g.byteLength).equals(Buffer.from(want[c].buffer)), `frames=${frames} c=${c}`).toBe(true));
    }
    const floatChannels = [new Float32Array([0.1, -0.2])];
    expect(planarOf({ samples: new Int16Array(2), channels: 1, sampleRate: 8000, floatChannels })).toEqual(floatChannels);
  });

  it("rejects channels and ranges outside the recording", () => {
    withRecording({ samples: interleaved(10, 2), channels: 2, sampleRate: 8000 }, (r) => {
      expect(() => r.pcm16(2, 0, 1, new Int16Array(1))).toThrow(RangeError);
      expect(() => r.pcm16(0, 5, 11, new Int16Array(6))).toThrow(RangeError);
      expect(() => r.pcm16(0, 0, 3, new Int16Array(2))).toThrow(RangeError);
    });
    withRecording({ samples: interleaved(10, 2), channels: 2, sampleRate: 8000, floatChannels: [new Float32Array(9), new Float32Array(9)] }, (r) => {
      expect(() => r.speechRuns(0, OPTIONS)).toThrow(RangeError);
    });
  });
});
