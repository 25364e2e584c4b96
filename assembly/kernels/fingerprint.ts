// 250 ms loop-window fingerprints: XXH64 of the exact int16 content of every full, non-silent window (voice-metrics.md §3.7).
//
// deepeval keys windows by an 8-byte BLAKE2b digest of their bytes; any exact-content key is
// equivalent. XXH64 (the reference algorithm, seed 0, over the little-endian bytes) is fast and
// strong; the host still confirms equal hashes by comparing the samples, so a collision can never
// create a loop.

import { rmsI16 } from "./frames";
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

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

/** Whether the window of `width` int16 samples at `window` takes part in loop detection: RMS ≥ 300 (§3.7 step 2). */
export function loudWindowI16(window: usize, width: i32): bool {
  return rmsI16(window, width) >= SILENCE_RMS;
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
    if (!loudWindowI16(window, width)) continue;
    store<i32>(outStart + (<usize>count << 2), start);
    store<u64>(outHash + (<usize>count << 3), hashI16(window, width));
    count++;
  }
  return count;
}

// Loop-window groups: an open-addressing table of 16-byte slots (hash u64, first start i32, count i32),
// linear probing from the hash's low bits; count 0 marks an empty slot.
const SLOT_BYTES: usize = 16;
const SLOT_START: usize = 8;
const SLOT_COUNT: usize = 12;

/** Slots of the grouping table for `count` windows: a power of two ≥ 2·count (≥ 2), so probing always ends. */
function loopTableSlots(count: i32): i32 {
  const wanted = max(2, count << 1);
  return 1 << (32 - clz(wanted - 1));
}

/** Bytes of the table loopEventsI16 needs for `count` windows. */
export function loopTableBytes(count: i32): i32 {
  return loopTableSlots(max(0, count)) * <i32>SLOT_BYTES;
}

/** Whether the `width` int16 samples at `a` and at `b` are identical. */
export function equalWindowsI16(a: usize, b: usize, width: i32): bool {
  let i = 0;
  for (; i + 8 <= width; i += 8) {
    const at = <usize>i << 1;
    if (v128.any_true(v128.xor(v128.load(a + at), v128.load(b + at)))) return false;
  }
  for (; i < width; i++) {
    const at = <usize>i << 1;
    if (load<i16>(a + at) != load<i16>(b + at)) return false;
  }
  return true;
}

/**
 * loop_events (§3.7 step 4) of the `count` windows that loopFingerprintsI16 wrote (first sample
 * indices at `starts`, hashes at `hashes`) over the PCM at `ptr`: windows are grouped by hash and,
 * within a hash, by identical samples, so only byte-identical windows ever count together. Returns
 * Σ over groups of more than two windows of (count − 1), or BAD_ARGUMENT. `table` holds
 * loopTableBytes(count) bytes; it is cleared here.
 */
export function loopEventsI16(ptr: usize, width: i32, starts: usize, hashes: usize, count: i32, table: usize): i32 {
  if (width < 1 || count < 0) return BAD_ARGUMENT;
  const slots = loopTableSlots(count);
  const mask = <u64>(slots - 1);
  memory.fill(table, 0, <usize>slots * SLOT_BYTES);
  for (let j = 0; j < count; j++) {
    const start = load<i32>(starts + (<usize>j << 2));
    const hash = load<u64>(hashes + (<usize>j << 3));
    const window = ptr + (<usize>start << 1);
    let slot = <i32>(hash & mask);
    while (true) {
      const at = table + <usize>slot * SLOT_BYTES;
      const seen = load<i32>(at + SLOT_COUNT);
      if (seen == 0) {
        store<u64>(at, hash);
        store<i32>(at + SLOT_START, start);
        store<i32>(at + SLOT_COUNT, 1);
        break;
      }
      if (load<u64>(at) == hash && equalWindowsI16(ptr + (<usize>load<i32>(at + SLOT_START) << 1), window, width)) {
        store<i32>(at + SLOT_COUNT, seen + 1);
        break;
      }
      slot = (slot + 1) & (slots - 1);
    }
  }
  let events = 0;
  for (let s = 0; s < slots; s++) {
    const seen = load<i32>(table + <usize>s * SLOT_BYTES + SLOT_COUNT);
    if (seen > 2) events += seen - 1;
  }
  return events;
}
