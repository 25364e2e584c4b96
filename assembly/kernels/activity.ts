// Speech-activity front end: band-pass and 20 ms / 10 ms frame levels in dBFS (acoustics.md §2.3).
//
// The band-pass is a 2nd-order Butterworth high pass and low pass (bilinear, f64 state, run by
// cascadeFilter in blocks). Frame levels are built from 10 ms sub-block energies on the grid
// floor(k·fs/100), so frame i is the 20 ms window [sub-block i, sub-block i+1] at any sample rate.
// Decisions (percentiles, hysteresis, hangover) run on the host over these 100 values per second.

import { cascadeFilter, sumSquares } from "./iir";
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

const LEVEL_FLOOR: f64 = 1e-12;

/**
 * Band-pass edges of §2.3: 100–3800 Hz up to 8 kHz, else 80 Hz to min(7000 Hz, 0.45·fs). Below 8 kHz
 * the upper edge is min(3800 Hz, 0.45·fs): 3800 Hz lies at or above Nyquist there, where the bilinear
 * low pass is no filter at all (every level came out at the floor and no speech was ever found).
 */
function activityLowEdgeHz(sampleRate: i32): f64 {
  return sampleRate <= 8000 ? 100.0 : 80.0;
}

function activityHighEdgeHz(sampleRate: i32): f64 {
  if (sampleRate < 8000) return Math.min(3800.0, 0.45 * <f64>sampleRate);
  return sampleRate == 8000 ? 3800.0 : Math.min(7000.0, 0.45 * <f64>sampleRate);
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
// State block of the incremental front end: 10 coefficients, 4 filter states, the sub-block
// energies and counters (padded to 16-byte alignment); the scratch of activityLevels starts with it.
const STATE_ENERGY: usize = 112;
const STATE_PREVIOUS_ENERGY: usize = 120;
const STATE_BLOCK_START: usize = 128;
const STATE_SUBBLOCK: usize = 132;
const STATE_SUBBLOCK_END: usize = 136;
const STATE_PREVIOUS_LENGTH: usize = 140;
const STATE_RATE: usize = 144;
const SCRATCH_HEADER: usize = 160;

/** Bytes of scratch activityLevels needs. */
export function activityScratchSize(): i32 {
  return <i32>SCRATCH_HEADER + (BLOCK << 3);
}

/** Bytes of the incremental front end's state block (activityStreamInit). */
export function activityStreamStateSize(): i32 {
  return <i32>SCRATCH_HEADER;
}

/** Samples of one filter block of the incremental front end (blocks start at multiples of it). */
export function activityStreamBlockLength(): i32 {
  return BLOCK;
}

/** Samples the frame levels of `n` samples read: those of the complete 10 ms sub-blocks. */
export function activityStreamSampleCount(n: i32, sampleRate: i32): i32 {
  if (n <= 0 || sampleRate < 1000) return 0;
  return <i32>(<i64>completeSubblocks(n, sampleRate) * <i64>sampleRate / 100);
}

/** Start the incremental front end at `state` (activityStreamStateSize() bytes, 16-byte aligned): filters designed and zeroed. */
export function activityStreamInit(state: usize, sampleRate: i32): i32 {
  if (sampleRate < 1000 || (state & 15) != 0) return BAD_ARGUMENT;
  const fs = <f64>sampleRate;
  const coef = state;
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
  memory.fill(state + 80, 0, 32);
  store<f64>(state + STATE_ENERGY, 0);
  store<f64>(state + STATE_PREVIOUS_ENERGY, 0);
  store<i32>(state + STATE_BLOCK_START, 0);
  store<i32>(state + STATE_SUBBLOCK, 0);
  store<i32>(state + STATE_SUBBLOCK_END, <i32>(<i64>sampleRate / 100));
  store<i32>(state + STATE_PREVIOUS_LENGTH, 0);
  store<i32>(state + STATE_RATE, sampleRate);
  return 0;
}

/**
 * Filter the next block of `length` f32 samples (BLOCK samples, or fewer for the last block, which
 * ends at activityStreamSampleCount(n)) and write the frame levels it completes to `out`; `y` holds
 * BLOCK f64. Returns the frames written or a negative status. Blocks fed in this way give exactly
 * what activityLevels gives for the whole signal.
 */
export function activityStreamBlock(state: usize, input: usize, length: i32, y: usize, out: usize): i32 {
  if (length < 0 || length > BLOCK || (y & 15) != 0) return BAD_ARGUMENT;
  const rate = <i64>load<i32>(state + STATE_RATE);
  const warmup = <i32>rate / 10;
  const blockStart = load<i32>(state + STATE_BLOCK_START);
  let b = load<i32>(state + STATE_SUBBLOCK);
  let subblockEnd = load<i32>(state + STATE_SUBBLOCK_END);
  let energy = load<f64>(state + STATE_ENERGY);
  let previousEnergy = load<f64>(state + STATE_PREVIOUS_ENERGY);
  let previousLength = load<i32>(state + STATE_PREVIOUS_LENGTH);
  let frames = 0;
  cascadeFilter(input, length, state, state + 80, warmup, y);
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
  store<i32>(state + STATE_BLOCK_START, blockStart + length);
  store<i32>(state + STATE_SUBBLOCK, b);
  store<i32>(state + STATE_SUBBLOCK_END, subblockEnd);
  store<f64>(state + STATE_ENERGY, energy);
  store<f64>(state + STATE_PREVIOUS_ENERGY, previousEnergy);
  store<i32>(state + STATE_PREVIOUS_LENGTH, previousLength);
  return frames;
}

/**
 * Band-pass `n` float samples and write 20 ms frame levels L = 10·log10(mean square + 1e−12) (f32 dBFS)
 * at a 10 ms hop to `out`; `scratch` holds activityScratchSize() bytes, 16-byte aligned. Returns the
 * frame count (activityFrameCount) or a negative status. The incremental front end fed the whole
 * signal in one go (activityStreamInit, then activityStreamBlock block by block).
 */
export function activityLevels(input: usize, n: i32, sampleRate: i32, scratch: usize, out: usize): i32 {
  if (n < 0 || sampleRate < 1000 || (scratch & 15) != 0) return BAD_ARGUMENT;
  activityStreamInit(scratch, sampleRate);
  const y = scratch + SCRATCH_HEADER;
  const total = activityStreamSampleCount(n, sampleRate);
  let frames = 0;
  for (let blockStart = 0; blockStart < total; blockStart += BLOCK) {
    const length = min(BLOCK, total - blockStart);
    frames += activityStreamBlock(scratch, input + (<usize>blockStart << 2), length, y, out + (<usize>frames << 2));
  }
  return frames;
}

// Speech decisions over the frame levels (§2.3): peak and noise-floor percentiles, hysteresis both
// ways and hangover. The host turns the (start, last active) frame pairs into seconds and merges
// and drops segments, which is per-segment work.

/** Noise-floor anchors are evaluated once per NOISE_FLOOR_STEP frames (1 s) and held for the frames around them. */
const NOISE_FLOOR_STEP: i32 = 100;

/** Noise-floor anchors for `n` frames: one per NOISE_FLOOR_STEP frames, the first at frame 0. */
function noiseFloorAnchors(n: i32): i32 {
  return (n - 1) / NOISE_FLOOR_STEP + 1;
}

/** Byte offset of the noise floor in the scratch, after an f32 selection buffer of `n` values. */
function noiseFloorOffset(n: i32): usize {
  return ((<usize>n << 2) + 7) & ~(<usize>7);
}

/** Bytes of scratch activitySpeechRuns needs for `n` frames: a selection buffer and the noise floor. */
export function activitySpeechRunsScratchSize(n: i32): i32 {
  if (n <= 0) return 0;
  return <i32>noiseFloorOffset(n) + ((noiseFloorAnchors(n) + 1) << 3);
}

/**
 * Linearly interpolated percentile `p` of the f32 values[from, to) (interpolation over the sorted
 * values, acoustics.md §7.2), found by quickselect (Hoare) in the f32 `buffer`. Comparing f32 values
 * orders them as their f64 values do, so the order statistics equal the twin's.
 */
function selectPercentile(values: usize, from: i32, to: i32, p: f64, buffer: usize): f64 {
  const n = to - from;
  memory.copy(buffer, values + (<usize>from << 2), <usize>n << 2);
  const r = (<f64>(n - 1) * p) / 100.0;
  const k = <i32>Math.floor(r);
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = load<f32>(buffer + (<usize>((lo + hi) >> 1) << 2));
    let i = lo, j = hi;
    while (i <= j) {
      while (load<f32>(buffer + (<usize>i << 2)) < pivot) i++;
      while (load<f32>(buffer + (<usize>j << 2)) > pivot) j--;
      if (i <= j) {
        const t = load<f32>(buffer + (<usize>i << 2));
        store<f32>(buffer + (<usize>i << 2), load<f32>(buffer + (<usize>j << 2)));
        store<f32>(buffer + (<usize>j << 2), t);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  const low = <f64>load<f32>(buffer + (<usize>k << 2));
  if (r == <f64>k) return low;
  // The next order statistic is the smallest value above position k.
  let high: f32 = Infinity;
  for (let i = k + 1; i < n; i++) {
    const v = load<f32>(buffer + (<usize>i << 2));
    if (v < high) high = v;
  }
  return low + (r - <f64>k) * (<f64>high - low);
}

/**
 * Speech runs in `n` frame levels (f32 dBFS at a 10 ms hop): a frame enters speech above
 * T_on = max(noise floor + enterAboveNoiseDb, P − enterBelowPeakDb), where P is the peakPercentile
 * of all levels and the noise floor the noisePercentile of a centred window of 2·halfWindow frames
 * (shifted inside the clip), evaluated every second and held for the nearest frames; it stays in
 * speech above T_off = T_on − stayBelowEnterDb and leaves after more than hangoverFrames frames at or
 * below T_off. The onset moves back over frames above T_off since the previous run. Frames nearer to
 * a (missing) anchor past the last one use the last anchor's noise floor.
 * Writes (first frame, last frame above T_off) i32 pairs to `out` (room for n pairs) and returns
 * the run count or a negative status.
 */
export function activitySpeechRuns(
  levels: usize, n: i32, peakPercentile: f64, noisePercentile: f64, halfWindow: i32,
  enterAboveNoiseDb: f64, enterBelowPeakDb: f64, stayBelowEnterDb: f64, hangoverFrames: i32,
  scratch: usize, out: usize,
): i32 {
  if (n < 0 || halfWindow < 1 || (scratch & 7) != 0) return BAD_ARGUMENT;
  if (n == 0) return 0;
  const peak = selectPercentile(levels, 0, n, peakPercentile, scratch);
  return speechRunsGivenPeak(levels, n, peak, noisePercentile, halfWindow, enterAboveNoiseDb, enterBelowPeakDb, stayBelowEnterDb, hangoverFrames,
    scratch, scratch + noiseFloorOffset(n), out);
}

/** Frames of the selection buffer activitySpeechRunsGivenPeak needs: one noise-floor window (2·halfWindow frames, at most n). */
function windowFrames(n: i32, halfWindow: i32): i32 {
  return min(n, 2 * halfWindow);
}

/** Bytes of scratch activitySpeechRunsGivenPeak needs for `n` frames: one window's selection buffer and the noise floor (not n values). */
export function activitySpeechRunsGivenPeakScratchSize(n: i32, halfWindow: i32): i32 {
  if (n <= 0 || halfWindow < 1) return 0;
  return <i32>noiseFloorOffset(windowFrames(n, halfWindow)) + ((noiseFloorAnchors(n) + 1) << 3);
}

/**
 * activitySpeechRuns with the peakPercentile of the levels (`peak`, as activitySpeechRuns selects it:
 * the interpolated order statistics of the f32 levels in f64) found by the caller, so the scratch
 * holds one noise-floor window rather than a copy of every level (long recordings). Same runs.
 */
export function activitySpeechRunsGivenPeak(
  levels: usize, n: i32, peak: f64, noisePercentile: f64, halfWindow: i32,
  enterAboveNoiseDb: f64, enterBelowPeakDb: f64, stayBelowEnterDb: f64, hangoverFrames: i32,
  scratch: usize, out: usize,
): i32 {
  if (n < 0 || halfWindow < 1 || (scratch & 7) != 0) return BAD_ARGUMENT;
  if (n == 0) return 0;
  return speechRunsGivenPeak(levels, n, peak, noisePercentile, halfWindow, enterAboveNoiseDb, enterBelowPeakDb, stayBelowEnterDb, hangoverFrames,
    scratch, scratch + noiseFloorOffset(windowFrames(n, halfWindow)), out);
}

function speechRunsGivenPeak(
  levels: usize, n: i32, peak: f64, noisePercentile: f64, halfWindow: i32,
  enterAboveNoiseDb: f64, enterBelowPeakDb: f64, stayBelowEnterDb: f64, hangoverFrames: i32,
  buffer: usize, noiseFloor: usize, out: usize,
): i32 {
  const peakLimit = peak - enterBelowPeakDb;
  const anchors = noiseFloorAnchors(n);
  for (let a = 0; a < anchors; a++) {
    const centre = a * NOISE_FLOOR_STEP;
    let from = max(0, centre - halfWindow);
    const to = min(n, from + 2 * halfWindow);
    from = max(0, to - 2 * halfWindow);
    store<f64>(noiseFloor + (<usize>a << 3), selectPercentile(levels, from, to, noisePercentile, buffer));
  }
  // round(i / 100) reaches `anchors` for the last frames of some lengths: they keep the last anchor's floor.
  store<f64>(noiseFloor + (<usize>anchors << 3), load<f64>(noiseFloor + (<usize>(anchors - 1) << 3)));

  let runs = 0;
  let inSpeech = false;
  let start = 0, lastActive = 0, previousEnd = 0;
  for (let i = 0; i < n; i++) {
    const enter = max(load<f64>(noiseFloor + (<usize>((i + NOISE_FLOOR_STEP / 2) / NOISE_FLOOR_STEP) << 3)) + enterAboveNoiseDb, peakLimit);
    const level = <f64>load<f32>(levels + (<usize>i << 2));
    if (!inSpeech) {
      if (level > enter) {
        start = i;
        while (start > previousEnd) {
          const before = start - 1;
          const enterBefore = max(load<f64>(noiseFloor + (<usize>((before + NOISE_FLOOR_STEP / 2) / NOISE_FLOOR_STEP) << 3)) + enterAboveNoiseDb, peakLimit);
          if (!(<f64>load<f32>(levels + (<usize>before << 2)) > enterBefore - stayBelowEnterDb)) break;
          start = before;
        }
        inSpeech = true;
        lastActive = i;
      }
    } else if (level > enter - stayBelowEnterDb) {
      lastActive = i;
    } else if (i - lastActive > hangoverFrames) {
      store<i32>(out + (<usize>runs << 3), start);
      store<i32>(out + (<usize>runs << 3), lastActive, 4);
      runs++;
      inSpeech = false;
      previousEnd = lastActive + 1;
    }
  }
  if (inSpeech) {
    store<i32>(out + (<usize>runs << 3), start);
    store<i32>(out + (<usize>runs << 3), lastActive, 4);
    runs++;
  }
  return runs;
}
