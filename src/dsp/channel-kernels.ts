// Typed wrappers of the per-channel standards-set kernels: activity levels and speech runs, intensity, YIN, signal stats, spectrum.
//
// ChannelKernels reads one float channel that already sits in an arena session (a clip's channel, or
// its mixdown): each method allocates its own outputs from the session and re-creates views
// afterwards (memory.grow detaches them).
import { checkStatus, KernelError } from "./kernel-error.js";
import type { Arena } from "./wasm.js";

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

/** A run of exact-zero samples [start, end) and the levels (dB) of the samples just before and after it. */
export interface ZeroRun {
  start: number;
  end: number;
  beforeDb: number;
  afterDb: number;
}

/** Parameters of the repeated-segment scan (samples, except `scale` and the ratios). */
export interface RepeatScanOptions {
  /** Hashed window (samples). */
  window: number;
  /** Quantisation: q = floor(x · scale). */
  scale: number;
  /** Least Σ|q| over the window for it to be hashed (keeps silence and faint noise out). */
  gate: number;
  minLag: number;
  maxLag: number;
  /** Verification block (samples). */
  blockLength: number;
  /** A block matches while Σ(x − x_lag)² ≤ matchRatio · Σx². */
  matchRatio: number;
  /** A verified run counts when it is at least this fraction of the lag. */
  minRunFraction: number;
  /** log2 of the hash table's slots. */
  tableBits: number;
}

/** A repeat found by the scan: from sample `start` on, `run` samples equal those `lag` samples earlier. */
export interface RepeatRun {
  start: number;
  lag: number;
  run: number;
}

export interface YinResult {
  /** Period in samples of the analysed signal (0 = frame did not fit). */
  period: Float32Array;
  /** d′(τ*) per frame (1 = undefined). */
  aperiodicity: Float32Array;
}

/** Speech runs over `n` f32 frame levels at `levels` in a session's arena (frame pairs). */
export function runsOfLevelsAt(arena: Arena, levels: number, n: number, o: SpeechRunOptions): Int32Array {
  const k = arena.k;
  const scratch = arena.alloc(k.activitySpeechRunsScratchSize(n));
  const out = arena.allocI32(2 * n);
  const runs = checkStatus(k.activitySpeechRuns(levels, n, o.peakPercentile, o.noisePercentile, o.noiseHalfWindowFrames,
    o.enterAboveNoiseDb, o.enterBelowPeakDb, o.stayBelowEnterDb, o.hangoverFrames, scratch, out), "activitySpeechRuns");
  return arena.i32(out, 2 * runs).slice();
}

/** One float channel in a session's arena and the kernels that read it. */
export class ChannelKernels {
  private readonly k: Arena["k"];
  private decimated: { ptr: number; length: number; rate: number; factor: number; cutoffHz: number } | null = null;

  /** The `length` f32 samples at `input` in `arena`, at an integer `sampleRate` (Hz). */
  constructor(
    private readonly arena: Arena,
    private readonly input: number,
    readonly length: number,
    readonly sampleRate: number,
  ) {
    this.k = arena.k;
  }

  /** A channel copied into the session's arena. */
  static copyOf(arena: Arena, samples: Float32Array, sampleRate: number): ChannelKernels {
    return new ChannelKernels(arena, arena.copyPcm(samples), samples.length, sampleRate);
  }

  /** 20 ms / 10 ms band-passed frame levels (dBFS), acoustics.md §2.3. */
  activityLevels(): Float32Array {
    const { levels, frames } = this.levelsInArena();
    return this.arena.f32(levels, frames).slice();
  }

  /** Speech runs over the activity levels (frame pairs: first frame, last frame above T_off), §2.3. */
  speechRuns(options: SpeechRunOptions): Int32Array {
    const { levels, frames } = this.levelsInArena();
    return runsOfLevelsAt(this.arena, levels, frames, options);
  }

  private levelsInArena(): { levels: number; frames: number } {
    const frames = this.k.activityFrameCount(this.length, this.sampleRate);
    const scratch = this.arena.alloc(this.k.activityScratchSize());
    const levels = this.arena.allocF32(frames);
    checkStatus(this.k.activityLevels(this.input, this.length, this.sampleRate, scratch, levels), "activityLevels");
    return { levels, frames };
  }

  /** Kaiser-windowed intensity contour (dB) with the given window and step in samples, §3.2. */
  intensity(windowLength: number, step: number, beta: number): Float32Array {
    const window = this.arena.allocF32(windowLength);
    checkStatus(this.k.syllableKaiserWindow(window, windowLength, beta), "syllableKaiserWindow");
    const frames = this.k.syllableFrameCount(this.length, windowLength, step);
    const out = this.arena.allocF32(frames);
    checkStatus(this.k.syllableIntensity(this.input, this.length, window, windowLength, step, out), "syllableIntensity");
    return this.arena.f32(out, frames).slice();
  }

  /** Low-pass at `cutoffHz` and decimate by `factor` once; later yin() calls read that signal. */
  decimateForPitch(cutoffHz: number, factor: number): number {
    if (!this.decimated || this.decimated.factor !== factor || this.decimated.cutoffHz !== cutoffHz) {
      const capacity = Math.ceil(this.length / factor);
      const scratch = this.arena.alloc(this.k.yinDecimateScratchSize());
      const ptr = this.arena.allocF32(capacity);
      const length = checkStatus(this.k.yinDecimate(this.input, this.length, this.sampleRate, cutoffHz, factor, scratch, ptr), "yinDecimate");
      this.decimated = { ptr, length, rate: this.sampleRate / factor, factor, cutoffHz };
    }
    return this.decimated.rate;
  }

  /** YIN on the decimated signal at the given frame starts (decimated samples). */
  yin(starts: Int32Array, window: number, tauMin: number, tauMax: number, threshold: number): YinResult {
    if (!this.decimated) throw new KernelError("UNEXPECTED_RESULT", "yinFrames", "decimateForPitch must run before yin");
    const count = starts.length;
    const startsPtr = this.arena.allocI32(count);
    const scratch = this.arena.allocF64(tauMax + 1);
    const period = this.arena.allocF32(count);
    const aperiodicity = this.arena.allocF32(count);
    this.arena.i32(startsPtr, count).set(starts);
    checkStatus(this.k.yinFrames(this.decimated.ptr, this.decimated.length, startsPtr, count, window, tauMin, tauMax, threshold, scratch, period, aperiodicity), "yinFrames");
    return { period: this.arena.f32(period, count).slice(), aperiodicity: this.arena.f32(aperiodicity, count).slice() };
  }

  /** Σx, Σ|x|, Σ ln max(|x|, 1e−10) and clipping runs, §4 and §5.1. */
  stats(clipLevel: number, minRun: number): SignalStats {
    const out = this.arena.allocF64(5);
    checkStatus(this.k.signalStats(this.input, this.length, clipLevel, minRun, out), "signalStats");
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
    const frames = checkStatus(this.k.spectrumAccumulate(this.input, this.length, startsPtr, count, fftSize, scratch, power), "spectrumAccumulate");
    return { power: this.arena.f64(power, fftSize / 2 + 1).slice(), frames };
  }

  /** Mean-square levels (dB, −200 for digital silence) of consecutive `blockLength`-sample blocks, the last partial. */
  blockLevels(blockLength: number): Float32Array {
    const blocks = this.k.integrityBlockCount(this.length, blockLength);
    const out = this.arena.allocF32(Math.max(1, blocks));
    checkStatus(this.k.integrityBlockLevels(this.input, this.length, blockLength, out), "integrityBlockLevels");
    return this.arena.f32(out, blocks).slice();
  }

  /** Runs of at least `minRun` exact zeros with the levels of the `edgeLength` samples around each. */
  zeroRuns(minRun: number, edgeLength: number): ZeroRun[] {
    const capacity = Math.floor(this.length / minRun) + 1;
    const runs = this.arena.allocI32(2 * capacity);
    const edges = this.arena.allocF32(2 * capacity);
    const count = checkStatus(this.k.integrityZeroRuns(this.input, this.length, minRun, edgeLength, runs, edges, capacity), "integrityZeroRuns");
    const r = this.arena.i32(runs, 2 * count), e = this.arena.f32(edges, 2 * count);
    return Array.from({ length: count }, (_, i) => ({ start: r[2 * i], end: r[2 * i + 1], beforeDb: e[2 * i], afterDb: e[2 * i + 1] }));
  }

  /** WADA sums over sample ranges with exact zeros excluded: samples counted, Σ|x|, Σ ln|x|. */
  wadaSums(ranges: ReadonlyArray<readonly [number, number]>): { count: number; sumAbs: number; sumLn: number } {
    const ptr = this.arena.allocI32(Math.max(2, 2 * ranges.length));
    const out = this.arena.allocF64(3);
    const view = this.arena.i32(ptr, 2 * ranges.length);
    ranges.forEach(([s, e], i) => { view[2 * i] = s; view[2 * i + 1] = e; });
    checkStatus(this.k.integrityWadaSums(this.input, this.length, ptr, ranges.length, out), "integrityWadaSums");
    const v = this.arena.f64(out, 3);
    return { count: v[0], sumAbs: v[1], sumLn: v[2] };
  }

  /** Repeated segments at any offset (see the kernel integrityRepeatScan). */
  repeats(o: RepeatScanOptions): RepeatRun[] {
    const table = this.arena.alloc(this.k.integrityRepeatTableSize(o.tableBits));
    const capacity = Math.floor(this.length / Math.max(1, Math.floor(o.minLag * o.minRunFraction))) + 1;
    const out = this.arena.allocI32(3 * capacity);
    const count = checkStatus(this.k.integrityRepeatScan(this.input, this.length, o.window, o.scale, o.gate, o.minLag, o.maxLag,
      o.blockLength, o.matchRatio, o.minRunFraction, table, o.tableBits, out, capacity), "integrityRepeatScan");
    const v = this.arena.i32(out, 3 * count);
    return Array.from({ length: count }, (_, i) => ({ start: v[3 * i], lag: v[3 * i + 1], run: v[3 * i + 2] }));
  }
}
