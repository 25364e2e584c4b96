// Speech-activity front end: band-pass and 20 ms / 10 ms frame levels in dBFS (acoustics.md §2.3).
//
// The band-pass is a 2nd-order Butterworth high pass and low pass (bilinear, f64 state, run by
// cascadeFilter in blocks). Frame levels are built from 10 ms sub-block energies on the grid
// floor(k·fs/100), so frame i is the 20 ms window [sub-block i, sub-block i+1] at any sample rate.
// Decisions (percentiles, hysteresis, hangover) run on the host over these 100 values per second.

import { cascadeFilter, sumSquares } from "./iir";

const BAD_ARGUMENT: i32 = -1;
const LEVEL_FLOOR: f64 = 1e-12;

/** Band-pass edges of §2.3: 100–3800 Hz up to 8 kHz, else 80 Hz to min(7000 Hz, 0.45·fs). */
function activityLowEdgeHz(sampleRate: i32): f64 {
  return sampleRate <= 8000 ? 100.0 : 80.0;
}

function activityHighEdgeHz(sampleRate: i32): f64 {
  return sampleRate <= 8000 ? 3800.0 : Math.min(7000.0, 0.45 * <f64>sampleRate);
}

/** Complete 10 ms sub-blocks in `n` samples: those whose end floor((b + 1)·fs/100) ≤ n. */
function completeSubblocks(n: i32, sampleRate: i32): i32 {
  let count = <i32>((<i64>n * 100) / <i64>sampleRate);
  while (<i64>(count + 1) * <i64>sampleRate / 100 <= <i64>n) count++;
  return count;
}

/** Number of frame levels activityLevels writes for `n` samples (one fewer than the complete 10 ms sub-blocks). */
export function activityFrameCount(n: i32, sampleRate: i32): i32 {
  if (n <= 0 || sampleRate < 1000) return 0;
  return max(0, completeSubblocks(n, sampleRate) - 1);
}

/** Samples filtered per block; the split-block warm-up (0.1 s) is small against it. */
const BLOCK: i32 = 1 << 17;
const SCRATCH_HEADER: usize = 16 << 3; // 10 coefficients, 4 states, padding to 16-byte alignment

/** Bytes of scratch activityLevels needs. */
export function activityScratchSize(): i32 {
  return <i32>SCRATCH_HEADER + (BLOCK << 3);
}

/**
 * Band-pass `n` float samples and write 20 ms frame levels L = 10·log10(mean square + 1e−12) (f32 dBFS)
 * at a 10 ms hop to `out`; `scratch` holds activityScratchSize() bytes, 16-byte aligned. Returns the
 * frame count (activityFrameCount) or a negative status.
 */
export function activityLevels(input: usize, n: i32, sampleRate: i32, scratch: usize, out: usize): i32 {
  if (n < 0 || sampleRate < 1000 || (scratch & 15) != 0) return BAD_ARGUMENT;
  const fs = <f64>sampleRate;
  const coef = scratch;
  const state = scratch + 80;
  const y = scratch + SCRATCH_HEADER;
  // 2nd-order Butterworth (Q = 1/√2) high pass then low pass by the bilinear transform.
  const q = Math.SQRT1_2;
  let k = Math.tan(Math.PI * activityLowEdgeHz(sampleRate) / fs);
  let norm = 1.0 / (1.0 + k / q + k * k);
  store<f64>(coef, norm);
  store<f64>(coef, -2.0 * norm, 8);
  store<f64>(coef, norm, 16);
  store<f64>(coef, 2.0 * (k * k - 1.0) * norm, 24);
  store<f64>(coef, (1.0 - k / q + k * k) * norm, 32);
  k = Math.tan(Math.PI * activityHighEdgeHz(sampleRate) / fs);
  norm = 1.0 / (1.0 + k / q + k * k);
  store<f64>(coef, k * k * norm, 40);
  store<f64>(coef, 2.0 * k * k * norm, 48);
  store<f64>(coef, k * k * norm, 56);
  store<f64>(coef, 2.0 * (k * k - 1.0) * norm, 64);
  store<f64>(coef, (1.0 - k / q + k * k) * norm, 72);
  memory.fill(state, 0, 32);

  const rate = <i64>sampleRate;
  const subblocks = completeSubblocks(n, sampleRate);
  const total = <i32>(<i64>subblocks * rate / 100);
  const warmup = sampleRate / 10;
  let b = 0;
  let subblockEnd = <i32>(rate / 100);
  let energy: f64 = 0, previousEnergy: f64 = 0;
  let previousLength: i32 = 0;
  let frames = 0;
  for (let blockStart = 0; blockStart < total; blockStart += BLOCK) {
    const length = min(BLOCK, total - blockStart);
    cascadeFilter(input + (<usize>blockStart << 2), length, coef, state, warmup, y);
    let i = 0;
    while (i < length) {
      const end = min(length, subblockEnd - blockStart);
      energy += sumSquares(y + (<usize>i << 3), end - i);
      i = end;
      if (blockStart + i < subblockEnd) break;
      const subblockLength = subblockEnd - <i32>(<i64>b * rate / 100);
      if (b > 0) {
        const meanSquare = (previousEnergy + energy) / <f64>(previousLength + subblockLength);
        store<f32>(out + (<usize>frames << 2), <f32>(10.0 * Math.log10(meanSquare + LEVEL_FLOOR)));
        frames++;
      }
      previousEnergy = energy;
      previousLength = subblockLength;
      energy = 0;
      b++;
      subblockEnd = <i32>(<i64>(b + 1) * rate / 100);
    }
  }
  return frames;
}
