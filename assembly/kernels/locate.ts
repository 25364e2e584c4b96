// Exact location of deepeval simulation clips inside deepeval-conversation.wav (formats.md F2.4): the residual, its window-hash index, anchors and matches.
//
// The render is a clamped int32 sum of the clips at their offsets. The host decides which clip to
// try and in what order (src/dsp/locate.ts); these kernels do every per-sample and per-window loop:
// widening the render into an int32 residual with a mask of saturated samples, indexing the
// residual's windows by a polynomial hash, finding where an anchor of a clip occurs, checking a whole
// clip against the residual at those offsets, and peeling a placed clip off. The index state lives
// in a caller-owned block (locateStateSize bytes) that points at caller-owned regions.
import { OK, BAD_ARGUMENT, INDEX_FULL } from "../../src/dsp/kernel-status";

/** Anchor window length in samples: long enough that a chance match in speech is practically impossible. */
const ANCHOR_SAMPLES: i32 = 24;
/** A sample counts as distinctive (usable in an anchor) from this magnitude on. */
const DISTINCT_LEVEL: i32 = 64;
/** Candidate offsets examined per anchor (the smallest ones). */
const CANDIDATES_PER_ANCHOR: i32 = 8;
/** A partial placement needs this share of the clip's samples to match exactly… */
const PARTIAL_MIN_SHARE: f64 = 0.2;
/** …including at least this many distinctive samples. */
const PARTIAL_MIN_DISTINCT: i32 = 2000;

/**
 * Every anchor occurrence contains exactly one indexed window: windows start every KEY_STRIDE
 * samples and are KEY_SAMPLES long, so an anchor starting anywhere holds the next one whole.
 */
const KEY_STRIDE: i32 = 8;
const KEY_SAMPLES: i32 = ANCHOR_SAMPLES - KEY_STRIDE + 1;
/**
 * A distinctive anchor has ≥ ANCHOR_SAMPLES/2 distinctive samples, so the window it holds has at
 * least this many; quieter windows can never be part of an anchor match and are not indexed.
 */
const KEY_MIN_DISTINCT: i32 = (ANCHOR_SAMPLES + 1) / 2 - (KEY_STRIDE - 1);
/** Odd multiplier of the polynomial window hash. */
const HASH_MULTIPLIER: i32 = 0x01000193;
/** Fibonacci hashing: the top bits of hash × 2³²/φ pick the bucket. */
const BUCKET_MIXER: u32 = 0x9e3779b1;
const MIN_BUCKET_BITS: i32 = 4;
/** int16 full scale: where deepeval's clamp may have cut the sum. */
const FULL_SCALE_HIGH: i32 = 32767;
const FULL_SCALE_LOW: i32 = -32768;

// State block: u32 fields at these byte offsets.
const S_RESIDUAL: usize = 0;
const S_WILD: usize = 4;
const S_LENGTH: usize = 8;
const S_HEAD: usize = 12;
const S_SHIFT: usize = 16;
const S_ENTRIES: usize = 20;
const S_CAPACITY: usize = 24;
const S_KEYS: usize = 28;
const STATE_BYTES: i32 = 32;
/** An index entry: window start, window hash, next entry of the bucket (−1 ends the chain). */
const ENTRY_BYTES: usize = 12;

/** Bytes of the state block. */
export function locateStateSize(): i32 {
  return STATE_BYTES;
}

/** Buckets of the index over an `n`-sample render: 2^max(4, ⌈log2(⌊n/8⌋ + 1)⌉). */
export function locateBucketCount(n: i32): i32 {
  if (n < 0) return BAD_ARGUMENT;
  const slots = n / KEY_STRIDE + 1;
  const bits = slots <= 1 ? 0 : 32 - clz(slots - 1);
  return 1 << max(MIN_BUCKET_BITS, bits);
}

/**
 * Index entries to reserve: one per window of the render, plus what re-indexing after placing clips
 * of `clipSamples` samples in total (`clipCount` clips) can add, ⌈(len + KEY_SAMPLES)/KEY_STRIDE⌉ + 1 each at most.
 */
export function locateIndexCapacity(n: i32, clipSamples: f64, clipCount: i32): f64 {
  return <f64>(n / KEY_STRIDE + 1) + Math.floor((clipSamples + <f64>clipCount * <f64>(KEY_SAMPLES + KEY_STRIDE - 1)) / <f64>KEY_STRIDE) + <f64>clipCount;
}

@inline function isSaturated(x: i32): bool {
  return x == FULL_SCALE_HIGH || x == FULL_SCALE_LOW;
}

@inline function isDistinct(x: i32): i32 {
  // |x| ≥ DISTINCT_LEVEL as one unsigned comparison.
  return <i32>(<u32>(x + DISTINCT_LEVEL - 1) > <u32>(2 * DISTINCT_LEVEL - 2));
}

@inline function bucketOf(h: i32, shift: i32): usize {
  return <usize>((<u32>h * BUCKET_MIXER) >> <u32>shift);
}

/** Hash of KEY_SAMPLES int16 samples at `ptr`: h ← h·HASH_MULTIPLIER + x (mod 2³²). */
@inline function hashKeyI16(ptr: usize): i32 {
  let h: i32 = 0;
  for (let k = 0; k < KEY_SAMPLES; k++) h = h * HASH_MULTIPLIER + <i32>load<i16>(ptr + (<usize>k << 1));
  return h;
}

/** HASH_MULTIPLIER^e (mod 2³²). */
function hashPower(e: i32): i32 {
  let p: i32 = 1;
  for (let k = 0; k < e; k++) p *= HASH_MULTIPLIER;
  return p;
}

/** The four multipliers M^(16−k) of window samples k = 4·lane…4·lane + 3 (the polynomial hash unrolled). */
function hashPowers(lane: i32): v128 {
  let v = i32x4.splat(0);
  v = i32x4.replace_lane(v, 0, hashPower(KEY_SAMPLES - 1 - 4 * lane));
  v = i32x4.replace_lane(v, 1, hashPower(KEY_SAMPLES - 2 - 4 * lane));
  v = i32x4.replace_lane(v, 2, hashPower(KEY_SAMPLES - 3 - 4 * lane));
  v = i32x4.replace_lane(v, 3, hashPower(KEY_SAMPLES - 4 - 4 * lane));
  return v;
}

/** −1 in the lanes where |x| ≥ DISTINCT_LEVEL, else 0 (see isDistinct). */
@inline function distinctLanes(x: v128): v128 {
  return i32x4.gt_u(i32x4.add(x, i32x4.splat(DISTINCT_LEVEL - 1)), i32x4.splat(2 * DISTINCT_LEVEL - 2));
}

@inline function sumLanes(v: v128): i32 {
  return i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3);
}

/**
 * The key of the residual window of KEY_SAMPLES i32 samples at `window`: its hash Σ x_k·M^(16−k)
 * (mod 2³², as an unsigned value), or −1 when fewer than KEY_MIN_DISTINCT of its samples are loud
 * enough to tell windows apart. `p0`…`p3` are hashPowers(0…3).
 */
@inline function windowKey(window: usize, p0: v128, p1: v128, p2: v128, p3: v128): i64 {
  const v0 = v128.load(window);
  const v1 = v128.load(window, 16);
  const v2 = v128.load(window, 32);
  const v3 = v128.load(window, 48);
  const x16 = load<i32>(window, 64);
  const loud = -sumLanes(i32x4.add(i32x4.add(distinctLanes(v0), distinctLanes(v1)), i32x4.add(distinctLanes(v2), distinctLanes(v3)))) + isDistinct(x16);
  if (loud < KEY_MIN_DISTINCT) return -1;
  return <i64><u32>(sumLanes(i32x4.add(i32x4.add(i32x4.mul(v0, p0), i32x4.mul(v1, p1)), i32x4.add(i32x4.mul(v2, p2), i32x4.mul(v3, p3)))) + x16);
}

/**
 * Index the residual windows starting on the stride inside [from, to]. The window hash
 * h ← h·M + x over 17 samples equals Σ x_k·M^(16−k) (mod 2³²), computed four lanes at a time.
 */
function indexWindows(state: usize, from: i32, to: i32): i32 {
  // KEY_SAMPLES = 4·4 + 1: four vectors and one scalar sample per window.
  const r = <usize>load<u32>(state, S_RESIDUAL);
  const n = <i32>load<u32>(state, S_LENGTH);
  const head = <usize>load<u32>(state, S_HEAD);
  const shift = <i32>load<u32>(state, S_SHIFT);
  const entries = <usize>load<u32>(state, S_ENTRIES);
  const capacity = <i32>load<u32>(state, S_CAPACITY);
  let keys = <i32>load<u32>(state, S_KEYS);
  const last = min(to, n - KEY_SAMPLES);
  let at = from <= 0 ? 0 : ((from + KEY_STRIDE - 1) / KEY_STRIDE) * KEY_STRIDE;
  const p0 = hashPowers(0), p1 = hashPowers(1), p2 = hashPowers(2), p3 = hashPowers(3);
  let status = OK;
  for (; at <= last; at += KEY_STRIDE) {
    const key = windowKey(r + (<usize>at << 2), p0, p1, p2, p3);
    if (key < 0) continue;
    const h = <i32>key;
    if (keys >= capacity) {
      status = INDEX_FULL;
      break;
    }
    const b = head + (bucketOf(h, shift) << 2);
    const e = entries + <usize>keys * ENTRY_BYTES;
    store<i32>(e, at);
    store<i32>(e, h, 4);
    store<i32>(e, load<i32>(b), 8);
    store<i32>(b, keys);
    keys++;
  }
  store<u32>(state, <u32>keys, S_KEYS);
  return status;
}

/**
 * Start a location task over an `n`-sample int16 render at `mix`: widen it into the int32 `residual`
 * (4·n bytes), mark saturated samples (±full scale, where the clamp destroyed the sum) with 1 in
 * `wild` (n bytes) and index every window. `mix` may be the upper half of the residual region
 * (residual + 2·n): the widening runs forwards and never overwrites samples it has still to read.
 * `head` holds `buckets` i32 (locateBucketCount), `entries` holds `capacity` entries of 12 bytes
 * (locateIndexCapacity). Returns OK or a negative status.
 */
export function locateInit(state: usize, mix: usize, n: i32, residual: usize, wild: usize, head: usize, buckets: i32, entries: usize, capacity: i32): i32 {
  if (n < 0 || capacity < 0 || buckets != locateBucketCount(n)) return BAD_ARGUMENT;
  let i = 0;
  // Eight samples per step, all loaded before any store: with mix = residual + 2·n, the 32 bytes
  // written end at residual + 4·i + 32 ≤ mix + 2·(i + 8), where the unread samples begin.
  for (; i + 8 <= n; i += 8) {
    const x = v128.load(mix + (<usize>i << 1));
    const saturated = v128.or(i16x8.eq(x, i16x8.splat(<i16>FULL_SCALE_HIGH)), i16x8.eq(x, i16x8.splat(<i16>FULL_SCALE_LOW)));
    v128.store64_lane(wild + <usize>i, v128.and(i8x16.narrow_i16x8_s(saturated, saturated), i8x16.splat(1)), 0);
    v128.store(residual + (<usize>i << 2), i32x4.extend_low_i16x8_s(x));
    v128.store(residual + (<usize>i << 2), i32x4.extend_high_i16x8_s(x), 16);
  }
  for (; i < n; i++) {
    const x = <i32>load<i16>(mix + (<usize>i << 1));
    store<i32>(residual + (<usize>i << 2), x);
    store<u8>(wild + <usize>i, <u8>isSaturated(x));
  }
  memory.fill(head, 0xff, <usize>buckets << 2);
  store<u32>(state, <u32>residual, S_RESIDUAL);
  store<u32>(state, <u32>wild, S_WILD);
  store<u32>(state, <u32>n, S_LENGTH);
  store<u32>(state, <u32>head, S_HEAD);
  store<u32>(state, <u32>(32 - ctz(buckets)), S_SHIFT);
  store<u32>(state, <u32>entries, S_ENTRIES);
  store<u32>(state, <u32>capacity, S_CAPACITY);
  store<u32>(state, 0, S_KEYS);
  return indexWindows(state, 0, n - 1);
}

/** Entries in the index so far (for tests and diagnostics). */
export function locateIndexedKeys(state: usize): i32 {
  return <i32>load<u32>(state, S_KEYS);
}

/** Start positions of distinctive anchor windows in a clip, at most `count`, spread over its length: written to `out` (i32), count returned. */
export function locateAnchors(clip: usize, len: i32, count: i32, out: usize): i32 {
  const last = len - ANCHOR_SAMPLES;
  if (last < 0 || count <= 0) return 0;
  const step = max(1, last / count);
  let found = 0;
  for (let start = 0; start <= last && found < count; start += step) {
    const end = min(last, start + step - 1);
    // Distinctive samples in the window at p, slid along [start, end].
    let loud = 0;
    for (let k = 0; k < ANCHOR_SAMPLES; k++) loud += isDistinct(<i32>load<i16>(clip + (<usize>(start + k) << 1)));
    for (let p = start; ; p++) {
      if (loud * 2 >= ANCHOR_SAMPLES) {
        store<i32>(out + (<usize>found << 2), p);
        found++;
        break;
      }
      if (p >= end) break;
      loud += isDistinct(<i32>load<i16>(clip + (<usize>(p + ANCHOR_SAMPLES) << 1))) - isDistinct(<i32>load<i16>(clip + (<usize>p << 1)));
    }
  }
  return found;
}

/** The `count` values at `list` are ascending and distinct; add `o` keeping at most CANDIDATES_PER_ANCHOR (the smallest). */
@inline function keepSmallest(list: usize, count: i32, o: i32): i32 {
  let j = count;
  while (j > 0 && load<i32>(list + (<usize>(j - 1) << 2)) > o) j--;
  if ((j > 0 && load<i32>(list + (<usize>(j - 1) << 2)) == o) || j >= CANDIDATES_PER_ANCHOR) return count;
  for (let q = min(count, CANDIDATES_PER_ANCHOR - 1); q > j; q--) store<i32>(list + (<usize>q << 2), load<i32>(list + (<usize>(q - 1) << 2)));
  store<i32>(list + (<usize>j << 2), o);
  return count < CANDIDATES_PER_ANCHOR ? count + 1 : count;
}

/**
 * Offsets o (ascending, distinct, the CANDIDATES_PER_ANCHOR smallest) where the anchor
 * clip[p…p+ANCHOR_SAMPLES) equals residual[o+p…] and the whole clip fits: written to `out` (i32).
 * Stale index entries fail the exact comparison, so the result is what a scan of the residual gives.
 */
function candidates(state: usize, clip: usize, len: i32, p: i32, out: usize): i32 {
  const r = <usize>load<u32>(state, S_RESIDUAL);
  const n = <i32>load<u32>(state, S_LENGTH);
  const head = <usize>load<u32>(state, S_HEAD);
  const shift = <i32>load<u32>(state, S_SHIFT);
  const entries = <usize>load<u32>(state, S_ENTRIES);
  const lastStart = n - len + p;
  const anchor = clip + (<usize>p << 1);
  let count = 0;
  for (let d = 0; d < KEY_STRIDE; d++) {
    const h = hashKeyI16(anchor + (<usize>d << 1));
    for (let e = load<i32>(head + (bucketOf(h, shift) << 2)); e >= 0; e = load<i32>(entries + <usize>e * ENTRY_BYTES, 8)) {
      const entry = entries + <usize>e * ENTRY_BYTES;
      const i = load<i32>(entry) - d;
      if (load<i32>(entry, 4) != h || i < p || i > lastStart) continue;
      const at = r + (<usize>i << 2);
      let k = 0;
      while (k < ANCHOR_SAMPLES && load<i32>(at + (<usize>k << 2)) == <i32>load<i16>(anchor + (<usize>k << 1))) k++;
      if (k == ANCHOR_SAMPLES) count = keepSmallest(out, count, i - p);
    }
  }
  return count;
}

@inline function clipFits(state: usize, len: i32): bool {
  return len >= 1 && len <= <i32>load<u32>(state, S_LENGTH);
}

/** The candidates of the anchor at `p` (see `candidates`), for tests; count or a negative status. */
export function locateCandidates(state: usize, clip: usize, len: i32, p: i32, out: usize): i32 {
  if (!clipFits(state, len) || p < 0 || p > len - ANCHOR_SAMPLES) return BAD_ARGUMENT;
  return candidates(state, clip, len, p, out);
}

/** The wild flags of four samples as i32 lanes: −1 where the sample is not wild, else 0. */
@inline function tameLanes(mask: usize): v128 {
  return i32x4.eq(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(mask))), i32x4.splat(0));
}

/** Whether every residual sample at `at` equals the clip's, wild samples (flag 1 at `mask`) matching anything. */
function matchesEverywhere(at: usize, mask: usize, clip: usize, len: i32): bool {
  let k = 0;
  for (; k + 4 <= len; k += 4) {
    const same = i32x4.eq(v128.load(at + (<usize>k << 2)), v128.load16x4_s(clip + (<usize>k << 1)));
    if (!i32x4.all_true(v128.or(same, v128.not(tameLanes(mask + <usize>k))))) return false;
  }
  for (; k < len; k++) {
    if (load<u8>(mask + <usize>k) == 0 && load<i32>(at + (<usize>k << 2)) != <i32>load<i16>(clip + (<usize>k << 1))) return false;
  }
  return true;
}

/**
 * Every candidate offset of the anchor at `p` (ascending) where all samples of the clip match the
 * residual, saturated samples matching anything: written to `out` (CANDIDATES_PER_ANCHOR i32 at
 * most), count returned, or a negative status.
 */
export function locateFullMatches(state: usize, clip: usize, len: i32, p: i32, out: usize): i32 {
  if (!clipFits(state, len) || p < 0 || p > len - ANCHOR_SAMPLES) return BAD_ARGUMENT;
  const r = <usize>load<u32>(state, S_RESIDUAL);
  const wild = <usize>load<u32>(state, S_WILD);
  const count = candidates(state, clip, len, p, out);
  let hits = 0;
  for (let c = 0; c < count; c++) {
    const o = load<i32>(out + (<usize>c << 2));
    if (!matchesEverywhere(r + (<usize>o << 2), wild + <usize>o, clip, len)) continue;
    store<i32>(out + (<usize>hits << 2), o);
    hits++;
  }
  return hits;
}

/** Bytes of scratch locatePartialMatch needs for `anchorCount` anchors. */
export function locatePartialScratchSize(anchorCount: i32): i32 {
  return (max(0, anchorCount) + 1) * CANDIDATES_PER_ANCHOR * 4;
}

/**
 * The offset where a large, distinctive part of the clip matches exactly and no other offset comes
 * close, over the candidates of the `anchorCount` anchors at `anchors` (i32): a placement needs
 * PARTIAL_MIN_SHARE of the samples to match (saturated ones excluded), PARTIAL_MIN_DISTINCT of them
 * distinctive, and more than twice the matches of any other candidate. Writes the offset to `out`
 * and returns 1, returns 0 when there is none, or a negative status.
 */
export function locatePartialMatch(state: usize, clip: usize, len: i32, anchors: usize, anchorCount: i32, scratch: usize, out: usize): i32 {
  if (!clipFits(state, len) || anchorCount < 0) return BAD_ARGUMENT;
  for (let a = 0; a < anchorCount; a++) {
    const p = load<i32>(anchors + (<usize>a << 2));
    if (p < 0 || p > len - ANCHOR_SAMPLES) return BAD_ARGUMENT;
  }
  const r = <usize>load<u32>(state, S_RESIDUAL);
  const wild = <usize>load<u32>(state, S_WILD);
  const found = scratch;
  const tried = scratch + (CANDIDATES_PER_ANCHOR << 2);
  const minMatched = PARTIAL_MIN_SHARE * <f64>len;
  let triedCount = 0;
  let best = -1;
  let bestMatched = 0;
  let second = 0;
  for (let a = 0; a < anchorCount; a++) {
    const count = candidates(state, clip, len, load<i32>(anchors + (<usize>a << 2)), found);
    for (let c = 0; c < count; c++) {
      const o = load<i32>(found + (<usize>c << 2));
      let seen = false;
      for (let t = 0; t < triedCount && !seen; t++) seen = load<i32>(tried + (<usize>t << 2)) == o;
      if (seen) continue;
      store<i32>(tried + (<usize>triedCount << 2), o);
      triedCount++;
      const at = r + (<usize>o << 2);
      const mask = wild + <usize>o;
      // Lanes count down by one (−1 masks) per sample that is tame and equal, and per such distinctive one.
      let matchedHits = i32x4.splat(0);
      let distinctHits = i32x4.splat(0);
      let k = 0;
      for (; k + 4 <= len; k += 4) {
        const x = v128.load16x4_s(clip + (<usize>k << 1));
        const hit = v128.and(i32x4.eq(v128.load(at + (<usize>k << 2)), x), tameLanes(mask + <usize>k));
        matchedHits = i32x4.add(matchedHits, hit);
        distinctHits = i32x4.add(distinctHits, v128.and(hit, distinctLanes(x)));
      }
      let matched = -sumLanes(matchedHits);
      let distinct = -sumLanes(distinctHits);
      for (; k < len; k++) {
        const x = <i32>load<i16>(clip + (<usize>k << 1));
        if (load<u8>(mask + <usize>k) != 0 || load<i32>(at + (<usize>k << 2)) != x) continue;
        matched++;
        distinct += isDistinct(x);
      }
      if (distinct < PARTIAL_MIN_DISTINCT || <f64>matched < minMatched) continue;
      if (best < 0 || matched > bestMatched) {
        if (best >= 0) second = bestMatched;
        best = o;
        bestMatched = matched;
      } else {
        second = max(second, matched);
      }
    }
  }
  if (best < 0 || second * 2 >= bestMatched) return 0;
  store<i32>(out, best);
  return 1;
}

/** Peel the clip placed at `offset` off the residual (saturated samples stay wild) and re-index the windows it changed. */
export function locatePlace(state: usize, clip: usize, len: i32, offset: i32): i32 {
  if (!clipFits(state, len) || offset < 0 || offset > <i32>load<u32>(state, S_LENGTH) - len) return BAD_ARGUMENT;
  const at = <usize>load<u32>(state, S_RESIDUAL) + (<usize>offset << 2);
  const mask = <usize>load<u32>(state, S_WILD) + <usize>offset;
  let k = 0;
  for (; k + 4 <= len; k += 4) {
    const q = at + (<usize>k << 2);
    v128.store(q, i32x4.sub(v128.load(q), v128.and(v128.load16x4_s(clip + (<usize>k << 1)), tameLanes(mask + <usize>k))));
  }
  for (; k < len; k++) {
    if (load<u8>(mask + <usize>k) != 0) continue;
    const q = at + (<usize>k << 2);
    store<i32>(q, load<i32>(q) - <i32>load<i16>(clip + (<usize>k << 1)));
  }
  return indexWindows(state, offset - KEY_SAMPLES + 1, offset + len - 1);
}

/** 1 when the `len` int16 samples at `a` and `b` are equal, else 0. */
export function locateSameSamples(a: usize, b: usize, len: i32): i32 {
  if (len <= 0 || a == b) return 1;
  return <i32>(memory.compare(a, b, <usize>len << 1) == 0);
}

// Anchor scan (the windowed search of src/dsp/locate.ts): every occurrence of the clips' anchors in
// a stretch of the residual, found through a hash table of the anchors' indexed windows. An anchor
// occurrence holds exactly one stride window whole (see KEY_STRIDE), so each anchor has KEY_STRIDE
// keys, one per shift d, and a residual window at w can only be the shift-d key of an occurrence at w − d.

/** Samples of one anchor in the table: the anchors are stored back to back, ANCHOR_SAMPLES int16 each. */
export function locateAnchorSamples(): i32 {
  return ANCHOR_SAMPLES;
}

/** Bytes of one key entry of the anchor table: its hash and code (a·KEY_STRIDE + d). */
const ANCHOR_ENTRY_BYTES: usize = 8;

/** Bytes of the key entries of `count` anchors (KEY_STRIDE entries of ANCHOR_ENTRY_BYTES each). */
export function locateAnchorEntryBytes(count: i32): i32 {
  return count < 0 ? BAD_ARGUMENT : count * KEY_STRIDE * <i32>ANCHOR_ENTRY_BYTES;
}

/**
 * Build the key table of the `count` anchors at `anchors`: for anchor a and shift d < KEY_STRIDE an
 * entry (hash of its KEY_SAMPLES samples from d, a·KEY_STRIDE + d), the entries of each bucket
 * stored together: bucket b's are entries[head[b] … head[b + 1]). `head` holds `buckets` + 1 i32
 * (`buckets` a power of two ≥ 16); `entries` holds locateAnchorEntryBytes(count) bytes. No links:
 * two thirds of a chained table's bytes, and a bucket's entries are read one after the other.
 */
export function locateAnchorTableInit(anchors: usize, count: i32, head: usize, buckets: i32, entries: usize): i32 {
  if (count < 0 || buckets < 16 || (buckets & (buckets - 1)) != 0) return BAD_ARGUMENT;
  const shift = 32 - ctz(buckets);
  memory.fill(head, 0, <usize>(buckets + 1) << 2);
  // Entries per bucket (in head[b + 1]), then where each bucket starts.
  for (let a = 0; a < count; a++) {
    const anchor = anchors + (<usize>(a * ANCHOR_SAMPLES) << 1);
    for (let d = 0; d < KEY_STRIDE; d++) {
      const b = head + ((bucketOf(hashKeyI16(anchor + (<usize>d << 1)), shift) + 1) << 2);
      store<i32>(b, load<i32>(b) + 1);
    }
  }
  for (let b = 1; b <= buckets; b++) store<i32>(head + (<usize>b << 2), load<i32>(head + (<usize>b << 2)) + load<i32>(head + (<usize>(b - 1) << 2)));
  // Each entry at its bucket's next free place (head[b] then ends where bucket b ends)…
  for (let a = 0; a < count; a++) {
    const anchor = anchors + (<usize>(a * ANCHOR_SAMPLES) << 1);
    for (let d = 0; d < KEY_STRIDE; d++) {
      const h = hashKeyI16(anchor + (<usize>d << 1));
      const b = head + (bucketOf(h, shift) << 2);
      const e = load<i32>(b);
      store<i32>(b, e + 1);
      const entry = entries + <usize>e * ANCHOR_ENTRY_BYTES;
      store<i32>(entry, h);
      store<i32>(entry, a * KEY_STRIDE + d, 4);
    }
  }
  // …so the starts are those ends moved up one bucket.
  for (let b = buckets; b > 0; b--) store<i32>(head + (<usize>b << 2), load<i32>(head + (<usize>(b - 1) << 2)));
  store<i32>(head, 0);
  return OK;
}

/**
 * Occurrences of the table's anchors in the residual of `state` whose stride window starts inside
 * [from, to]: each where residual[x…x+ANCHOR_SAMPLES) equals anchor a exactly is written to `out` as
 * the i32 pair (x, a). Returns the count, or INDEX_FULL when more than `cap` were found.
 */
export function locateScanAnchors(state: usize, anchors: usize, head: usize, buckets: i32, entries: usize, from: i32, to: i32, out: usize, cap: i32): i32 {
  if (buckets < 16 || (buckets & (buckets - 1)) != 0 || cap < 0) return BAD_ARGUMENT;
  const r = <usize>load<u32>(state, S_RESIDUAL);
  const n = <i32>load<u32>(state, S_LENGTH);
  const shift = 32 - ctz(buckets);
  const last = min(to, n - KEY_SAMPLES);
  let at = from <= 0 ? 0 : ((from + KEY_STRIDE - 1) / KEY_STRIDE) * KEY_STRIDE;
  const p0 = hashPowers(0), p1 = hashPowers(1), p2 = hashPowers(2), p3 = hashPowers(3);
  let count = 0;
  for (; at <= last; at += KEY_STRIDE) {
    const key = windowKey(r + (<usize>at << 2), p0, p1, p2, p3);
    if (key < 0) continue;
    const h = <i32>key;
    const b = head + (bucketOf(h, shift) << 2);
    const end = load<i32>(b, 4);
    for (let e = load<i32>(b); e < end; e++) {
      const entry = entries + <usize>e * ANCHOR_ENTRY_BYTES;
      if (load<i32>(entry) != h) continue;
      const code = load<i32>(entry, 4);
      const a = code / KEY_STRIDE;
      const x = at - code % KEY_STRIDE;
      if (x < 0 || x > n - ANCHOR_SAMPLES) continue;
      const anchor = anchors + (<usize>(a * ANCHOR_SAMPLES) << 1);
      const res = r + (<usize>x << 2);
      let k = 0;
      while (k < ANCHOR_SAMPLES && load<i32>(res + (<usize>k << 2)) == <i32>load<i16>(anchor + (<usize>k << 1))) k++;
      if (k < ANCHOR_SAMPLES) continue;
      if (count >= cap) return INDEX_FULL;
      store<i32>(out + (<usize>count << 3), x);
      store<i32>(out + (<usize>count << 3), a, 4);
      count++;
    }
  }
  return count;
}
