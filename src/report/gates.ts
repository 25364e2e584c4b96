// The CI gates of a run: `--fail-under` on each metric's mean, `--fail-on-threshold` on every scored metric of every call.
import type { RecordDigest } from "../scoring/record.js";
import type { RunSummary } from "./summary.js";

/** One scored metric of one call below its threshold. */
export interface BelowThreshold {
  id: string;
  metric: string;
  score: number;
  threshold: number;
}

/** What `--fail-on-threshold` looks at: how many scored metric results fell below their threshold, the worst first. */
export interface ThresholdReport {
  /** Metric results that were scored (not skipped, no error) and judged against a threshold. */
  judged: number;
  /** Of those, how many were below their threshold. */
  below: number;
  /** The worst offenders (largest shortfall first), at most `WORST_KEPT`. */
  worst: BelowThreshold[];
}

/** Offenders kept for the report (the run never holds more than this many). */
const WORST_KEPT = 10;

/** Running tally of metric results below their thresholds; keeps only the worst few. */
export class ThresholdTally {
  private judged = 0;
  private below = 0;
  private worst: BelowThreshold[] = [];

  add(record: RecordDigest): void {
    if (record.status !== "ok") return;
    for (const [metric, m] of Object.entries(record.metrics ?? {})) {
      if (m.error !== null || m.skipped || m.score === null || m.threshold === null || m.success === null) continue;
      this.judged++;
      if (m.success) continue;
      this.below++;
      this.worst.push({ id: record.id, metric, score: m.score, threshold: m.threshold });
      if (this.worst.length > 2 * WORST_KEPT) this.trim();
    }
  }

  report(): ThresholdReport {
    this.trim();
    return { judged: this.judged, below: this.below, worst: [...this.worst] };
  }

  private trim(): void {
    const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    this.worst.sort((a, b) => b.threshold - b.score - (a.threshold - a.score) || order(a.id, b.id) || order(a.metric, b.metric));
    this.worst.length = Math.min(this.worst.length, WORST_KEPT);
  }
}

/** A metric whose mean is below the `--fail-under` floor. */
export interface GateFailure {
  metric: string;
  mean: number;
}

/**
 * The `--fail-under` gate: the metrics whose mean score is below `floor`. `scored` is false when no
 * metric of any call was scored at all (a gate with nothing scored fails).
 */
export function failUnder(summary: RunSummary, floor: number): { failures: GateFailure[]; scored: boolean } {
  const failures: GateFailure[] = [];
  let scored = false;
  for (const [metric, m] of Object.entries(summary.metrics)) {
    if (m.mean === null) continue;
    scored = true;
    if (m.mean < floor) failures.push({ metric, mean: m.mean });
  }
  return { failures, scored };
}
