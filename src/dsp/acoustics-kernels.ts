// Typed wrappers of the standards-set kernels other than loudness: activity levels and speech runs, intensity, YIN, signal stats, spectrum.
//
// A ChannelKernels session copies one channel into the arena once and runs every kernel over it;
// each method allocates its own outputs and re-creates views afterwards (memory.grow detaches
// them). One session at a time per thread: it owns the arena until dispose().
import { openArena, type Arena, type KernelExports } from "./wasm.js";

/** @internal Raw exports of the standards-set kernels (recording-kernels.ts shares them). */
export interface AcousticsKernels extends KernelExports {
  activityFrameCount(n: number, sampleRate: number): number;
  activityScratchSize(): number;
  activityLevels(input: number, n: number, sampleRate: number, scratch: number, out: number): number;
  activitySpeechRunsScratchSize(n: number): number;
  activitySpeechRuns(levels: number, n: number, peakPercentile: number, noisePercentile: number, halfWindow: number,
    enterAboveNoiseDb: number, enterBelowPeakDb: number, stayBelowEnterDb: number, hangoverFrames: number,
    scratch: number, out: number): number;
  deinterleaveF32(input: number, channels: number, channel: number, from: number, to: number, out: number): number;
  deinterleaveI16(input: number, channels: number, channel: number, from: number, to: number, out: number): number;
  syllableKaiserWindow(window: number, length: number, beta: number): number;
  syllableFrameCount(n: number, length: number, step: number): number;
  syllableIntensity(input: number, n: number, window: number, length: number, step: number, out: number): number;
  yinDecimateScratchSize(): number;
  yinDecimate(input: number, n: number, sampleRate: number, cutoffHz: number, factor: number, scratch: number, out: number): number;
  yinFrames(input: number, n: number, starts: number, count: number, window: number, tauMin: number, tauMax: number,
    threshold: number, scratch: number, outPeriod: number, outAperiodicity: number): number;
  signalStats(input: number, n: number, clipLevel: number, minRun: number, out: number): number;
  spectrumScratchSize(fftSize: number): number;
  spectrumAccumulate(input: number, n: number, starts: number, count: number, fftSize: number, scratch: number, power: number): number;
}

/** Speech-run decision parameters in activity frames (10 ms hop), acoustics.md §2.3. */
export interface SpeechRunOptions {
  /** Percentile of all frame levels taken as the speech peak P (%). */
  peakPercentile: number;
  /** Percentile of the frame levels in the noise window taken as the noise floor (%). */
  noisePercentile: number;
  /** Half the noise window (frames, ≥ 1). */
  noiseHalfWindowFrames: number;
  enterAboveNoiseDb: number;
  enterBelowPeakDb: number;
  stayBelowEnterDb: number;
  /** Frames at or below T_off a run survives (frames). */
  hangoverFrames: number;
}

export interface SignalStats {
  sum: number;
  sumAbs: number;
  sumLn: number;
  clippingRuns: number;
  clippedSamples: number;
}

export interface YinResult {
  /** Period in samples of the analysed signal (0 = frame did not fit). */
  period: Float32Array;
  /** d′(τ*) per frame (1 = undefined). */
  aperiodicity: Float32Array;
}

/** @internal */
export function check(status: number, kernel: string): number {
  if (status < 0) throw new Error(`voxmetrics: kernel ${kernel} failed with status ${status}`);
  return status;
}

/**
 * @internal Frame levels and speech runs of the `n` f32 samples at `input`, all in the arena: returns
 * (first frame, last active frame) pairs. Allocates from `arena`; views made before are detached.
 */
export function speechRunsAt(arena: Arena, k: AcousticsKernels, input: number, n: number, sampleRate: number, o: SpeechRunOptions): Int32Array {
  const frames = k.activityFrameCount(n, sampleRate);
  const scratch = arena.alloc(k.activityScratchSize());
  const levels = arena.allocF32(frames);
  check(k.activityLevels(input, n, sampleRate, scratch, levels), "activityLevels");
  return runsOfLevelsAt(arena, k, levels, frames, o);
}

function runsOfLevelsAt(arena: Arena, k: AcousticsKernels, levels: number, n: number, o: SpeechRunOptions): Int32Array {
  const scratch = arena.alloc(k.activitySpeechRunsScratchSize(n));
  const out = arena.allocI32(2 * n);
  const runs = check(k.activitySpeechRuns(levels, n, o.peakPercentile, o.noisePercentile, o.noiseHalfWindowFrames,
    o.enterAboveNoiseDb, o.enterBelowPeakDb, o.stayBelowEnterDb, o.hangoverFrames, scratch, out), "activitySpeechRuns");
  return arena.i32(out, 2 * runs).slice();
}

/** Speech runs of given frame levels (f32 dBFS at a 10 ms hop), as pairs (first frame, last frame above T_off). */
export function speechRunsOfLevels(levels: Float32Array, o: SpeechRunOptions): Int32Array {
  const arena = openArena();
  try {
    return runsOfLevelsAt(arena, arena.k as AcousticsKernels, arena.putF32(levels), levels.length, o);
  } finally {
    arena.reset();
  }
}

/** One channel in WebAssembly memory and the kernels that read it. */
export class ChannelKernels {
  readonly length: number;
  readonly sampleRate: number;
  private readonly arena: Arena;
  private readonly k: AcousticsKernels;
  private readonly input: number;
  private decimated: { ptr: number; length: number; rate: number; factor: number; cutoffHz: number } | null = null;

  constructor(samples: Float32Array, sampleRate: number) {
    this.arena = openArena();
    this.k = this.arena.k as AcousticsKernels;
    this.length = samples.length;
    this.sampleRate = sampleRate;
    this.input = this.arena.putF32(samples);
  }

  /** 20 ms / 10 ms band-passed frame levels (dBFS), acoustics.md §2.3. */
  activityLevels(): Float32Array {
    const frames = this.k.activityFrameCount(this.length, this.sampleRate);
    const scratch = this.arena.alloc(this.k.activityScratchSize());
    const out = this.arena.allocF32(frames);
    check(this.k.activityLevels(this.input, this.length, this.sampleRate, scratch, out), "activityLevels");
    return this.arena.f32(out, frames).slice();
  }

  /** Speech runs over the activity levels (frame pairs: first frame, last frame above T_off), §2.3. */
  speechRuns(options: SpeechRunOptions): Int32Array {
    return speechRunsAt(this.arena, this.k, this.input, this.length, this.sampleRate, options);
  }

  /** Kaiser-windowed intensity contour (dB) with the given window and step in samples, §3.2. */
  intensity(windowLength: number, step: number, beta: number): Float32Array {
    const window = this.arena.allocF32(windowLength);
    check(this.k.syllableKaiserWindow(window, windowLength, beta), "syllableKaiserWindow");
    const frames = this.k.syllableFrameCount(this.length, windowLength, step);
    const out = this.arena.allocF32(frames);
    check(this.k.syllableIntensity(this.input, this.length, window, windowLength, step, out), "syllableIntensity");
    return this.arena.f32(out, frames).slice();
  }

  /** Low-pass at `cutoffHz` and decimate by `factor` once; later yin() calls read that signal. */
  decimateForPitch(cutoffHz: number, factor: number): number {
    if (!this.decimated || this.decimated.factor !== factor || this.decimated.cutoffHz !== cutoffHz) {
      const capacity = Math.ceil(this.length / factor);
      const scratch = this.arena.alloc(this.k.yinDecimateScratchSize());
      const ptr = this.arena.allocF32(capacity);
      const length = check(this.k.yinDecimate(this.input, this.length, this.sampleRate, cutoffHz, factor, scratch, ptr), "yinDecimate");
      this.decimated = { ptr, length, rate: this.sampleRate / factor, factor, cutoffHz };
    }
    return this.decimated.rate;
  }

  /** YIN on the decimated signal at the given frame starts (decimated samples). */
  yin(starts: Int32Array, window: number, tauMin: number, tauMax: number, threshold: number): YinResult {
    if (!this.decimated) throw new Error("decimateForPitch must run before yin");
    const count = starts.length;
    const startsPtr = this.arena.allocI32(count);
    const scratch = this.arena.allocF64(tauMax + 1);
    const period = this.arena.allocF32(count);
    const aperiodicity = this.arena.allocF32(count);
    this.arena.i32(startsPtr, count).set(starts);
    check(this.k.yinFrames(this.decimated.ptr, this.decimated.length, startsPtr, count, window, tauMin, tauMax, threshold, scratch, period, aperiodicity), "yinFrames");
    return { period: this.arena.f32(period, count).slice(), aperiodicity: this.arena.f32(aperiodicity, count).slice() };
  }

  /** Σx, Σ|x|, Σ ln max(|x|, 1e−10) and clipping runs, §4 and §5.1. */
  stats(clipLevel: number, minRun: number): SignalStats {
    const out = this.arena.allocF64(5);
    check(this.k.signalStats(this.input, this.length, clipLevel, minRun, out), "signalStats");
    const v = this.arena.f64(out, 5);
    return { sum: v[0], sumAbs: v[1], sumLn: v[2], clippingRuns: v[3], clippedSamples: v[4] };
  }

  /** Sum of Hann-windowed power spectra of the frames at `starts`; returns N/2 + 1 bins and the frames used. */
  spectrum(starts: Int32Array, fftSize: number): { power: Float64Array; frames: number } {
    const count = starts.length;
    const startsPtr = this.arena.allocI32(count);
    const scratch = this.arena.allocF64(this.k.spectrumScratchSize(fftSize));
    const power = this.arena.allocF64(fftSize / 2 + 1);
    this.arena.i32(startsPtr, count).set(starts);
    this.arena.f64(power, fftSize / 2 + 1).fill(0);
    const frames = check(this.k.spectrumAccumulate(this.input, this.length, startsPtr, count, fftSize, scratch, power), "spectrumAccumulate");
    return { power: this.arena.f64(power, fftSize / 2 + 1).slice(), frames };
  }

  /** Release the arena. */
  dispose(): void {
    this.arena.reset();
  }
}

