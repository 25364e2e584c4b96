// A whole interleaved recording in WebAssembly memory: per-channel speech runs and turn PCM cut from it (formats.md F5).
//
// An int16 recording is copied into the arena once; each channel is de-interleaved and converted
// there, and each turn's int16 samples are written straight into a caller-given array (a WAV's data
// region), so no per-sample loop runs in JavaScript. A recording decoded from float samples has its
// speech detected on the exact floats, copied in channel by channel; its int16 samples then stay in
// JavaScript (turns are cut there), so every sample still enters WebAssembly memory once before the
// turn clips are analysed.
import { ChannelKernels, type SpeechRunOptions } from "./channel-kernels.js";
import { wholeFrames } from "./clip-kernels.js";
import { checkStatus } from "./kernel-error.js";
import type { Arena } from "./wasm.js";

/** A decoded recording: interleaved int16, and the exact planar floats when the source had them. */
export interface RecordingPcm {
  samples: Int16Array;
  channels: number;
  sampleRate: number;
  floatChannels?: readonly Float32Array[];
}

/** One interleaved recording in a session's arena. */
export class RecordingKernels {
  /** Whole frames of the recording. */
  readonly frames: number;
  readonly channels: number;
  readonly sampleRate: number;
  /** The int16 recording in the arena; 0 when the recording is read from its float channels. */
  private readonly input: number;
  private readonly channel: number;
  private turn = 0;
  private turnCapacity = 0;

  /** A trailing partial frame of `pcm.samples` is ignored. */
  constructor(
    private readonly arena: Arena,
    private readonly pcm: RecordingPcm,
  ) {
    this.frames = wholeFrames(pcm.samples, pcm.channels);
    this.channels = pcm.channels;
    this.sampleRate = pcm.sampleRate;
    this.input = pcm.floatChannels ? 0 : arena.copyPcm(pcm.samples.subarray(0, this.frames * pcm.channels));
    this.channel = arena.allocF32(this.frames);
  }

  /** Speech runs of `channel` (frame pairs: first frame, last frame above T_off), from its exact floats or int16 / 32768. */
  speechRuns(channel: number, options: SpeechRunOptions): Int32Array {
    this.checkChannel(channel);
    const exact = this.pcm.floatChannels?.[channel];
    if (exact) {
      if (exact.length !== this.frames) throw new RangeError(`the float channel has ${exact.length} samples, expected ${this.frames}`);
      this.arena.copyPcmTo(this.channel, exact);
    } else {
      checkStatus(this.arena.k.deinterleaveF32(this.input, this.channels, channel, 0, this.frames, this.channel), "deinterleaveF32");
    }
    return new ChannelKernels(this.arena, this.channel, this.frames, this.sampleRate).speechRuns(options);
  }

  /** Write frames [from, to) of `channel` as int16 into `into` (length to − from). */
  pcm16(channel: number, from: number, to: number, into: Int16Array): void {
    this.checkChannel(channel);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > this.frames) {
      throw new RangeError(`frames [${from}, ${to}) are not inside [0, ${this.frames})`);
    }
    const n = to - from;
    if (into.length !== n) throw new RangeError(`the output holds ${into.length} samples, expected ${n}`);
    if (n === 0) return;
    if (this.input === 0) {
      // Float sources keep their int16 samples here (copying them in too would be a third copy).
      const { samples, channels } = this.pcm;
      for (let k = 0, o = from * channels + channel; k < n; k++, o += channels) into[k] = samples[o];
      return;
    }
    if (n > this.turnCapacity) {
      this.turn = this.arena.allocI16(n);
      this.turnCapacity = n;
    }
    checkStatus(this.arena.k.deinterleaveI16(this.input, this.channels, channel, from, to, this.turn), "deinterleaveI16");
    into.set(this.arena.i16(this.turn, n));
  }

  private checkChannel(channel: number): void {
    if (!Number.isInteger(channel) || channel < 0 || channel >= this.channels) {
      throw new RangeError(`channel must be an integer in [0, ${this.channels - 1}], got ${channel}`);
    }
  }
}
