// Aggregates result records into the summary of interfaces.md (per metric: count, skipped, errors, mean, p50, p95, pass rate).
import { percentile } from "../analysis/percentile.js";
import type { RecordDigest } from "../scoring/record.js";

export interface MetricSummary {
  count: number;
  skipped: number;
  errors: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  pass_rate: number | null;
}

/** Transcript accuracy over the run: counts summed over every call that has transcript pairs. */
export interface TranscriptAccuracySummary {
  calls: number;
  wer: number | null;
  cer: number | null;
  substitutions: number;
  deletions: number;
  insertions: number;
  reference_words: number;
}

export interface RunSummary {
  calls: number;
  ok: number;
  errors: number;
  elapsed_s: number;
  metrics: Record<string, MetricSummary>;
  /** Present when some call had transcript pairs (simulated calls with STT or agent transcripts). */
  transcript_accuracy?: TranscriptAccuracySummary;
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
  private readonly words = { calls: 0, substitutions: 0, deletions: 0, insertions: 0, reference: 0, charErrors: 0, charReference: 0 };

  add(record: RecordDigest): void {
    this.calls++;
    if (record.status !== "ok") {
      this.errors++;
      return;
    }
    this.ok++;
    const ta = record.transcript_accuracy;
    if (ta) {
      const w = this.words;
      w.calls++;
      w.substitutions += ta.substitutions;
      w.deletions += ta.deletions;
      w.insertions += ta.insertions;
      w.reference += ta.reference_words;
      w.charErrors += ta.characters.substitutions + ta.characters.deletions + ta.characters.insertions;
      w.charReference += ta.characters.reference_characters;
    }
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
    const out: RunSummary = { calls: this.calls, ok: this.ok, errors: this.errors, elapsed_s: Math.round(elapsedS * 1000) / 1000, metrics };
    const w = this.words;
    if (w.calls > 0) {
      out.transcript_accuracy = {
        calls: w.calls,
        wer: w.reference ? (w.substitutions + w.deletions + w.insertions) / w.reference : null,
        cer: w.charReference ? w.charErrors / w.charReference : null,
        substitutions: w.substitutions,
        deletions: w.deletions,
        insertions: w.insertions,
        reference_words: w.reference,
      };
    }
    return out;
  }
}
