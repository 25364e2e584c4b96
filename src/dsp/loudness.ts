// Typed wrapper of the loudness and true-peak kernels: a streaming BS.1770-5 / EBU R 128 meter (acoustics.md §1).
//
// Two ways in: the streaming meter keeps both kernel state blocks as JS copies and moves them into
// an arena session for each addFrames call, so other kernels may run between chunks; measureLoudnessAt
// meters planar channels already in a session's arena (a clip copied in once) without copying them.
// Both run the same chunked kernel loop. Gating-block and short-term energies (one pair per 100 ms)
// accumulate on the JS side; integrated loudness and LRA are gated from them at the end, which is
// cheap (72 000 pairs for two hours).
import { checkStatus } from "./kernel-error.js";
import { getKernels, withArena, type Arena, type KernelExports } from "./wasm.js";

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
function energyToLufs(energy: number): number | null {
  return energy > 0 ? -0.691 + 10 * Math.log10(energy) : null;
}

/** A linear peak in dB (dBFS / dBTP); null for 0. */
function peakToDb(peak: number): number | null {
  return peak > 0 ? 20 * Math.log10(peak) : null;
}

/** Integrated loudness from 400 ms gating-block energies (in order): gates −70 LKFS and −10 LU, strict `>` (§1.1). */
function gateIntegratedLoudness(blockEnergies: Float64List): number | null {
  const absoluteEnergy = Math.pow(10, (ABSOLUTE_GATE_LUFS + 0.691) / 10);
  // Indexed loops over the list's blocks (no callback per energy: 144,000 per meter for 4 hours).
  const parts = blockEnergies.parts();
  let sum = 0, n = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) { const e = part[i]; if (e > absoluteEnergy) { sum += e; n++; } }
  }
  if (n === 0) return null;
  const relativeGate = -0.691 + 10 * Math.log10(sum / n) + RELATIVE_GATE_LU;
  // Compare in LUFS, as the standard states it, so blocks on a gate behave exactly like the twin.
  let gatedSum = 0, gated = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const e = part[i];
      if (e > absoluteEnergy && -0.691 + 10 * Math.log10(e) > relativeGate) { gatedSum += e; gated++; }
    }
  }
  return gated ? energyToLufs(gatedSum / gated) : null;
}

/** EBU Tech 3342 LRA from short-term energies (in order): gates −70 LUFS and −20 LU (`≥`), P95 − P10 by nearest rank (§1.5). */
function computeLoudnessRange(shortTermEnergies: Float64List): number | null {
  // The loudness of each energy that passes the absolute gate, in order, in one array of their exact count.
  const parts = shortTermEnergies.parts();
  let count = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) { const l = energyToLufs(part[i]); if (l !== null && l >= ABSOLUTE_GATE_LUFS) count++; }
  }
  if (count < 2) return null;
  const values = new Float64Array(count);
  let k = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) { const l = energyToLufs(part[i]); if (l !== null && l >= ABSOLUTE_GATE_LUFS) values[k++] = l; }
  }
  let power = 0;
  for (let i = 0; i < count; i++) power += Math.pow(10, values[i] / 10);
  const relativeGate = 10 * Math.log10(power / values.length) + LRA_RELATIVE_GATE_LU;
  let kept = 0;
  for (let i = 0; i < count; i++) { const l = values[i]; if (l >= relativeGate) values[kept++] = l; }
  const sorted = values.subarray(0, kept).sort();
  if (sorted.length < 2) return null;
  const rank = (p: number) => sorted[Math.round(((sorted.length - 1) * p) / 100 + 1) - 1];
  return rank(95) - rank(10);
}

/**
 * Spare blocks of Float64List, handed from a finished meter to the next (a recording measured one
 * signal after another reuses the first signal's blocks instead of leaving them to the collector).
 */
export class EnergyBlockPool {
  private readonly spare: Float64Array[] = [];
  take(size: number): Float64Array {
    const block = this.spare.pop();
    return block && block.length === size ? block : new Float64Array(size);
  }
  give(blocks: Float64Array[]): void {
    for (const b of blocks) this.spare.push(b);
  }
}

/**
 * A growable float64 list in fixed blocks (no doubling: no copy, at most one block of slack), read
 * in order through `parts`: one pair of energies per 100 ms is 2.3 MB per meter for 4 hours.
 */
class Float64List {
  private static readonly BLOCK = 8192;
  private blocks: Float64Array[] = [];
  length = 0;
  constructor(private readonly pool?: EnergyBlockPool) {}
  push(value: number): void {
    const within = this.length % Float64List.BLOCK;
    if (within === 0) this.blocks.push(this.pool ? this.pool.take(Float64List.BLOCK) : new Float64Array(Float64List.BLOCK));
    this.blocks[this.blocks.length - 1][within] = value;
    this.length++;
  }
  /** Views of every value in order, block by block (exactly `length` values in all), valid until the next push. */
  parts(): Float64Array[] {
    const size = Float64List.BLOCK;
    return this.blocks.map((block, b) => block.subarray(0, Math.min(size, this.length - b * size)));
  }
  /** Empty the list, its blocks going to the pool (when it has one). */
  release(): void {
    this.pool?.give(this.blocks);
    this.blocks = [];
    this.length = 0;
  }
}

/** Channel count, rate and weights as the kernels accept them; a RangeError names what is wrong. */
function checkMeterArguments(channels: number, sampleRate: number, weights: readonly number[]): void {
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channels must be an integer ≥ 1, got ${channels}`);
  if (!Number.isInteger(sampleRate) || sampleRate < 1000) throw new RangeError(`sampleRate must be an integer ≥ 1000 Hz, got ${sampleRate}`);
  if (weights.length !== channels || weights.some((w) => !(w >= 0))) throw new RangeError(`weights must hold ${channels} non-negative numbers`);
}

/**
 * One programme's meter state inside an arena session: both kernel state blocks (fresh, or restored
 * from a JS copy) and the energies gathered so far, which live on the JS side across sessions.
 */
class MeterSession {
  constructor(
    readonly arena: Arena,
    readonly lptr: number,
    readonly pptr: number,
  ) {}

  /** Fresh state blocks for `channels` channels: K-weighting and weights set, true peak reset. */
  static init(arena: Arena, channels: number, sampleRate: number, weights: readonly number[]): MeterSession {
    const k = arena.k;
    const session = new MeterSession(arena, arena.alloc(k.loudnessStateSize(channels)), arena.alloc(k.truePeakStateSize(channels)));
    checkStatus(k.loudnessInit(session.lptr, channels, sampleRate), "loudnessInit");
    weights.forEach((w, c) => checkStatus(k.loudnessSetChannelWeight(session.lptr, c, w), "loudnessSetChannelWeight"));
    checkStatus(k.truePeakInit(session.pptr, channels, sampleRate), "truePeakInit");
    return session;
  }

  /** State blocks restored from their JS copies. */
  static restore(arena: Arena, loudnessState: Uint8Array, peakState: Uint8Array): MeterSession {
    const session = new MeterSession(arena, arena.alloc(loudnessState.length), arena.alloc(peakState.length));
    arena.u8(session.lptr, loudnessState.length).set(loudnessState);
    arena.u8(session.pptr, peakState.length).set(peakState);
    return session;
  }

  /** JS copies of the state blocks (to carry them to the next session). */
  save(loudnessBytes: number, peakBytes: number): [Uint8Array, Uint8Array] {
    return [this.arena.u8(this.lptr, loudnessBytes).slice(), this.arena.u8(this.pptr, peakBytes).slice()];
  }

  /**
   * Meter `frames` planar frames, chunk by chunk: chunk `[start, start + n)` of channel c is read at
   * `inputAt(start, n)` + 4·c·stride. `inputAt` may copy the chunk in (the streaming meter) or point
   * into PCM already in the arena; either way every kernel call sees the same chunk.
   */
  addFrames(frames: number, sampleRate: number, truePeak: boolean, energies: MeterEnergies,
    inputAt: (start: number, n: number) => { ptr: number; stride: number }): void {
    const k = this.arena.k;
    const chunk = Math.min(frames, CHUNK_FRAMES);
    const outPairs = Math.floor(chunk / Math.floor(sampleRate / 10)) + 2;
    const out = this.arena.allocF64(outPairs * 2);
    const scratch = this.arena.alloc(k.loudnessScratchSize(chunk, sampleRate));
    for (let start = 0; start < frames; start += chunk) {
      const n = Math.min(chunk, frames - start);
      const { ptr, stride } = inputAt(start, n);
      this.addChunk(ptr, n, stride, truePeak, energies, out, outPairs, scratch);
    }
  }

  /** One kernel call of each meter on `n` planar frames at `ptr` (channel stride `stride`); `out` holds `outPairs` pairs, `scratch` loudnessScratchSize(≥ n). */
  addChunk(ptr: number, n: number, stride: number, truePeak: boolean, energies: MeterEnergies, out: number, outPairs: number, scratch: number): void {
    const k = this.arena.k;
    const pairs = checkStatus(k.loudnessAddFrames(this.lptr, ptr, n, stride, out, scratch), "loudnessAddFrames");
    // The arena's view only now: inputAt may have allocated (and memory.grow detached earlier views).
    const memory = this.arena.memF64();
    const at = out >>> 3;
    for (let p = 0; p < pairs; p++) {
      energies.blocks.push(memory[at + 2 * p]);
      if (memory[at + 2 * p + 1] >= 0) energies.shortTerm.push(memory[at + 2 * p + 1]);
    }
    if (truePeak) checkStatus(k.truePeakAddFrames(this.pptr, ptr, n, stride), "truePeakAddFrames");
  }

  /** Everything measured so far. */
  result(channels: number, truePeak: boolean, energies: MeterEnergies): LoudnessMeasurement {
    const k = this.arena.k;
    let samplePeak = 0, peak = 0;
    for (let c = 0; c < channels; c++) {
      samplePeak = Math.max(samplePeak, k.truePeakSamplePeakChannel(this.pptr, c));
      peak = Math.max(peak, k.truePeakChannel(this.pptr, c));
    }
    return {
      integratedLufs: gateIntegratedLoudness(energies.blocks),
      momentaryMaxLufs: energyToLufs(k.loudnessMomentaryMaxEnergy(this.lptr)),
      shortTermMaxLufs: energyToLufs(k.loudnessShortTermMaxEnergy(this.lptr)),
      loudnessRangeLu: computeLoudnessRange(energies.shortTerm),
      samplePeakDbfs: truePeak ? peakToDb(samplePeak) : null,
      truePeakDbtp: truePeak ? peakToDb(peak) : null,
    };
  }
}

/** The 400 ms gating-block and 3 s short-term energies of a programme, one pair per 100 ms. */
interface MeterEnergies {
  blocks: Float64List;
  shortTerm: Float64List;
}

function newEnergies(pool?: EnergyBlockPool): MeterEnergies {
  return { blocks: new Float64List(pool), shortTerm: new Float64List(pool) };
}

/** Planar float channels already in a session's arena: channel c at `ptr` + 4·c·`stride`, `frames` long. */
export interface PlanarAt {
  ptr: number;
  channels: number;
  frames: number;
  /** Samples from one channel's start to the next one's. */
  stride: number;
}

/** Meter planar channels already in the arena (no copy), as a LoudnessMeter fed them in one addFrames call would. */
export function measureLoudnessAt(arena: Arena, input: PlanarAt, sampleRate: number, options: LoudnessMeterOptions = {}): LoudnessMeasurement {
  const weights = options.weights ?? defaultChannelWeights(input.channels);
  const truePeak = options.truePeak ?? true;
  checkMeterArguments(input.channels, sampleRate, weights);
  const session = MeterSession.init(arena, input.channels, sampleRate, weights);
  const energies = newEnergies();
  session.addFrames(input.frames, sampleRate, truePeak, energies, (start) => ({ ptr: input.ptr + 4 * start, stride: input.stride }));
  return session.result(input.channels, truePeak, energies);
}

/**
 * A meter inside one arena session fed planar frames already in the arena, at most
 * LOUDNESS_CHUNK_FRAMES per call. Fed chunks of exactly LOUDNESS_CHUNK_FRAMES frames (the last one
 * shorter), it measures exactly what measureLoudnessAt measures on the whole programme.
 */
export class LoudnessStreamAt {
  private readonly session: MeterSession;
  private readonly energies: MeterEnergies;
  private readonly out: number;
  private readonly outPairs: number;
  private readonly scratch: number;
  private readonly truePeak: boolean;

  /** `pool`: where the energy lists take their blocks from, and return them to on release(). */
  constructor(arena: Arena, readonly channels: number, readonly sampleRate: number, options: LoudnessMeterOptions = {}, pool?: EnergyBlockPool) {
    this.energies = newEnergies(pool);
    const weights = options.weights ?? defaultChannelWeights(channels);
    this.truePeak = options.truePeak ?? true;
    checkMeterArguments(channels, sampleRate, weights);
    this.session = MeterSession.init(arena, channels, sampleRate, weights);
    this.outPairs = Math.floor(CHUNK_FRAMES / Math.floor(sampleRate / 10)) + 2;
    this.out = arena.allocF64(this.outPairs * 2);
    this.scratch = arena.alloc(arena.k.loudnessScratchSize(CHUNK_FRAMES, sampleRate));
  }

  /** Meter `frames` (≤ LOUDNESS_CHUNK_FRAMES) planar frames at `ptr`, channel c at `ptr` + 4·c·`stride`. */
  push(ptr: number, frames: number, stride: number): void {
    if (frames > CHUNK_FRAMES) throw new RangeError(`at most ${CHUNK_FRAMES} frames per push, got ${frames}`);
    if (frames > 0) this.session.addChunk(ptr, frames, stride, this.truePeak, this.energies, this.out, this.outPairs, this.scratch);
  }

  /** Everything measured so far. */
  result(): LoudnessMeasurement {
    return this.session.result(this.channels, this.truePeak, this.energies);
  }

  /** Give the energies' storage back to the pool (the meter is finished: result() may not be called after). */
  release(): void {
    this.energies.blocks.release();
    this.energies.shortTerm.release();
  }
}

/** Frames per kernel call of the loudness meters (measureLoudnessAt cuts a programme into chunks of this many frames). */
export const LOUDNESS_CHUNK_FRAMES = CHUNK_FRAMES;

/** Streaming BS.1770-5 meter: feed planar float chunks with addFrames, read result() at any time. */
export class LoudnessMeter {
  readonly channels: number;
  readonly sampleRate: number;
  private readonly k: KernelExports;
  private readonly truePeak: boolean;
  private loudnessState: Uint8Array;
  private peakState: Uint8Array;
  private readonly energies = newEnergies();

  constructor(channels: number, sampleRate: number, options: LoudnessMeterOptions = {}) {
    const weights = options.weights ?? (Number.isInteger(channels) && channels >= 1 ? defaultChannelWeights(channels) : []);
    checkMeterArguments(channels, sampleRate, weights);
    this.channels = channels;
    this.sampleRate = sampleRate;
    this.truePeak = options.truePeak ?? true;
    this.k = getKernels();
    [this.loudnessState, this.peakState] = withArena((arena) =>
      MeterSession.init(arena, channels, sampleRate, weights).save(this.k.loudnessStateSize(channels), this.k.truePeakStateSize(channels)),
    );
  }

  /** Add planar frames (one Float32Array per channel, equal lengths, samples in [−1, 1)). */
  addFrames(planar: readonly Float32Array[]): void {
    if (planar.length !== this.channels) throw new RangeError(`expected ${this.channels} channels, got ${planar.length}`);
    const frames = planar[0].length;
    if (planar.some((p) => p.length !== frames)) throw new RangeError("all channels must have the same length");
    if (frames === 0) return;
    const chunk = Math.min(frames, CHUNK_FRAMES);
    withArena((arena) => {
      const session = MeterSession.restore(arena, this.loudnessState, this.peakState);
      const input = arena.allocF32(chunk * this.channels);
      session.addFrames(frames, this.sampleRate, this.truePeak, this.energies, (start, n) => {
        for (let c = 0; c < this.channels; c++) arena.copyPcmTo(input + 4 * c * chunk, planar[c].subarray(start, start + n));
        return { ptr: input, stride: chunk };
      });
      [this.loudnessState, this.peakState] = session.save(this.loudnessState.length, this.peakState.length);
    });
  }

  /** Momentary loudness of the latest 400 ms (LUFS), null before 400 ms or in digital silence. */
  momentaryLufs(): number | null {
    return this.readState((s) => energyToLufs(this.k.loudnessMomentaryEnergy(s.lptr)));
  }

  /** Short-term loudness of the latest 3 s (LUFS), null before 3 s or in digital silence. */
  shortTermLufs(): number | null {
    return this.readState((s) => energyToLufs(this.k.loudnessShortTermEnergy(s.lptr)));
  }

  /** Everything measured so far. */
  result(): LoudnessMeasurement {
    return this.readState((s) => s.result(this.channels, this.truePeak, this.energies));
  }

  /** The K-weighting coefficients in use: [stage 1 b0 b1 b2 a1 a2, stage 2 b0 b1 b2 a1 a2]. */
  coefficients(): number[] {
    return this.readState((s) => Array.from({ length: 10 }, (_, i) => this.k.loudnessCoefficient(s.lptr, i)));
  }

  private readState<T>(read: (session: MeterSession) => T): T {
    return withArena((arena) => read(MeterSession.restore(arena, this.loudnessState, this.peakState)));
  }
}
