// A whole interleaved int16 recording in WebAssembly memory: per-channel speech runs and turn PCM cut from it (formats.md F5).
//
// The recording is copied into the arena once; each channel is de-interleaved and converted there,
// and each turn's int16 samples are written straight into a caller-given array (a WAV's data
// region), so no per-sample loop runs in JavaScript. One session at a time per thread: it owns the
// arena until dispose().
import { check, speechRunsAt, type AcousticsKernels, type SpeechRunOptions } from "./acoustics-kernels.js";
import { openArena, type Arena } from "./wasm.js";

/** One interleaved int16 recording in WebAssembly memory. */
export class RecordingKernels {
  /** Whole frames of the recording. */
  readonly frames: number;
  readonly channels: number;
  readonly sampleRate: number;
  private readonly arena: Arena;
  private readonly k: AcousticsKernels;
  private readonly input: number;
  private readonly channel: number;
  private turn = 0;
  private turnCapacity = 0;

  /** `samples` interleaved with `channels` per frame; a trailing partial frame is ignored. */
  constructor(samples: Int16Array, channels: number, sampleRate: number) {
    if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channels must be an integer ≥ 1, got ${channels}`);
    this.arena = openArena();
    this.k = this.arena.k as AcousticsKernels;
    this.frames = Math.floor(samples.length / channels);
    this.channels = channels;
    this.sampleRate = sampleRate;
    this.input = this.arena.putI16(samples.subarray(0, this.frames * channels));
    this.channel = this.arena.allocF32(this.frames);
  }

  /**
   * Speech runs of `channel` (frame pairs: first frame, last frame above T_off), from int16 / 32768,
   * or from `exact` (that channel's float samples, `frames` long) when the source had them.
   */
  speechRuns(channel: number, options: SpeechRunOptions, exact?: Float32Array): Int32Array {
    this.checkChannel(channel);
    if (exact) {
      if (exact.length !== this.frames) throw new RangeError(`the float channel has ${exact.length} samples, expected ${this.frames}`);
      this.arena.f32(this.channel, this.frames).set(exact);
    } else {
      check(this.k.deinterleaveF32(this.input, this.channels, channel, 0, this.frames, this.channel), "deinterleaveF32");
    }
    return speechRunsAt(this.arena, this.k, this.channel, this.frames, this.sampleRate, options);
  }

  /** `channel` as float32 int16 / 32768, as toFloatPlanar gives it (a copy). */
  channelFloat(channel: number): Float32Array {
    this.checkChannel(channel);
    check(this.k.deinterleaveF32(this.input, this.channels, channel, 0, this.frames, this.channel), "deinterleaveF32");
    return this.arena.f32(this.channel, this.frames).slice();
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
    if (n > this.turnCapacity) {
      this.turn = this.arena.allocI16(n);
      this.turnCapacity = n;
    }
    check(this.k.deinterleaveI16(this.input, this.channels, channel, from, to, this.turn), "deinterleaveI16");
    into.set(this.arena.i16(this.turn, n));
  }

  /** Release the arena. */
  dispose(): void {
    this.arena.reset();
  }

  private checkChannel(channel: number): void {
    if (!Number.isInteger(channel) || channel < 0 || channel >= this.channels) {
      throw new RangeError(`channel must be an integer in [0, ${this.channels - 1}], got ${channel}`);
    }
  }
}

/**
 * Planar float32 in [−1, 1), as toFloatPlanar (src/audio/convert.ts) gives it, the int16 / 32768
 * conversion done in WebAssembly: the exact float source when there is one, else every channel of
 * the interleaved int16. Opens (and resets) the thread's arena, so no other session may be open.
 */
export function convertToFloatPlanar(audio: { samples: Int16Array; channels: number; sampleRate: number; floatChannels?: Float32Array[] }): Float32Array[] {
  if (audio.floatChannels) return audio.floatChannels;
  const recording = new RecordingKernels(audio.samples, audio.channels, audio.sampleRate);
  try {
    return Array.from({ length: audio.channels }, (_, c) => recording.channelFloat(c));
  } finally {
    recording.dispose();
  }
}
