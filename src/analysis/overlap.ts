// Overlap and talk balance between two parties' speech timelines: overlap seconds, talk-over events, talk ratio, silence share (acoustics.md §2.4, §7.1).
import { totalDuration, type Segment } from "./acoustics-activity.js";

/** Overlap and talk balance of two parties' speech timelines (acoustics.md §2.4, §7.1). */
export interface OverlapStats {
  /** Time both parties speak at once (s). */
  overlap_s: number;
  /**
   * Talk-over events: a segment that starts strictly inside the other party's speech. `a_started`
   * counts a talking over b, `b_started` b over a; simultaneous starts count for neither.
   */
  talk_over_events: { a_started: number; b_started: number };
  /** Share of all speech time per party, a + b = 1; null when nobody speaks. */
  talk_ratio: { a: number | null; b: number | null };
  /** Share of the call (0…durationS) in which neither party speaks; null for a zero duration. */
  silence_share: number | null;
  /** Speech time of each party (s), overlapping segments of one party counted once. */
  a_speech_s: number;
  b_speech_s: number;
}

function normalizeTimeline(segments: ReadonlyArray<readonly [number, number]>, durationS: number): Segment[] {
  const sorted = segments
    .map(([s, e]) => [Math.max(0, s), Math.min(durationS, e)] as Segment)
    .filter(([s, e]) => e > s)
    .sort((x, y) => x[0] - y[0]);
  return mergeTouching(sorted);
}

function mergeTouching(sorted: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

function intersectionLength(a: Segment[], b: Segment[]): number {
  let i = 0, j = 0, total = 0;
  while (i < a.length && j < b.length) {
    total += Math.max(0, Math.min(a[i][1], b[j][1]) - Math.max(a[i][0], b[j][0]));
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return total;
}

function countStartsInside(starters: Segment[], other: Segment[]): number {
  let count = 0, j = 0;
  for (const [s] of starters) {
    while (j < other.length && other[j][1] <= s) j++;
    if (j < other.length && other[j][0] < s && s < other[j][1]) count++;
  }
  return count;
}

/** Overlap seconds, talk-over events by who started them, talk ratio and silence share of two timelines. */
export function measureOverlap(
  a: ReadonlyArray<readonly [number, number]>,
  b: ReadonlyArray<readonly [number, number]>,
  durationS: number,
): OverlapStats {
  if (!(durationS >= 0)) throw new RangeError(`durationS must be ≥ 0, got ${durationS}`);
  const ta = normalizeTimeline(a, durationS);
  const tb = normalizeTimeline(b, durationS);
  const aSpeech = totalDuration(ta), bSpeech = totalDuration(tb);
  const overlap = intersectionLength(ta, tb);
  const both = aSpeech + bSpeech;
  return {
    overlap_s: overlap,
    talk_over_events: { a_started: countStartsInside(ta, tb), b_started: countStartsInside(tb, ta) },
    talk_ratio: { a: both > 0 ? aSpeech / both : null, b: both > 0 ? bSpeech / both : null },
    silence_share: durationS > 0 ? Math.max(0, durationS - (aSpeech + bSpeech - overlap)) / durationS : null,
    a_speech_s: aSpeech,
    b_speech_s: bSpeech,
  };
}
