// Aggregates result records into the summary of interfaces.md (per metric: count, skipped, errors, mean, p50, p95, pass rate) and the archive's conversation figures.
import { percentile } from "../analysis/percentile.js";
import { latencyPercentilesMs, type LatencyPercentilesMs } from "../scoring/call-stats.js";
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

/**
 * The archive's conversation figures (additive to interfaces.md), over the ok calls with at least
 * one turn on the timeline: latency percentiles of every response latency of the archive pooled,
 * talk ratio of the summed speaking times, and per call distributions of the other figures.
 */
export interface ConversationSummary {
  /** Ok calls with a timeline (at least one timed turn). */
  calls: number;
  responses: number;
  latency_ms: LatencyPercentilesMs;
  /** Σ agent talk / Σ (agent + user talk) over the calls. */
  talk_ratio: number | null;
  agent_talk_s: number;
  user_talk_s: number;
  overlap_s: { total: number; mean_per_call: number | null; max: number | null };
  user_barge_ins: { total: number; calls_with: number };
  agent_overlaps: { total: number; calls_with: number };
  longest_silence_s: { p50: number | null; p95: number | null; max: number | null };
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

/** The `--summary` JSON: call counts, elapsed time and per-metric statistics. */
export interface RunSummary {
  calls: number;
  ok: number;
  errors: number;
  elapsed_s: number;
  metrics: Record<string, MetricSummary>;
  conversation: ConversationSummary;
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
  private readonly talk = { calls: 0, agent: 0, user: 0, overlap: [] as number[], bargeIns: 0, bargeInCalls: 0, agentOverlaps: 0, agentOverlapCalls: 0, silences: [] as number[] };
  private readonly latencies: number[] = [];
  private readonly words = { calls: 0, substitutions: 0, deletions: 0, insertions: 0, reference: 0, charErrors: 0, charReference: 0 };

  add(record: RecordDigest): void {
    this.calls++;
    if (record.status !== "ok") {
      this.errors++;
      return;
    }
    this.ok++;
    const st = record.stats;
    if (st && st.timed_turns > 0) {
      const t = this.talk;
      t.calls++;
      t.agent += st.agent_talk_s;
      t.user += st.user_talk_s;
      t.overlap.push(st.overlap_s);
      t.bargeIns += st.user_barge_ins;
      if (st.user_barge_ins > 0) t.bargeInCalls++;
      t.agentOverlaps += st.agent_overlaps;
      if (st.agent_overlaps > 0) t.agentOverlapCalls++;
      if (st.longest_silence_s !== null) t.silences.push(st.longest_silence_s);
      for (const l of record.latencies_ms ?? []) this.latencies.push(l);
    }
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
    const out: RunSummary = { calls: this.calls, ok: this.ok, errors: this.errors, elapsed_s: Math.round(elapsedS * 1000) / 1000, metrics, conversation: this.conversation() };
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

  private conversation(): ConversationSummary {
    const t = this.talk;
    const silences = [...t.silences].sort((a, b) => a - b);
    const overlapTotal = t.overlap.reduce((s, x) => s + x, 0);
    return {
      calls: t.calls,
      responses: this.latencies.length,
      latency_ms: latencyPercentilesMs(this.latencies),
      talk_ratio: t.agent + t.user > 0 ? t.agent / (t.agent + t.user) : null,
      agent_talk_s: t.agent,
      user_talk_s: t.user,
      overlap_s: { total: overlapTotal, mean_per_call: t.calls ? overlapTotal / t.calls : null, max: t.overlap.length ? Math.max(...t.overlap) : null },
      user_barge_ins: { total: t.bargeIns, calls_with: t.bargeInCalls },
      agent_overlaps: { total: t.agentOverlaps, calls_with: t.agentOverlapCalls },
      longest_silence_s: { p50: percentile(silences, 50), p95: percentile(silences, 95), max: silences.length ? silences[silences.length - 1] : null },
    };
  }
}
