// Typed wrapper of the loudness and true-peak kernels: a streaming BS.1770-5 / EBU R 128 meter (acoustics.md §1).
//
// The meter keeps both kernel state blocks as JS copies and moves them into the arena for each
// addFrames call, so other kernels may use the arena between chunks. Gating-block and short-term
// energies (one pair per 100 ms) accumulate on the JS side; integrated loudness and LRA are gated
// from them in result(), which is cheap (72 000 pairs for two hours).
import { getKernels, openArena, type KernelExports } from "./wasm.js";

interface LoudnessKernels extends KernelExports {
  loudnessStateSize(channels: number): number;
  loudnessInit(state: number, channels: number, sampleRate: number): number;
  loudnessSetChannelWeight(state: number, channel: number, weight: number): number;
  loudnessCoefficient(state: number, index: number): number;
  loudnessScratchSize(frames: number, sampleRate: number): number;
  loudnessAddFrames(state: number, input: number, frames: number, channelStride: number, out: number, scratch: number): number;
  loudnessMomentaryEnergy(state: number): number;
  loudnessShortTermEnergy(state: number): number;
  loudnessMomentaryMaxEnergy(state: number): number;
  loudnessShortTermMaxEnergy(state: number): number;
  truePeakStateSize(channels: number): number;
  truePeakInit(state: number, channels: number, sampleRate: number): number;
  truePeakAddFrames(state: number, input: number, frames: number, channelStride: number): number;
  truePeakChannel(state: number, channel: number): number;
  truePeakSamplePeakChannel(state: number, channel: number): number;
}

/** Frames moved into WebAssembly memory per kernel call: long enough that the IIR's split-block warm-up (0.25 s) costs little. */
const CHUNK_FRAMES = 1 << 18;
/** BS.1770 weight of surround channels (≈ +1.5 dB). */
const SURROUND_WEIGHT = 1.41;
const ABSOLUTE_GATE_LUFS = -70;
const RELATIVE_GATE_LU = -10;
const LRA_RELATIVE_GATE_LU = -20;

/** Loudness measurements of one programme; every value is null when undefined (silence, too short). */
export interface LoudnessMeasurement {
  /** BS.1770-5 gated integrated loudness (LUFS). */
  integratedLufs: number | null;
  /** Largest 400 ms momentary loudness on the 10 ms grid (LUFS). */
  momentaryMaxLufs: number | null;
  /** Largest 3 s short-term loudness on the 10 ms grid (LUFS). */
  shortTermMaxLufs: number | null;
  /** EBU Tech 3342 loudness range (LU). */
  loudnessRangeLu: number | null;
  /** Largest |sample| over all channels (dBFS). */
  samplePeakDbfs: number | null;
  /** BS.1770-5 Annex 2 true peak over all channels (dBTP); null when not measured or silent. */
  truePeakDbtp: number | null;
}

export interface LoudnessMeterOptions {
  /** BS.1770 channel weights G_i; default from the channel count (see defaultChannelWeights). */
  weights?: readonly number[];
  /** Measure the true peak (the oversampling FIR is the most expensive part). */
  truePeak?: boolean;
}

/**
 * BS.1770-5 Table 3 weights in WAV channel order: mono, stereo and 3.0 all 1.0; 5.0 (L R C Ls Rs)
 * and 5.1 (L R C LFE Ls Rs) give the surrounds 1.41 and the LFE 0; other layouts 1.0 everywhere.
 */
export function defaultChannelWeights(channels: number): number[] {
  if (channels === 5) return [1, 1, 1, SURROUND_WEIGHT, SURROUND_WEIGHT];
  if (channels === 6) return [1, 1, 1, 0, SURROUND_WEIGHT, SURROUND_WEIGHT];
  return new Array<number>(channels).fill(1);
}

/** L = −0.691 + 10·log10(energy) (BS.1770-5 eq. 2); null for non-positive energy. */
export function energyToLufs(energy: number): number | null {
  return energy > 0 ? -0.691 + 10 * Math.log10(energy) : null;
}

/** A linear peak in dB (dBFS / dBTP); null for 0. */
export function peakToDb(peak: number): number | null {
  return peak > 0 ? 20 * Math.log10(peak) : null;
}

/** Integrated loudness from 400 ms gating-block energies: gates −70 LKFS and −10 LU, strict `>` (§1.1). */
export function gateIntegratedLoudness(blockEnergies: ArrayLike<number>, count = blockEnergies.length): number | null {
  const absoluteEnergy = Math.pow(10, (ABSOLUTE_GATE_LUFS + 0.691) / 10);
  let sum = 0, n = 0;
  for (let j = 0; j < count; j++) if (blockEnergies[j] > absoluteEnergy) { sum += blockEnergies[j]; n++; }
  if (n === 0) return null;
  const relativeGate = -0.691 + 10 * Math.log10(sum / n) + RELATIVE_GATE_LU;
  // Compare in LUFS, as the standard states it, so blocks on a gate behave exactly like the twin.
  let gatedSum = 0, gated = 0;
  for (let j = 0; j < count; j++) {
    const e = blockEnergies[j];
    if (e > absoluteEnergy && -0.691 + 10 * Math.log10(e) > relativeGate) { gatedSum += e; gated++; }
  }
  return gated ? energyToLufs(gatedSum / gated) : null;
}

/** EBU Tech 3342 LRA from short-term energies: gates −70 LUFS and −20 LU (`≥`), P95 − P10 by nearest rank (§1.5). */
export function computeLoudnessRange(shortTermEnergies: ArrayLike<number>, count = shortTermEnergies.length): number | null {
  const values: number[] = [];
  for (let k = 0; k < count; k++) {
    const l = energyToLufs(shortTermEnergies[k]);
    if (l !== null && l >= ABSOLUTE_GATE_LUFS) values.push(l);
  }
  if (values.length < 2) return null;
  let power = 0;
  for (const l of values) power += Math.pow(10, l / 10);
  const relativeGate = 10 * Math.log10(power / values.length) + LRA_RELATIVE_GATE_LU;
  const kept = Float64Array.from(values.filter((l) => l >= relativeGate)).sort();
  if (kept.length < 2) return null;
  const rank = (p: number) => kept[Math.round(((kept.length - 1) * p) / 100 + 1) - 1];
  return rank(95) - rank(10);
}

/** A growable float64 list (amortised doubling). */
class Float64List {
  data = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
}

/** Streaming BS.1770-5 meter: feed planar float chunks with addFrames, read result() at any time. */
export class LoudnessMeter {
  readonly channels: number;
  readonly sampleRate: number;
  private readonly k: LoudnessKernels;
  private readonly truePeak: boolean;
  private loudnessState: Uint8Array;
  private peakState: Uint8Array;
  private readonly blockEnergies = new Float64List();
  private readonly shortTermEnergies = new Float64List();

  constructor(channels: number, sampleRate: number, options: LoudnessMeterOptions = {}) {
    if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channels must be an integer ≥ 1, got ${channels}`);
    if (!Number.isInteger(sampleRate) || sampleRate < 1000) throw new RangeError(`sampleRate must be an integer ≥ 1000 Hz, got ${sampleRate}`);
    const weights = options.weights ?? defaultChannelWeights(channels);
    if (weights.length !== channels || weights.some((w) => !(w >= 0))) {
      throw new RangeError(`weights must hold ${channels} non-negative numbers`);
    }
    this.channels = channels;
    this.sampleRate = sampleRate;
    this.truePeak = options.truePeak ?? true;
    this.k = getKernels() as LoudnessKernels;
    const arena = openArena();
    const lsize = this.k.loudnessStateSize(channels);
    const psize = this.k.truePeakStateSize(channels);
    const lptr = arena.alloc(lsize);
    const pptr = arena.alloc(psize);
    this.k.loudnessInit(lptr, channels, sampleRate);
    weights.forEach((w, c) => this.k.loudnessSetChannelWeight(lptr, c, w));
    this.k.truePeakInit(pptr, channels, sampleRate);
    this.loudnessState = new Uint8Array(this.k.memory.buffer, lptr, lsize).slice();
    this.peakState = new Uint8Array(this.k.memory.buffer, pptr, psize).slice();
    arena.reset();
  }

  /** Add planar frames (one Float32Array per channel, equal lengths, samples in [−1, 1)). */
  addFrames(planar: readonly Float32Array[]): void {
    if (planar.length !== this.channels) throw new RangeError(`expected ${this.channels} channels, got ${planar.length}`);
    const frames = planar[0].length;
    if (planar.some((p) => p.length !== frames)) throw new RangeError("all channels must have the same length");
    if (frames === 0) return;
    const chunk = Math.min(frames, CHUNK_FRAMES);
    const outPairs = Math.floor(chunk / Math.floor(this.sampleRate / 10)) + 2;
    const arena = openArena();
    const lptr = arena.alloc(this.loudnessState.length);
    const pptr = arena.alloc(this.peakState.length);
    const input = arena.allocF32(chunk * this.channels);
    const out = arena.allocF64(outPairs * 2);
    const scratch = arena.alloc(this.k.loudnessScratchSize(chunk, this.sampleRate));
    const memory = this.k.memory.buffer;
    new Uint8Array(memory, lptr, this.loudnessState.length).set(this.loudnessState);
    new Uint8Array(memory, pptr, this.peakState.length).set(this.peakState);
    const inputView = arena.f32(input, chunk * this.channels);
    const outView = arena.f64(out, outPairs * 2);
    for (let start = 0; start < frames; start += chunk) {
      const n = Math.min(chunk, frames - start);
      for (let c = 0; c < this.channels; c++) inputView.set(planar[c].subarray(start, start + n), c * chunk);
      const pairs = this.k.loudnessAddFrames(lptr, input, n, chunk, out, scratch);
      if (pairs < 0) throw new Error(`loudnessAddFrames failed with status ${pairs}`);
      for (let p = 0; p < pairs; p++) {
        this.blockEnergies.push(outView[2 * p]);
        if (outView[2 * p + 1] >= 0) this.shortTermEnergies.push(outView[2 * p + 1]);
      }
      if (this.truePeak) this.k.truePeakAddFrames(pptr, input, n, chunk);
    }
    this.loudnessState = new Uint8Array(memory, lptr, this.loudnessState.length).slice();
    this.peakState = new Uint8Array(memory, pptr, this.peakState.length).slice();
    arena.reset();
  }

  /** Momentary loudness of the latest 400 ms (LUFS), null before 400 ms or in digital silence. */
  momentaryLufs(): number | null {
    return this.readState((lptr) => energyToLufs(this.k.loudnessMomentaryEnergy(lptr)));
  }

  /** Short-term loudness of the latest 3 s (LUFS), null before 3 s or in digital silence. */
  shortTermLufs(): number | null {
    return this.readState((lptr) => energyToLufs(this.k.loudnessShortTermEnergy(lptr)));
  }

  /** Everything measured so far. */
  result(): LoudnessMeasurement {
    return this.readState((lptr, pptr) => {
      let samplePeak = 0, truePeak = 0;
      for (let c = 0; c < this.channels; c++) {
        samplePeak = Math.max(samplePeak, this.k.truePeakSamplePeakChannel(pptr, c));
        truePeak = Math.max(truePeak, this.k.truePeakChannel(pptr, c));
      }
      return {
        integratedLufs: gateIntegratedLoudness(this.blockEnergies.data, this.blockEnergies.length),
        momentaryMaxLufs: energyToLufs(this.k.loudnessMomentaryMaxEnergy(lptr)),
        shortTermMaxLufs: energyToLufs(this.k.loudnessShortTermMaxEnergy(lptr)),
        loudnessRangeLu: computeLoudnessRange(this.shortTermEnergies.data, this.shortTermEnergies.length),
        samplePeakDbfs: this.truePeak ? peakToDb(samplePeak) : null,
        truePeakDbtp: this.truePeak ? peakToDb(truePeak) : null,
      };
    });
  }

  /** The K-weighting coefficients in use: [stage 1 b0 b1 b2 a1 a2, stage 2 b0 b1 b2 a1 a2]. */
  coefficients(): number[] {
    return this.readState((lptr) => Array.from({ length: 10 }, (_, i) => this.k.loudnessCoefficient(lptr, i)));
  }

  private readState<T>(read: (loudnessPtr: number, peakPtr: number) => T): T {
    const arena = openArena();
    const lptr = arena.alloc(this.loudnessState.length);
    const pptr = arena.alloc(this.peakState.length);
    new Uint8Array(this.k.memory.buffer, lptr, this.loudnessState.length).set(this.loudnessState);
    new Uint8Array(this.k.memory.buffer, pptr, this.peakState.length).set(this.peakState);
    const value = read(lptr, pptr);
    arena.reset();
    return value;
  }
}
