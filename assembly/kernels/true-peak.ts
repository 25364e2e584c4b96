// Streaming true-peak and sample-peak kernel: the 48-tap, 4-phase polyphase FIR of BS.1770-5 Annex 2 (acoustics.md §1.6).
//
// y_p[k] = Σ_{t=0}^{11} h_p[t]·x[k−t] for the phases p = 0…3, computed as one f32x4 per input sample
// (a lane per phase). Oversampling is ×4 below 96 kHz, ×2 (phases 0 and 2) from 96 kHz and none from
// 192 kHz. The state keeps, per channel, the last 11 input samples so chunks join seamlessly; the
// zero-padded tail (the input extended by 11 zeros) is evaluated by the getter without consuming it.
import { OK, BAD_ARGUMENT } from "../../src/dsp/kernel-status";

const TAPS: i32 = 12;
const HISTORY: i32 = TAPS - 1;

// Header: f64 channels, f64 oversampling factor, f64 FIR gain bound, pad; then 12 v128 coefficient
// rows (tap t: h0[t] h1[t] h2[t] h3[t]).
const HEADER_BYTES: usize = 32;
/**
 * Blocks of input whose |x| maximum times the filter's gain bound max_p Σ_t |h_p[t]| (≈ 2.03) cannot
 * exceed the peak already found are skipped: an exact bound, and most of speech lies > 6 dB below
 * its own peak, so the FIR runs on a small part of the programme.
 */
const SKIP_BLOCK: i32 = 64;
/** Guards the bound against f32 rounding of the block maximum. */
const BOUND_MARGIN: f64 = 1.0001;
const COEF_BYTES: usize = <usize>TAPS * 16;
// Per channel: f64 true-peak max, f64 sample-peak max, 11 f32 of history padded to 48 bytes, and a
// 24-sample f32 scratch (11 history + up to 13 new samples) for the first outputs of each chunk.
const CHANNEL_BYTES: usize = 16 + 48 + 96;
const CH_TRUE_PEAK: usize = 0;
const CH_SAMPLE_PEAK: usize = 8;
const CH_HISTORY: usize = 16;
const CH_SCRATCH: usize = 64;

/** The BS.1770-5 Annex 2 example filter, phases 0 and 1 (phase 2 = phase 1 reversed, phase 3 = phase 0 reversed). */
const PHASE0 = memory.data<f32>([
  0.001708984375, 0.010986328125, -0.0196533203125, 0.033203125, -0.0594482421875, 0.1373291015625,
  0.97216796875, -0.102294921875, 0.047607421875, -0.0266113281250, 0.014892578125, -0.00830078125,
]);
const PHASE1 = memory.data<f32>([
  -0.0291748046875, 0.029296875, -0.0517578125, 0.089111328125, -0.166503906250, 0.465087890625,
  0.779785156250, -0.2003173828125, 0.1015625, -0.0582275390625, 0.0330810546875, -0.0189208984375,
]);

/** Oversampling factor used at `sampleRate` (Hz). */
function truePeakFactor(sampleRate: i32): i32 {
  if (sampleRate >= 192000) return 1;
  if (sampleRate >= 96000) return 2;
  return 4;
}

/** Bytes of the state block for `channels` channels. */
export function truePeakStateSize(channels: i32): i32 {
  if (channels < 1) return 0;
  return <i32>(HEADER_BYTES + COEF_BYTES + <usize>channels * CHANNEL_BYTES);
}

@inline function channelBase(state: usize, channel: i32): usize {
  return state + HEADER_BYTES + COEF_BYTES + <usize>channel * CHANNEL_BYTES;
}

/** Reset the meter; the state block must be 16-byte aligned (the arena guarantees it). */
export function truePeakInit(state: usize, channels: i32, sampleRate: i32): i32 {
  if (channels < 1 || sampleRate < 1000 || (state & 15) != 0) return BAD_ARGUMENT;
  memory.fill(state, 0, <usize>truePeakStateSize(channels));
  const factor = truePeakFactor(sampleRate);
  store<f64>(state, <f64>channels);
  store<f64>(state + 8, <f64>factor);
  const coef = state + HEADER_BYTES;
  let gain0: f64 = 0, gain1: f64 = 0;
  for (let t = 0; t < TAPS; t++) {
    gain0 += Math.abs(<f64>load<f32>(PHASE0 + (<usize>t << 2)));
    gain1 += Math.abs(<f64>load<f32>(PHASE1 + (<usize>t << 2)));
  }
  store<f64>(state + 16, max(gain0, gain1) * BOUND_MARGIN);
  for (let t = 0; t < TAPS; t++) {
    const row = coef + (<usize>t << 4);
    const h0 = load<f32>(PHASE0 + (<usize>t << 2));
    const h1 = load<f32>(PHASE1 + (<usize>t << 2));
    const h2 = load<f32>(PHASE1 + (<usize>(TAPS - 1 - t) << 2));
    const h3 = load<f32>(PHASE0 + (<usize>(TAPS - 1 - t) << 2));
    // ×2 keeps the phases at offsets 0 and ½; ×1 runs no filter at all.
    store<f32>(row, h0);
    store<f32>(row + 4, factor == 4 ? h1 : 0);
    store<f32>(row + 8, h2);
    store<f32>(row + 12, factor == 4 ? h3 : 0);
  }
  return OK;
}

/** max |y| over outputs k ∈ [from, to) where x[k−t] = load(src + 4·(k−t)); SIMD across the 4 phases. */
function firPeak(coef: usize, src: usize, from: i32, to: i32): f32 {
  const c0 = v128.load(coef), c1 = v128.load(coef, 16), c2 = v128.load(coef, 32), c3 = v128.load(coef, 48);
  const c4 = v128.load(coef, 64), c5 = v128.load(coef, 80), c6 = v128.load(coef, 96), c7 = v128.load(coef, 112);
  const c8 = v128.load(coef, 128), c9 = v128.load(coef, 144), c10 = v128.load(coef, 160), c11 = v128.load(coef, 176);
  let peak = f32x4.splat(0);
  for (let k = from; k < to; k++) {
    const p = src + (<usize>k << 2);
    // Two partial sums shorten the dependency chain of the 12 multiply-adds.
    let a = f32x4.mul(c0, v128.load32_splat(p));
    let b = f32x4.mul(c1, v128.load32_splat(p - 4));
    a = f32x4.add(a, f32x4.mul(c2, v128.load32_splat(p - 8)));
    b = f32x4.add(b, f32x4.mul(c3, v128.load32_splat(p - 12)));
    a = f32x4.add(a, f32x4.mul(c4, v128.load32_splat(p - 16)));
    b = f32x4.add(b, f32x4.mul(c5, v128.load32_splat(p - 20)));
    a = f32x4.add(a, f32x4.mul(c6, v128.load32_splat(p - 24)));
    b = f32x4.add(b, f32x4.mul(c7, v128.load32_splat(p - 28)));
    a = f32x4.add(a, f32x4.mul(c8, v128.load32_splat(p - 32)));
    b = f32x4.add(b, f32x4.mul(c9, v128.load32_splat(p - 36)));
    a = f32x4.add(a, f32x4.mul(c10, v128.load32_splat(p - 40)));
    b = f32x4.add(b, f32x4.mul(c11, v128.load32_splat(p - 44)));
    peak = f32x4.max(peak, f32x4.abs(f32x4.add(a, b)));
  }
  return max(max(f32x4.extract_lane(peak, 0), f32x4.extract_lane(peak, 1)),
    max(f32x4.extract_lane(peak, 2), f32x4.extract_lane(peak, 3)));
}

/** max |x| over `count` samples, f32x4 with a scalar tail. */
function samplePeak(input: usize, count: i32): f32 {
  let vpeak = f32x4.splat(0);
  let i = 0;
  for (; i + 4 <= count; i += 4) vpeak = f32x4.max(vpeak, f32x4.abs(v128.load(input + (<usize>i << 2))));
  let peak = max(max(f32x4.extract_lane(vpeak, 0), f32x4.extract_lane(vpeak, 1)),
    max(f32x4.extract_lane(vpeak, 2), f32x4.extract_lane(vpeak, 3)));
  for (; i < count; i++) peak = max(peak, Mathf.abs(load<f32>(input + (<usize>i << 2))));
  return peak;
}

/** Add `frames` planar float frames; channel c starts at `input + 4·c·channelStride`. */
export function truePeakAddFrames(state: usize, input: usize, frames: i32, channelStride: i32): i32 {
  const channels = <i32>load<f64>(state);
  if (frames < 0 || (channels > 1 && channelStride < frames)) return BAD_ARGUMENT;
  if (frames == 0) return OK;
  const factor = <i32>load<f64>(state + 8);
  const coef = state + HEADER_BYTES;
  for (let c = 0; c < channels; c++) {
    const base = channelBase(state, c);
    const x = input + ((<usize>c * <usize>channelStride) << 2);
    const sp = <f64>samplePeak(x, frames);
    if (sp > load<f64>(base + CH_SAMPLE_PEAK)) store<f64>(base + CH_SAMPLE_PEAK, sp);
    const history = base + CH_HISTORY;
    if (factor > 1) {
      // The first 11 outputs reach back into the history: run them over history ++ head in the scratch.
      const head = min(frames, HISTORY);
      const scratch = base + CH_SCRATCH;
      memory.copy(scratch, history, <usize>HISTORY << 2);
      memory.copy(scratch + (<usize>HISTORY << 2), x, <usize>head << 2);
      let tp = max(load<f64>(base + CH_TRUE_PEAK), <f64>firPeak(coef, scratch + (<usize>HISTORY << 2), 0, head));
      const gain = load<f64>(state + 16);
      const samplePeakSoFar = load<f64>(base + CH_SAMPLE_PEAK);
      for (let from = HISTORY; from < frames; from += SKIP_BLOCK) {
        const to = min(frames, from + SKIP_BLOCK);
        // Outputs k ∈ [from, to) read x[k − 11 … k].
        const bound = <f64>samplePeak(x + (<usize>(from - HISTORY) << 2), to - from + HISTORY) * gain;
        if (bound > max(tp, samplePeakSoFar)) tp = max(tp, <f64>firPeak(coef, x, from, to));
      }
      store<f64>(base + CH_TRUE_PEAK, tp);
      // New history: the last 11 samples of history ++ input.
      memory.copy(history, scratch + (<usize>head << 2), <usize>HISTORY << 2);
      if (frames > HISTORY) memory.copy(history, x + (<usize>(frames - HISTORY) << 2), <usize>HISTORY << 2);
    }
  }
  return OK;
}

/** Peak of the oversampled signal of one channel including the zero-padded tail; −1 for a bad channel. */
export function truePeakChannel(state: usize, channel: i32): f64 {
  if (channel < 0 || channel >= <i32>load<f64>(state)) return -1.0;
  const base = channelBase(state, channel);
  let peak = max(load<f64>(base + CH_TRUE_PEAK), load<f64>(base + CH_SAMPLE_PEAK));
  if (<i32>load<f64>(state + 8) > 1) {
    const scratch = base + CH_SCRATCH;
    memory.copy(scratch, base + CH_HISTORY, <usize>HISTORY << 2);
    memory.fill(scratch + (<usize>HISTORY << 2), 0, <usize>HISTORY << 2);
    peak = max(peak, <f64>firPeak(state + HEADER_BYTES, scratch + (<usize>HISTORY << 2), 0, HISTORY));
  }
  return peak;
}

/** Largest |x| of one channel so far; −1 for a bad channel. */
export function truePeakSamplePeakChannel(state: usize, channel: i32): f64 {
  if (channel < 0 || channel >= <i32>load<f64>(state)) return -1.0;
  return load<f64>(channelBase(state, channel) + CH_SAMPLE_PEAK);
}
