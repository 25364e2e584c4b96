// The voxmetrics profile's integrity kernels fed incrementally: block levels, runs of digital silence with their edge levels, and speech-only WADA sums over a float signal pushed piece by piece (acoustics.md §5.1, §5.3).
//
// Each keeps its state in a caller-owned block and sums every quantity in the same sample order as
// its whole-clip twin in integrity.ts, so the results are identical at any cut into pushes: a
// partial block's energy is carried; a zero run's level before it is summed from the samples kept
// from earlier pushes and the current one, its level after it as the samples arrive; WADA sums walk
// sorted ranges with a cursor.
import { BAD_ARGUMENT, OK } from "../../src/dsp/kernel-status";
import { INTEGRITY_HASH_BASE, INTEGRITY_SLOT_MIX, integrityHashPower, integrityLevelDb, integrityMatchLength, integrityMatchStart, integrityQuantize } from "./integrity";

const I32_MAX: i64 = 0x7fffffff;

// ---- Block levels ----
// State (32 bytes): block length (i32), samples in the partial block (i32), its Σx² (f64).
const B_LENGTH: usize = 0;
const B_FILL: usize = 4;
const B_ENERGY: usize = 8;
/** Bytes of the state block of integrityBlockLevelsPush. */
export const INTEGRITY_BLOCK_STATE_BYTES: i32 = 32;

/** Starts block levels of `blockLength` samples at `state` (INTEGRITY_BLOCK_STATE_BYTES bytes). */
export function integrityBlockLevelsInit(state: usize, blockLength: i32): i32 {
  if (blockLength < 1) return BAD_ARGUMENT;
  store<i32>(state + B_LENGTH, blockLength);
  store<i32>(state + B_FILL, 0);
  store<f64>(state + B_ENERGY, 0);
  return OK;
}

/**
 * Feeds `n` f32 samples at `input`: writes the level (f32 dB) of every block completed at `out`
 * (room for (fill + n) / blockLength values). Returns how many were written, or BAD_ARGUMENT.
 */
export function integrityBlockLevelsPush(state: usize, input: usize, n: i32, out: usize): i32 {
  if (n < 0) return BAD_ARGUMENT;
  const length = load<i32>(state + B_LENGTH);
  let fill = load<i32>(state + B_FILL);
  let e = load<f64>(state + B_ENERGY);
  let written = 0;
  for (let i = 0; i < n; i++) {
    const x = <f64>load<f32>(input + (<usize>i << 2));
    e += x * x;
    if (++fill == length) {
      store<f32>(out + (<usize>written << 2), <f32>integrityLevelDb(e, length));
      written++;
      fill = 0;
      e = 0;
    }
  }
  store<i32>(state + B_FILL, fill);
  store<f64>(state + B_ENERGY, e);
  return written;
}

/** Ends the block levels: writes the level of the last, partial block at `out` if there is one; returns 1 or 0. */
export function integrityBlockLevelsFinish(state: usize, out: usize): i32 {
  const fill = load<i32>(state + B_FILL);
  if (fill == 0) return 0;
  store<f32>(out, <f32>integrityLevelDb(load<f64>(state + B_ENERGY), fill));
  store<i32>(state + B_FILL, 0);
  store<f64>(state + B_ENERGY, 0);
  return 1;
}

// ---- WADA sums over sorted ranges ----
// State (48 bytes): ranges pointer, range count, cursor, samples seen (i32); count, Σ|x|, Σ ln|x| (f64).
const W_RANGES: usize = 0;
const W_COUNT: usize = 4;
const W_CURSOR: usize = 8;
const W_SEEN: usize = 12;
const W_SUMS: usize = 16;
/** Bytes of the state block of integrityWadaPush. */
export const INTEGRITY_WADA_STATE_BYTES: i32 = 48;

/**
 * Starts WADA sums over the `rangeCount` sample ranges [start, end) (i32 pairs at `ranges`, kept by
 * the caller until the end), which must be in increasing order without overlap (touching is fine),
 * as the speech segments are. Returns OK or BAD_ARGUMENT.
 */
export function integrityWadaInit(state: usize, ranges: usize, rangeCount: i32): i32 {
  if (rangeCount < 0) return BAD_ARGUMENT;
  let previousEnd = 0;
  for (let r = 0; r < rangeCount; r++) {
    const start = max(0, load<i32>(ranges + (<usize>(2 * r) << 2)));
    const end = load<i32>(ranges + (<usize>(2 * r + 1) << 2));
    if (end > start) {
      if (start < previousEnd) return BAD_ARGUMENT;
      previousEnd = end;
    }
  }
  store<i32>(state + W_RANGES, <i32>ranges);
  store<i32>(state + W_COUNT, rangeCount);
  store<i32>(state + W_CURSOR, 0);
  store<i32>(state + W_SEEN, 0);
  memory.fill(state + W_SUMS, 0, 24);
  return OK;
}

/** Feeds the next `n` f32 samples: those inside the ranges, exact zeros left out, join the sums. Returns OK or BAD_ARGUMENT. */
export function integrityWadaPush(state: usize, input: usize, n: i32): i32 {
  const seen = load<i32>(state + W_SEEN);
  if (n < 0 || <i64>seen + <i64>n > I32_MAX) return BAD_ARGUMENT;
  const ranges = <usize>load<i32>(state + W_RANGES);
  const rangeCount = load<i32>(state + W_COUNT);
  const limit = seen + n;
  let cursor = load<i32>(state + W_CURSOR);
  let count = load<f64>(state + W_SUMS);
  let sumAbs = load<f64>(state + W_SUMS + 8);
  let sumLn = load<f64>(state + W_SUMS + 16);
  while (cursor < rangeCount) {
    const start = max(seen, load<i32>(ranges + (<usize>(2 * cursor) << 2)));
    const end = load<i32>(ranges + (<usize>(2 * cursor + 1) << 2));
    for (let i = start; i < min(end, limit); i++) {
      const a = Math.abs(<f64>load<f32>(input + (<usize>(i - seen) << 2)));
      if (a == 0) continue;
      count += 1;
      sumAbs += a;
      sumLn += Math.log(a);
    }
    if (end > limit) break;
    cursor++;
  }
  store<i32>(state + W_CURSOR, cursor);
  store<i32>(state + W_SEEN, limit);
  store<f64>(state + W_SUMS, count);
  store<f64>(state + W_SUMS + 8, sumAbs);
  store<f64>(state + W_SUMS + 16, sumLn);
  return OK;
}

/** Writes the 3 f64 sums (samples counted, Σ|x|, Σ ln|x|) at `out`, as integrityWadaSums does. */
export function integrityWadaFinish(state: usize, out: usize): i32 {
  memory.copy(out, state + W_SUMS, 24);
  return OK;
}

// ---- Runs of digital silence ----
// State: parameters and counters (i32), the level before the current run (f64), then the last
// `edgeLength` samples (f32, oldest first) and the runs still summing the samples after them
// (16 bytes each: run index i32, samples still wanted i32, Σx² so far f64).
const Z_MIN_RUN: usize = 0;
const Z_EDGE: usize = 4;
const Z_CAPACITY: usize = 8;
const Z_COUNT: usize = 12;
const Z_SEEN: usize = 16;
const Z_RUN_START: usize = 20;
const Z_HISTORY_FILL: usize = 24;
const Z_PENDING: usize = 28;
const Z_PENDING_MAX: usize = 32;
/** Global index of the run at the start of the output regions (runs before it were drained). */
const Z_BASE: usize = 36;
const Z_BEFORE: usize = 40;
const Z_HEADER: i32 = 48;

/** Runs whose level after them can be summing at once: each takes ≥ minRun + 1 of the edgeLength samples after the oldest one. */
@inline function pendingMax(minRun: i32, edgeLength: i32): i32 {
  return edgeLength / (minRun + 1) + 2;
}

@inline function historyBytes(edgeLength: i32): i64 {
  return ((<i64>edgeLength << 2) + 15) & ~(<i64>15);
}

/** Bytes of the state block of integrityZeroRunsPush for these parameters, or BAD_ARGUMENT. */
export function integrityZeroRunsStateBytes(minRun: i32, edgeLength: i32): i32 {
  if (minRun < 1 || edgeLength < 1) return BAD_ARGUMENT;
  const bytes = <i64>Z_HEADER + historyBytes(edgeLength) + (<i64>pendingMax(minRun, edgeLength) << 4);
  return bytes > I32_MAX ? BAD_ARGUMENT : <i32>bytes;
}

/**
 * Starts the search for runs of at least `minRun` exact zeros (integrityZeroRuns) at `state`; at most
 * `capacity` runs are reported, as the whole-clip kernel does. Returns OK or BAD_ARGUMENT.
 */
export function integrityZeroRunsInit(state: usize, minRun: i32, edgeLength: i32, capacity: i32): i32 {
  if (integrityZeroRunsStateBytes(minRun, edgeLength) < 0 || capacity < 0) return BAD_ARGUMENT;
  memory.fill(state, 0, <usize>Z_HEADER);
  store<i32>(state + Z_MIN_RUN, minRun);
  store<i32>(state + Z_EDGE, edgeLength);
  store<i32>(state + Z_CAPACITY, capacity);
  store<i32>(state + Z_RUN_START, -1);
  store<i32>(state + Z_PENDING_MAX, pendingMax(minRun, edgeLength));
  return OK;
}

@inline function historyOf(state: usize): usize {
  return state + <usize>Z_HEADER;
}

@inline function pendingOf(state: usize): usize {
  return state + <usize>Z_HEADER + <usize>historyBytes(load<i32>(state + Z_EDGE));
}

/** Σx² of the min(edge, seen + i) samples before chunk index `i`, in sample order: the kept history first, then the chunk. */
function energyBefore(state: usize, input: usize, i: i32, seen: i32): f64 {
  const edge = load<i32>(state + Z_EDGE);
  const want = <i32>min<i64>(<i64>edge, <i64>seen + <i64>i);
  const fromChunk = min(i, want);
  const fromHistory = want - fromChunk;
  const history = historyOf(state);
  const fill = load<i32>(state + Z_HISTORY_FILL);
  let e: f64 = 0;
  for (let h = fill - fromHistory; h < fill; h++) {
    const x = <f64>load<f32>(history + (<usize>h << 2));
    e += x * x;
  }
  for (let j = i - fromChunk; j < i; j++) {
    const x = <f64>load<f32>(input + (<usize>j << 2));
    e += x * x;
  }
  return e;
}

/** Records the run [start, end) (level before it known) and starts summing the level after it. */
function recordRun(state: usize, start: i32, end: i32, outRuns: usize, outEdges: usize): void {
  const count = load<i32>(state + Z_COUNT);
  const at = count - load<i32>(state + Z_BASE);
  store<i32>(outRuns + (<usize>(2 * at) << 2), start);
  store<i32>(outRuns + (<usize>(2 * at + 1) << 2), end);
  store<f32>(outEdges + (<usize>(2 * at) << 2), <f32>integrityLevelDb(load<f64>(state + Z_BEFORE), <i32>min<i64>(<i64>load<i32>(state + Z_EDGE), <i64>start)));
  const pending = load<i32>(state + Z_PENDING);
  const p = pendingOf(state) + (<usize>pending << 4);
  store<i32>(p, count);
  store<i32>(p, load<i32>(state + Z_EDGE), 4);
  store<f64>(p, 0, 8);
  store<i32>(state + Z_PENDING, pending + 1);
  store<i32>(state + Z_COUNT, count + 1);
}

/** Sample `x` joins every pending level-after sum; sums that are complete are written and dropped. */
@inline function feedPending(state: usize, x: f64, outEdges: usize): void {
  const pending = load<i32>(state + Z_PENDING);
  if (pending == 0) return;
  const first = load<i32>(state + Z_BASE);
  const base = pendingOf(state);
  const edge = load<i32>(state + Z_EDGE);
  let kept = 0;
  for (let q = 0; q < pending; q++) {
    const p = base + (<usize>q << 4);
    const run = load<i32>(p);
    const wanted = load<i32>(p, 4) - 1;
    const e = load<f64>(p, 8) + x * x;
    if (wanted == 0) {
      store<f32>(outEdges + (<usize>(2 * (run - first) + 1) << 2), <f32>integrityLevelDb(e, edge));
      continue;
    }
    const to = base + (<usize>kept << 4);
    store<i32>(to, run);
    store<i32>(to, wanted, 4);
    store<f64>(to, e, 8);
    kept++;
  }
  store<i32>(state + Z_PENDING, kept);
}

/**
 * Feeds `n` f32 samples at `input` to the zero-run search: each run of at least minRun exact zeros
 * is written, when it ends, as [start, end) (i32 pair) at `outRuns` + 8·k, its level before (f32
 * dB) at `outEdges` + 8·k, and its level after at `outEdges` + 8·k + 4 once edgeLength more samples
 * have come (or at finish), k counting from the first run not yet drained. The regions must hold
 * the runs held before the push plus n / (minRun + 1) + 1. Returns the runs held, or BAD_ARGUMENT.
 */
export function integrityZeroRunsPush(state: usize, input: usize, n: i32, outRuns: usize, outEdges: usize): i32 {
  const seen = load<i32>(state + Z_SEEN);
  if (n < 0 || <i64>seen + <i64>n > I32_MAX) return BAD_ARGUMENT;
  const minRun = load<i32>(state + Z_MIN_RUN);
  const capacity = load<i32>(state + Z_CAPACITY);
  let runStart = load<i32>(state + Z_RUN_START);
  for (let i = 0; i < n; i++) {
    const v = load<f32>(input + (<usize>i << 2));
    if (v != 0 && runStart >= 0) {
      // This sample ends the run and is the first of the samples after it.
      if (seen + i - runStart >= minRun) recordRun(state, runStart, seen + i, outRuns, outEdges);
      runStart = -1;
    }
    feedPending(state, <f64>v, outEdges);
    if (v == 0 && runStart < 0 && load<i32>(state + Z_COUNT) < capacity) {
      runStart = seen + i;
      store<f64>(state + Z_BEFORE, energyBefore(state, input, i, seen));
    }
  }
  store<i32>(state + Z_RUN_START, runStart);
  keepHistory(state, input, n);
  store<i32>(state + Z_SEEN, seen + n);
  return load<i32>(state + Z_COUNT) - load<i32>(state + Z_BASE);
}

/** Keeps the last edgeLength samples seen (oldest first). */
function keepHistory(state: usize, input: usize, n: i32): void {
  const edge = load<i32>(state + Z_EDGE);
  const history = historyOf(state);
  const fill = load<i32>(state + Z_HISTORY_FILL);
  if (n >= edge) {
    memory.copy(history, input + (<usize>(n - edge) << 2), <usize>edge << 2);
    store<i32>(state + Z_HISTORY_FILL, edge);
    return;
  }
  const keep = min(fill, edge - n);
  memory.copy(history, history + (<usize>(fill - keep) << 2), <usize>keep << 2);
  memory.copy(history + (<usize>keep << 2), input, <usize>n << 2);
  store<i32>(state + Z_HISTORY_FILL, keep + n);
}

/**
 * Ends the search: a run reaching the end is written (level after: −200 dB, nothing follows), and
 * the runs still summing their level after get the level of the samples that came. Returns the
 * runs held (all complete now).
 */
export function integrityZeroRunsFinish(state: usize, outRuns: usize, outEdges: usize): i32 {
  const seen = load<i32>(state + Z_SEEN);
  const runStart = load<i32>(state + Z_RUN_START);
  if (runStart >= 0 && seen - runStart >= load<i32>(state + Z_MIN_RUN)) {
    recordRun(state, runStart, seen, outRuns, outEdges);
  }
  store<i32>(state + Z_RUN_START, -1);
  const edge = load<i32>(state + Z_EDGE);
  const first = load<i32>(state + Z_BASE);
  const base = pendingOf(state);
  const pending = load<i32>(state + Z_PENDING);
  for (let q = 0; q < pending; q++) {
    const p = base + (<usize>q << 4);
    store<f32>(outEdges + (<usize>(2 * (load<i32>(p) - first) + 1) << 2), <f32>integrityLevelDb(load<f64>(p, 8), edge - load<i32>(p, 4)));
  }
  store<i32>(state + Z_PENDING, 0);
  return load<i32>(state + Z_COUNT) - first;
}

/**
 * The runs at the start of the output regions that are complete (level after known): returns how
 * many; the caller reads them, then calls integrityZeroRunsDrain to make room. Runs still summing
 * their level after stay.
 */
export function integrityZeroRunsReady(state: usize): i32 {
  const first = load<i32>(state + Z_BASE);
  const pending = load<i32>(state + Z_PENDING);
  const upTo = pending > 0 ? load<i32>(pendingOf(state)) : load<i32>(state + Z_COUNT);
  return upTo - first;
}

/** Drops the `ready` complete runs from the front of the output regions, moving the rest to the front. Returns the runs left there. */
export function integrityZeroRunsDrain(state: usize, outRuns: usize, outEdges: usize, ready: i32): i32 {
  const first = load<i32>(state + Z_BASE);
  const held = load<i32>(state + Z_COUNT) - first;
  if (ready < 0 || ready > held) return BAD_ARGUMENT;
  memory.copy(outRuns, outRuns + (<usize>ready << 3), <usize>(held - ready) << 3);
  memory.copy(outEdges, outEdges + (<usize>ready << 3), <usize>(held - ready) << 3);
  store<i32>(state + Z_BASE, first + ready);
  return held - ready;
}

// ---- Repeated segments at any offset (integrityRepeatScan), with bounded look-back ----
// The scan runs position by position as samples arrive. A hash hit is verified block by block as
// the blocks come in (the scan waits at the end of the part verified so far: positions inside a
// match are never examined), and looks back at most 2·maxLag samples (matchStart). The state keeps
// the samples from 2·maxLag + 2·block before the scan position on: window + 2·maxLag + 3·block +
// the largest push.
const R_WINDOW: usize = 0;
const R_GATE: usize = 4;
const R_MIN_LAG: usize = 8;
const R_MAX_LAG: usize = 12;
const R_BLOCK: usize = 16;
const R_TABLE_BITS: usize = 20;
const R_CAPACITY: usize = 24;
const R_COUNT: usize = 28;
const R_SEEN: usize = 32;
const R_BUF_START: usize = 36;
const R_BUF_CAP: usize = 40;
const R_P: usize = 44;
/** 0: the first window is not hashed yet; 1: the body at P is to run; 2: P is done, rolling to P + 1 waits for a sample. */
const R_STAGE: usize = 48;
const R_H: usize = 52;
const R_MASS: usize = 56;
const R_TOP: usize = 60;
const R_SKIP: usize = 64;
const R_LAST_END: usize = 68;
const R_PENDING: usize = 72;
const R_HIT: usize = 76;
const R_LAG: usize = 80;
const R_FORWARD: usize = 84;
const R_MATCH_START: usize = 88;
const R_TABLE: usize = 92;
const R_OUT: usize = 96;
const R_SCALE: usize = 100;
const R_RATIO: usize = 104;
const R_FRACTION: usize = 112;
const R_HEADER: i32 = 128;

@inline function repeatKeep(window: i32, maxLag: i32, blockLength: i32): i64 {
  return <i64>window + 2 * <i64>maxLag + 3 * <i64>blockLength + 16;
}

/** Bytes of the state block of integrityRepeatPush for pushes of at most `maxPush` samples, or BAD_ARGUMENT. */
export function integrityRepeatStateBytes(window: i32, maxLag: i32, blockLength: i32, maxPush: i32): i32 {
  if (window < 1 || maxLag < 1 || blockLength < 1 || maxPush < 1) return BAD_ARGUMENT;
  const bytes = <i64>R_HEADER + ((repeatKeep(window, maxLag, blockLength) + <i64>maxPush) << 2);
  return bytes > I32_MAX ? BAD_ARGUMENT : <i32>bytes;
}

/**
 * Starts the repeated-segment scan of integrityRepeatScan (same parameters; `table` holds
 * integrityRepeatTableSize(tableBits) bytes) for pushes of at most `maxPush` samples. Returns OK or BAD_ARGUMENT.
 */
export function integrityRepeatInit(
  state: usize, maxPush: i32, window: i32, scale: f32, gate: i32, minLag: i32, maxLag: i32,
  blockLength: i32, matchRatio: f64, minRunFraction: f64, table: usize, tableBits: i32, capacity: i32,
): i32 {
  if (window < 1 || minLag < 1 || maxLag < minLag || blockLength < 1 || tableBits < 1 || tableBits > 24 || capacity < 0) return BAD_ARGUMENT;
  if (integrityRepeatStateBytes(window, maxLag, blockLength, maxPush) < 0) return BAD_ARGUMENT;
  memory.fill(state, 0, <usize>R_HEADER);
  store<i32>(state + R_WINDOW, window);
  store<i32>(state + R_GATE, gate);
  store<i32>(state + R_MIN_LAG, minLag);
  store<i32>(state + R_MAX_LAG, maxLag);
  store<i32>(state + R_BLOCK, blockLength);
  store<i32>(state + R_TABLE_BITS, tableBits);
  store<i32>(state + R_CAPACITY, capacity);
  store<i32>(state + R_BUF_CAP, <i32>(repeatKeep(window, maxLag, blockLength) + <i64>maxPush));
  store<i32>(state + R_TOP, integrityHashPower(window - 1));
  store<i32>(state + R_TABLE, <i32>table);
  store<f32>(state + R_SCALE, scale);
  store<f64>(state + R_RATIO, matchRatio);
  store<f64>(state + R_FRACTION, minRunFraction);
  const slots = 1 << tableBits;
  for (let s = 0; s < slots; s++) {
    store<i32>(table + (<usize>(2 * s) << 2), 0);
    store<i32>(table + (<usize>(2 * s + 1) << 2), -1);
  }
  return OK;
}

/** The address sample `i` (absolute) would have if the whole signal were in memory: valid for the samples kept. */
@inline function virtualInput(state: usize): usize {
  return state + <usize>R_HEADER - (<usize>load<i32>(state + R_BUF_START) << 2);
}

/**
 * Feeds `n` f32 samples at `input` (n ≤ maxPush): the scan advances as far as the samples allow.
 * Every repeat found is written as (start, lag, run) i32 triples at `out`, counting from 0 at each
 * push (room for n / max(1, floor(minLag·minRunFraction)) + 2 of them). Returns how many, or BAD_ARGUMENT.
 */
export function integrityRepeatPush(state: usize, input: usize, n: i32, out: usize): i32 {
  const seen = load<i32>(state + R_SEEN);
  if (n < 0 || <i64>seen + <i64>n > I32_MAX) return BAD_ARGUMENT;
  const bufStart = load<i32>(state + R_BUF_START);
  const cap = load<i32>(state + R_BUF_CAP);
  const buf = state + <usize>R_HEADER;
  if (seen + n - bufStart > cap) {
    // Drop what no later step reads: everything before 2·maxLag + 2·block ahead of the scan position.
    const keepFrom = max(bufStart, min(seen, load<i32>(state + R_P) - 2 * load<i32>(state + R_MAX_LAG) - 2 * load<i32>(state + R_BLOCK)));
    memory.copy(buf, buf + (<usize>(keepFrom - bufStart) << 2), <usize>(seen - keepFrom) << 2);
    store<i32>(state + R_BUF_START, keepFrom);
    if (seen + n - keepFrom > cap) return BAD_ARGUMENT;
  }
  memory.copy(virtualInput(state) + (<usize>seen << 2), input, <usize>n << 2);
  store<i32>(state + R_SEEN, seen + n);
  store<i32>(state + R_OUT, 0);
  advanceRepeats(state, out, false);
  return load<i32>(state + R_OUT);
}

/** Ends the scan: a match still being verified ends at the last whole block, and the scan runs to the last window. Returns the repeats written at `out`. */
export function integrityRepeatFinish(state: usize, out: usize): i32 {
  store<i32>(state + R_OUT, 0);
  advanceRepeats(state, out, true);
  return load<i32>(state + R_OUT);
}

function advanceRepeats(state: usize, out: usize, finishing: bool): void {
  const window = load<i32>(state + R_WINDOW);
  const blockLength = load<i32>(state + R_BLOCK);
  const matchRatio = load<f64>(state + R_RATIO);
  const scale = load<f32>(state + R_SCALE);
  const seen = load<i32>(state + R_SEEN);
  const input = virtualInput(state);
  while (true) {
    let stage = load<i32>(state + R_STAGE);
    if (stage == 0) {
      if (seen < window) return;
      let h: i32 = 0, mass: i32 = 0;
      for (let j = 0; j < window; j++) {
        const q = integrityQuantize(input, j, scale);
        h = h * INTEGRITY_HASH_BASE + q;
        mass += abs(q);
      }
      store<i32>(state + R_H, h);
      store<i32>(state + R_MASS, mass);
      store<i32>(state + R_STAGE, 1);
      stage = 1;
    }
    if (load<i32>(state + R_PENDING) != 0) {
      const hit = load<i32>(state + R_HIT);
      const lag = load<i32>(state + R_LAG);
      let forward = load<i32>(state + R_FORWARD);
      forward += integrityMatchLength(input, seen, hit + forward, lag, blockLength, matchRatio);
      store<i32>(state + R_FORWARD, forward);
      if (finishing || hit + forward + blockLength <= seen) {
        const start = load<i32>(state + R_MATCH_START);
        const run = hit + forward - start;
        if (<f64>run >= load<f64>(state + R_FRACTION) * <f64>lag) {
          const written = load<i32>(state + R_OUT);
          const o = out + (<usize>(3 * written) << 2);
          store<i32>(o, start);
          store<i32>(o + 4, lag);
          store<i32>(o + 8, run);
          store<i32>(state + R_OUT, written + 1);
          store<i32>(state + R_COUNT, load<i32>(state + R_COUNT) + 1);
          store<i32>(state + R_LAST_END, start + run);
        }
        store<i32>(state + R_SKIP, hit + max(forward, 1));
        store<i32>(state + R_PENDING, 0);
      }
    }
    const p = load<i32>(state + R_P);
    if (stage == 1) {
      if (load<i32>(state + R_PENDING) != 0 && p >= load<i32>(state + R_HIT) + load<i32>(state + R_FORWARD)) return;
      repeatBody(state, input, p);
      store<i32>(state + R_STAGE, 2);
      continue;
    }
    // Stage 2: roll the hash to p + 1, which needs sample p + window.
    if (p + window >= seen) return;
    const qOut = integrityQuantize(input, p, scale);
    const qIn = integrityQuantize(input, p + window, scale);
    store<i32>(state + R_H, (load<i32>(state + R_H) - qOut * load<i32>(state + R_TOP)) * INTEGRITY_HASH_BASE + qIn);
    store<i32>(state + R_MASS, load<i32>(state + R_MASS) + abs(qIn) - abs(qOut));
    store<i32>(state + R_P, p + 1);
    store<i32>(state + R_STAGE, 1);
  }
}

/** What integrityRepeatScan does at position `p`: examine a hash hit (no match being verified), then remember p under its hash. */
@inline function repeatBody(state: usize, input: usize, p: i32): void {
  const h = load<i32>(state + R_H);
  if (load<i32>(state + R_MASS) < load<i32>(state + R_GATE)) return;
  const tableBits = load<i32>(state + R_TABLE_BITS);
  const slot = <i32>((<u32>h * INTEGRITY_SLOT_MIX) >>> (32 - tableBits));
  const at = <usize>load<i32>(state + R_TABLE) + (<usize>(2 * slot) << 2);
  const prev = load<i32>(at + 4);
  if (load<i32>(state + R_PENDING) == 0 && p >= load<i32>(state + R_SKIP) && prev >= 0 && load<i32>(at) == h && load<i32>(state + R_COUNT) < load<i32>(state + R_CAPACITY)) {
    const lag = p - prev;
    if (lag >= load<i32>(state + R_MIN_LAG) && lag <= load<i32>(state + R_MAX_LAG)) {
      store<i32>(state + R_MATCH_START, integrityMatchStart(input, p, lag, load<i32>(state + R_LAST_END), load<i32>(state + R_BLOCK), load<f64>(state + R_RATIO)));
      store<i32>(state + R_HIT, p);
      store<i32>(state + R_LAG, lag);
      store<i32>(state + R_FORWARD, 0);
      store<i32>(state + R_PENDING, 1);
    }
  }
  store<i32>(at, h);
  store<i32>(at + 4, p);
}
