// Channel layout kernels: one channel of interleaved int16 as int16 or float32 = s / 32768 (formats.md F5), deepeval's truncating int16 downmix (voice-metrics.md §2.3), the mean of planar float channels (acoustics.md §1.2).
//
// A recording or clip is copied into the arena once; each channel is read from there for the speech
// detector (float), the turn clips (int16) and the measurements, so no per-sample loop runs on the host.
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

const SCALE: f32 = 1.0 / 32768.0;

/**
 * Write frames [from, to) of `channel` of interleaved int16 `input` (`channels` per frame) to `out`
 * as f32 s / 32768 (exact: an int16 times 2^−15 is representable). Returns the frame count written.
 */
export function deinterleaveF32(input: usize, channels: i32, channel: i32, from: i32, to: i32, out: usize): i32 {
  if (channels < 1 || channel < 0 || channel >= channels || from < 0 || to < from) return BAD_ARGUMENT;
  const stride = <usize>channels << 1;
  let p = input + ((<usize>from * <usize>channels + <usize>channel) << 1);
  const n = to - from;
  if (channels == 2) {
    // Stereo: eight frames per step, the wanted lanes picked by one shuffle, widened and scaled.
    const scale = f32x4.splat(SCALE);
    let i = 0;
    for (; i + 8 <= n; i += 8) {
      const a = v128.load(p);
      const b = v128.load(p, 16);
      const lanes = v128.shuffle<i16>(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
      const lo = f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(lanes));
      const hi = f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(lanes));
      v128.store(out + (<usize>i << 2), f32x4.mul(lo, scale));
      v128.store(out + (<usize>i << 2), f32x4.mul(hi, scale), 16);
      p += 32;
    }
    for (; i < n; i++, p += 4) store<f32>(out + (<usize>i << 2), <f32>load<i16>(p) * SCALE);
    return n;
  }
  if (channels == 1) {
    // Mono: a plain int16 → f32 conversion, eight samples per step.
    const scale = f32x4.splat(SCALE);
    let i = 0;
    for (; i + 8 <= n; i += 8) {
      const lanes = v128.load(p);
      v128.store(out + (<usize>i << 2), f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(lanes)), scale));
      v128.store(out + (<usize>i << 2), f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(lanes)), scale), 16);
      p += 16;
    }
    for (; i < n; i++, p += 2) store<f32>(out + (<usize>i << 2), <f32>load<i16>(p) * SCALE);
    return n;
  }
  for (let i = 0; i < n; i++, p += stride) store<f32>(out + (<usize>i << 2), <f32>load<i16>(p) * SCALE);
  return n;
}

/** Write frames [from, to) of `channel` of interleaved int16 `input` to `out` as int16. Returns the frame count written. */
export function deinterleaveI16(input: usize, channels: i32, channel: i32, from: i32, to: i32, out: usize): i32 {
  if (channels < 1 || channel < 0 || channel >= channels || from < 0 || to < from) return BAD_ARGUMENT;
  const stride = <usize>channels << 1;
  let p = input + ((<usize>from * <usize>channels + <usize>channel) << 1);
  const n = to - from;
  if (channels == 2) {
    let i = 0;
    for (; i + 8 <= n; i += 8) {
      const lanes = v128.shuffle<i16>(v128.load(p), v128.load(p, 16), 0, 2, 4, 6, 8, 10, 12, 14);
      v128.store(out + (<usize>i << 1), lanes);
      p += 32;
    }
    for (; i < n; i++, p += 4) store<i16>(out + (<usize>i << 1), load<i16>(p));
    return n;
  }
  for (let i = 0; i < n; i++, p += stride) store<i16>(out + (<usize>i << 1), load<i16>(p));
  return n;
}

/**
 * deepeval's downmix of `frames` frames of interleaved int16 `input`: out[k] = trunc(Σ_c s[k·C + c] / C),
 * summed exactly in i32 (65535 channels of −32768 still fit). Returns `frames`.
 */
export function downmixTruncatingI16(input: usize, channels: i32, frames: i32, out: usize): i32 {
  if (channels < 1 || frames < 0) return BAD_ARGUMENT;
  let p = input;
  for (let k = 0; k < frames; k++) {
    let sum: i32 = 0;
    for (let c = 0; c < channels; c++, p += 2) sum += <i32>load<i16>(p);
    store<i16>(out + (<usize>k << 1), <i16>(sum / channels));
  }
  return frames;
}

/**
 * The per-sample mean of `channels` planar f32 channels (channel c at `planar` + 4·c·frames) into
 * `out`: the channels added in order in f32, then multiplied by 1/C in f64 and rounded to f32,
 * exactly as a Float32Array accumulation does it on the host. Returns `frames`.
 */
export function mixdownMeanF32(planar: usize, channels: i32, frames: i32, out: usize): i32 {
  if (channels < 1 || frames < 0) return BAD_ARGUMENT;
  const scale: f64 = 1.0 / <f64>channels;
  const stride = <usize>frames << 2;
  for (let i = 0; i < frames; i++) {
    let p = planar + (<usize>i << 2);
    let sum: f32 = 0;
    for (let c = 0; c < channels; c++, p += stride) sum += load<f32>(p);
    store<f32>(out + (<usize>i << 2), <f32>(<f64>sum * scale));
  }
  return frames;
}
