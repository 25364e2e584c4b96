// Aggregates result records into the summary of interfaces.md (per metric: count, skipped, errors, mean, p50, p95, pass rate).
import { percentile } from "../analysis/percentile.js";
import type { RecordDigest } from "../scoring/record.js";

/** One metric's statistics over a run: count, skipped, errors, mean, p50, p95, pass rate. */
export interface MetricSummary {
  count: number;
  skipped: number;
  errors: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  pass_rate: number | null;
}

/** The `--summary` JSON: call counts, elapsed time and per-metric statistics. */
export interface RunSummary {
  calls: number;
  ok: number;
  errors: number;
  elapsed_s: number;
  metrics: Record<string, MetricSummary>;
}

interface MetricTally {
  scores: number[];
  passed: number;
  judged: number;
  skipped: number;
  errors: number;
}

/** Running totals: only numbers are kept per call, never the records. */
export class SummaryAccumulator {
  private calls = 0;
  private ok = 0;
  private errors = 0;
  private readonly metrics = new Map<string, MetricTally>();

  add(record: RecordDigest): void {
    this.calls++;
    if (record.status !== "ok") {
      this.errors++;
      return;
    }
    this.ok++;
    for (const [name, m] of Object.entries(record.metrics ?? {})) {
      let t = this.metrics.get(name);
      if (!t) this.metrics.set(name, (t = { scores: [], passed: 0, judged: 0, skipped: 0, errors: 0 }));
      if (m.error !== null) t.errors++;
      else if (m.skipped || m.score === null) t.skipped++;
      else {
        t.scores.push(m.score);
        if (m.success !== null) {
          t.judged++;
          if (m.success) t.passed++;
        }
      }
    }
  }

  summary(elapsedS: number): RunSummary {
    const metrics: Record<string, MetricSummary> = {};
    for (const [name, t] of this.metrics) {
      const sorted = [...t.scores].sort((a, b) => a - b);
      metrics[name] = {
        count: sorted.length,
        skipped: t.skipped,
        errors: t.errors,
        mean: sorted.length ? sorted.reduce((s, x) => s + x, 0) / sorted.length : null,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        pass_rate: t.judged ? t.passed / t.judged : null,
      };
    }
    return { calls: this.calls, ok: this.ok, errors: this.errors, elapsed_s: Math.round(elapsedS * 1000) / 1000, metrics };
  }
}
