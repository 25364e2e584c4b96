// One clip in WebAssembly memory for the whole of its analysis: deepeval's int16 mono mix for the parity kernels, planar float channels for loudness and the per-channel kernels (voice-metrics.md §2.3, acoustics.md §1.2).
//
// A decoded clip is copied in once as int16; its float channels are made from that copy in
// WebAssembly, unless the source held exact float samples, which are then copied in too (the
// second and last copy). Everything else (the mono mix, the mixdown, every measurement) reads
// those regions in place.
import { ChannelKernels } from "./channel-kernels.js";
import { expectResult } from "./kernel-error.js";
import { measureLoudnessAt, type LoudnessMeasurement, type LoudnessMeterOptions } from "./loudness.js";
import { measureParityFramesAt, type ParityFrames } from "./parity.js";
import type { Arena } from "./wasm.js";

/** How the signal for the per-channel measures is made from several channels. */
export type MixdownMode = "mean" | "first";

/** Planar float channels in a session's arena (channel c at `ptr` + 4·c·frames). */
export class PlanarKernels {
  constructor(
    private readonly arena: Arena,
    private readonly ptr: number,
    readonly channels: number,
    readonly frames: number,
    readonly sampleRate: number,
  ) {}

  /** Planar channels of equal length copied into the session's arena. */
  static copyOf(arena: Arena, channels: readonly Float32Array[], sampleRate: number): PlanarKernels {
    const frames = channels[0].length;
    const ptr = arena.allocF32(frames * channels.length);
    channels.forEach((c, i) => arena.copyPcmTo(ptr + 4 * i * frames, c));
    return new PlanarKernels(arena, ptr, channels.length, frames, sampleRate);
  }

  /** Channel `c` alone, in place. */
  channel(c: number): PlanarKernels {
    return new PlanarKernels(this.arena, this.ptr + 4 * c * this.frames, 1, this.frames, this.sampleRate);
  }

  /** A view of channel `c`'s samples (valid until the session's next allocation). */
  samples(c: number): Float32Array {
    return this.arena.f32(this.ptr + 4 * c * this.frames, this.frames);
  }

  /** BS.1770 loudness and peaks of all the channels together, read in place. */
  loudness(options: LoudnessMeterOptions): LoudnessMeasurement {
    return measureLoudnessAt(this.arena, { ptr: this.ptr, channels: this.channels, frames: this.frames, stride: this.frames }, this.sampleRate, options);
  }

  /** The one signal of the per-channel measures: the only channel, the first, or the per-sample mean (computed in the arena). */
  mixdown(mode: MixdownMode): ChannelKernels {
    if (this.channels === 1 || mode === "first") return new ChannelKernels(this.arena, this.ptr, this.frames, this.sampleRate);
    const out = this.arena.allocF32(this.frames);
    expectResult(this.arena.k.mixdownMeanF32(this.ptr, this.channels, this.frames, out), this.frames, "mixdownMeanF32");
    return new ChannelKernels(this.arena, out, this.frames, this.sampleRate);
  }
}

/** Whole frames of interleaved `samples` with `channels` per frame (a trailing partial frame does not count); a RangeError for a bad channel count. */
export function wholeFrames(samples: Int16Array, channels: number): number {
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channels must be an integer ≥ 1, got ${channels}`);
  return Math.floor(samples.length / channels);
}

/** A decoded clip: interleaved int16, and the exact planar floats when the source had them. */
export interface ClipPcm {
  samples: Int16Array;
  channels: number;
  sampleRate: number;
  floatChannels?: readonly Float32Array[];
}

/** One decoded clip in a session's arena. */
export class ClipKernels {
  /** Whole frames (a trailing partial frame of the samples is ignored). */
  readonly frames: number;
  private readonly interleaved: number;
  private planarKernels: PlanarKernels | null = null;

  constructor(
    private readonly arena: Arena,
    private readonly pcm: ClipPcm,
  ) {
    this.frames = wholeFrames(pcm.samples, pcm.channels);
    this.interleaved = arena.copyPcm(pcm.samples.subarray(0, this.frames * pcm.channels));
  }

  /** The parity kernels' raw results over deepeval's truncating int16 mono mix (made in the arena for several channels). */
  parityFrames(): ParityFrames {
    const { channels, sampleRate } = this.pcm;
    let mono = this.interleaved;
    if (channels > 1) {
      mono = this.arena.allocI16(this.frames);
      expectResult(this.arena.k.downmixTruncatingI16(this.interleaved, channels, this.frames, mono), this.frames, "downmixTruncatingI16");
    }
    return measureParityFramesAt(this.arena, mono, this.frames, sampleRate);
  }

  /** The clip as planar float channels in [−1, 1): the exact float source when there is one, else int16 / 32768 (made once). */
  planar(): PlanarKernels {
    if (this.planarKernels) return this.planarKernels;
    const { channels, sampleRate, floatChannels } = this.pcm;
    if (floatChannels) return (this.planarKernels = PlanarKernels.copyOf(this.arena, floatChannels, sampleRate));
    const ptr = this.arena.allocF32(this.frames * channels);
    for (let c = 0; c < channels; c++) {
      expectResult(this.arena.k.deinterleaveF32(this.interleaved, channels, c, 0, this.frames, ptr + 4 * c * this.frames), this.frames, "deinterleaveF32");
    }
    return (this.planarKernels = new PlanarKernels(this.arena, ptr, channels, this.frames, sampleRate));
  }
}
