// 250 ms loop-window fingerprints: XXH64 of the exact int16 content of every full, non-silent window (voice-metrics.md §3.7).
//
// deepeval keys windows by an 8-byte BLAKE2b digest of their bytes; any exact-content key is
// equivalent. XXH64 (the reference algorithm, seed 0, over the little-endian bytes) is fast and
// strong; the host still confirms equal hashes by comparing the samples, so a collision can never
// create a loop.

import { rmsI16 } from "./frames";

/** Status: an argument is out of range. */
const BAD_ARGUMENT: i32 = -1;

const SILENCE_RMS: f64 = 300.0;

const PRIME1: u64 = 0x9e3779b185ebca87;
const PRIME2: u64 = 0xc2b2ae3d27d4eb4f;
const PRIME3: u64 = 0x165667b19e3779f9;
const PRIME4: u64 = 0x85ebca77c2b2ae63;
const PRIME5: u64 = 0x27d4eb2f165667c5;

@inline function xxhRound(acc: u64, input: u64): u64 {
  return rotl<u64>(acc + input * PRIME2, 31) * PRIME1;
}

@inline function xxhMerge(acc: u64, lane: u64): u64 {
  return (acc ^ xxhRound(0, lane)) * PRIME1 + PRIME4;
}

/** XXH64 with seed 0 of the 2·len little-endian bytes of `len` int16 samples at `ptr`. */
export function hashI16(ptr: usize, len: i32): u64 {
  const end = ptr + (<usize>len << 1);
  let p = ptr;
  let h: u64;
  if (len >= 16) {
    let v1: u64 = PRIME1 + PRIME2;
    let v2: u64 = PRIME2;
    let v3: u64 = 0;
    let v4: u64 = 0 - PRIME1;
    const lastStripe = end - 32;
    do {
      v1 = xxhRound(v1, load<u64>(p));
      v2 = xxhRound(v2, load<u64>(p, 8));
      v3 = xxhRound(v3, load<u64>(p, 16));
      v4 = xxhRound(v4, load<u64>(p, 24));
      p += 32;
    } while (p <= lastStripe);
    h = rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18);
    h = xxhMerge(h, v1);
    h = xxhMerge(h, v2);
    h = xxhMerge(h, v3);
    h = xxhMerge(h, v4);
  } else {
    h = PRIME5;
  }
  h += <u64>len << 1;
  for (; p + 8 <= end; p += 8) h = rotl<u64>(h ^ xxhRound(0, load<u64>(p)), 27) * PRIME1 + PRIME4;
  if (p + 4 <= end) {
    h = rotl<u64>(h ^ (<u64>load<u32>(p) * PRIME1), 23) * PRIME2 + PRIME3;
    p += 4;
  }
  for (; p < end; p++) h = rotl<u64>(h ^ (<u64>load<u8>(p) * PRIME5), 11) * PRIME1;
  h ^= h >> 33;
  h *= PRIME2;
  h ^= h >> 29;
  h *= PRIME3;
  h ^= h >> 32;
  return h;
}

/**
 * Windows of `width` samples at 0, width, 2·width, … (full windows only) whose RMS is ≥ 300: writes
 * each one's first sample index (i32) at `outStart` and its hash (u64) at `outHash`; returns how
 * many were written (at most floor(len / width)), or BAD_ARGUMENT.
 */
export function loopFingerprintsI16(ptr: usize, len: i32, width: i32, outStart: usize, outHash: usize): i32 {
  if (len < 0 || width < 1) return BAD_ARGUMENT;
  const windows = len / width;
  let count = 0;
  for (let k = 0; k < windows; k++) {
    const start = k * width;
    const window = ptr + (<usize>start << 1);
    if (rmsI16(window, width) < SILENCE_RMS) continue;
    store<i32>(outStart + (<usize>count << 2), start);
    store<u64>(outHash + (<usize>count << 3), hashI16(window, width));
    count++;
  }
  return count;
}
