// The human-readable summary table printed by `score --print-summary`.
import type { RunSummary } from "./summary.js";

const fmt = (x: number | null, digits = 3) => (x === null ? "-" : x.toFixed(digits));
const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);

/** Render the summary as an aligned text table (one row per metric). */
export function formatSummaryTable(s: RunSummary): string {
  const header = ["metric", "count", "mean", "p50", "p95", "pass", "skipped", "errors"];
  const rows = Object.entries(s.metrics).map(([name, m]) => [name, String(m.count), fmt(m.mean), fmt(m.p50), fmt(m.p95), pct(m.pass_rate), String(m.skipped), String(m.errors)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  const rate = s.elapsed_s > 0 ? ` (${(s.calls / s.elapsed_s).toFixed(1)} calls/s)` : "";
  const c = s.conversation;
  const ms = (x: number | null) => (x === null ? "-" : `${x.toFixed(0)} ms`);
  const talk = c && c.calls > 0
    ? [
        `response latency (${c.responses}): p50 ${ms(c.latency_ms.p50)}, p90 ${ms(c.latency_ms.p90)}, p95 ${ms(c.latency_ms.p95)}, p99 ${ms(c.latency_ms.p99)}`,
        `talk ratio (agent) ${pct(c.talk_ratio)} · overlap ${c.overlap_s.total.toFixed(1)} s · user barge-ins ${c.user_barge_ins.total} · agent overlaps ${c.agent_overlaps.total} · longest silence ${fmt(c.longest_silence_s.max, 1)} s`,
        "",
      ]
    : [];
  return [
    `${s.calls} call(s): ${s.ok} scored, ${s.errors} error(s) in ${s.elapsed_s.toFixed(1)} s${rate}`,
    "",
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    ...(s.transcript_accuracy
      ? ["", `transcripts (${s.transcript_accuracy.calls} call(s), ${s.transcript_accuracy.reference_words} reference words): WER ${fmt(s.transcript_accuracy.wer)}, CER ${fmt(s.transcript_accuracy.cer)}`]
      : []),
    "",
    ...talk,
  ].join("\n");
}
