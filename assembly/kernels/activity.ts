// Speech-activity front end: band-pass and 20 ms / 10 ms frame levels in dBFS (acoustics.md §2.3).
//
// The band-pass is a 2nd-order Butterworth high pass and low pass (bilinear, f64 state). Frame
// levels are built from 10 ms sub-block energies on the grid floor(k·fs/100), so frame i is the
// 20 ms window [sub-block i, sub-block i+1] at any sample rate. Decisions (percentiles, hysteresis,
// hangover) run on the host over these few hundred values per second.

const BAD_ARGUMENT: i32 = -1;
const LEVEL_FLOOR: f64 = 1e-12;
const DENORMAL_FLOOR: f64 = 1e-30;

/** Band-pass edges of §2.3: 100–3800 Hz up to 8 kHz, else 80 Hz to min(7000 Hz, 0.45·fs). */
export function activityLowEdgeHz(sampleRate: i32): f64 {
  return sampleRate <= 8000 ? 100.0 : 80.0;
}

export function activityHighEdgeHz(sampleRate: i32): f64 {
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

/**
 * Band-pass `n` float samples and write 20 ms frame levels L = 10·log10(mean square + 1e−12) (f32 dBFS)
 * at a 10 ms hop to `out`; returns the frame count (activityFrameCount) or a negative status.
 */
export function activityLevels(input: usize, n: i32, sampleRate: i32, out: usize): i32 {
  if (n < 0 || sampleRate < 1000) return BAD_ARGUMENT;
  const fs = <f64>sampleRate;
  // 2nd-order Butterworth (Q = 1/√2) high pass and low pass by the bilinear transform.
  const q = Math.SQRT1_2;
  let k = Math.tan(Math.PI * activityLowEdgeHz(sampleRate) / fs);
  let norm = 1.0 / (1.0 + k / q + k * k);
  const hb0 = norm, hb1 = -2.0 * norm, hb2 = norm;
  const ha1 = 2.0 * (k * k - 1.0) * norm, ha2 = (1.0 - k / q + k * k) * norm;
  k = Math.tan(Math.PI * activityHighEdgeHz(sampleRate) / fs);
  norm = 1.0 / (1.0 + k / q + k * k);
  const lb0 = k * k * norm, lb1 = 2.0 * k * k * norm, lb2 = k * k * norm;
  const la1 = 2.0 * (k * k - 1.0) * norm, la2 = (1.0 - k / q + k * k) * norm;

  let s1: f64 = 0, s2: f64 = 0, t1: f64 = 0, t2: f64 = 0;
  let previousEnergy: f64 = 0, previousLength: i32 = 0;
  let frames = 0;
  const rate = <i64>sampleRate;
  const subblocks = completeSubblocks(n, sampleRate);
  for (let b = 0; b < subblocks; b++) {
    const from = <i32>((<i64>b * rate) / 100);
    const to = <i32>((<i64>(b + 1) * rate) / 100);
    let energy: f64 = 0;
    for (let i = from; i < to; i++) {
      const x = <f64>load<f32>(input + (<usize>i << 2));
      const y = hb0 * x + s1;
      s1 = hb1 * x - ha1 * y + s2;
      s2 = hb2 * x - ha2 * y;
      const z = lb0 * y + t1;
      t1 = lb1 * y - la1 * z + t2;
      t2 = lb2 * y - la2 * z;
      energy += z * z;
    }
    if (Math.abs(s1) < DENORMAL_FLOOR) s1 = 0;
    if (Math.abs(s2) < DENORMAL_FLOOR) s2 = 0;
    if (Math.abs(t1) < DENORMAL_FLOOR) t1 = 0;
    if (Math.abs(t2) < DENORMAL_FLOOR) t2 = 0;
    if (b > 0) {
      const meanSquare = (previousEnergy + energy) / <f64>(previousLength + to - from);
      store<f32>(out + (<usize>frames << 2), <f32>(10.0 * Math.log10(meanSquare + LEVEL_FLOOR)));
      frames++;
    }
    previousEnergy = energy;
    previousLength = to - from;
  }
  return frames;
}
