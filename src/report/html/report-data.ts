// The data an HTML report embeds: only what its views show, compacted (columns, string tables, key sets, rounded numbers), built from a results JSONL streamed line by line.
import { createReadStream, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { VoxError } from "../../model/errors.js";
import { digestRecord, isResultRecord, statsOfTurnRecords, type ResultRecord, type TurnRecord } from "../../scoring/index.js";
import { SummaryAccumulator, type ConversationSummary } from "../summary.js";

/** The run the results came from, as far as it is known (a bare results file knows less). */
export interface ReportRunInfo {
  title?: string;
  /** The inputs that were scored (score --html); a report of a results file names only the file. */
  inputs?: string[];
  /** Options of the run, shown as given. */
  options?: Record<string, unknown>;
  /** The --fail-under floor: metrics whose mean is below it are the failing ones. */
  failUnder?: number | null;
  elapsedS?: number | null;
  /** When the run happened (ISO); default: the results file's modification time. */
  time?: string;
}

/** One turn's playable audio: a path relative to the report (or a data: URI when embedded). */
export type TurnAudioLocator = (record: ResultRecord) => Map<number, string> | null;

export interface ReportDataOptions {
  run?: ReportRunInfo;
  version: string;
  /** Finds each turn's audio for the play buttons; null: no play buttons. */
  audio?: TurnAudioLocator | null;
}

/** Per metric: the summary figures, its threshold and whether it fails the gate. */
export interface ReportMetric {
  name: string;
  threshold: number | null;
  count: number;
  skipped: number;
  errors: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  pass_rate: number | null;
  failed: number;
  /** Mean below --fail-under (only with a floor). */
  gate_fail: boolean;
}

/** The embedded data (format version 1); see docs/html-report.md for the fields. */
export interface ReportData {
  v: 1;
  header: {
    title: string;
    results: string;
    generated_at: string;
    run_time: string | null;
    version: string;
    inputs: string[];
    options: Record<string, unknown>;
    fail_under: number | null;
    calls: number;
    ok: number;
    errors: number;
    elapsed_s: number | null;
  };
  metrics: ReportMetric[];
  conversation: ConversationSummary;
  /** String table: formats, paths, reasons, messages. */
  S: string[];
  /** Key sets of breakdown entries: [label, ...keys]. */
  K: string[][];
  calls: {
    id: string[];
    name: (string | null)[];
    /** Index into S. */
    format: number[];
    path: number[];
    /** 1 for an error record. */
    err: number[];
    /** Per metric (in `metrics` order), per call: the score (null when skipped, errored or absent). */
    score: (number | null)[][];
    /** Per metric, per call: 1 pass, 0 fail, 2 skipped, 3 metric error, null absent. */
    outcome: (number | null)[][];
    /** Per call: [p50, p90, p95, p99 latency ms, talk ratio, overlap s, user barge-ins, agent overlaps, longest silence s, timed turns] or null. */
    stats: (Array<number | null> | null)[];
  };
  /** Every response latency of the archive (ms, to the millisecond). */
  latencies: number[];
  /** Error records: [call index, code, message (S index)]. */
  errors: Array<[number, string, number]>;
  /** Per call (null for error records), what its view shows. */
  detail: (CallDetail | null)[];
}

/** One call's view. Roles: 0 user, 1 assistant. Transition kinds: 0 gap, 1 user barge-in, 2 agent overlap. */
export interface CallDetail {
  /** Turns: [index, role, start | null, duration | null]. */
  t: Array<[number, number, number | null, number | null]>;
  /** Transitions: [from turn, to turn, kind, gap s]. */
  tr: Array<[number, number, number, number]>;
  /** Per metric: the reason (S index) or -1. */
  r: number[];
  /** Breakdown entries: [metric, key set, turn index (−1: the call), ...values]. */
  b: unknown[][];
  /** Per turn index: [integrated LUFS, true peak dBTP, WADA SNR dB, speech ratio, pauses, longest pause s, pauses/min, syllables/s, articulation rate, words/min, pitch median Hz, bandwidth]. */
  a?: Record<number, unknown[]>;
  /** Per turn index: speech segments as flat [start, end, start, end, …] (s, clip-relative). */
  g?: Record<number, number[]>;
  /** Per turn index: the measurement error. */
  e?: Record<number, string>;
  /** Per turn index: the audio to play. */
  u?: Record<number, string>;
}

const TRANSITION_KINDS = { gap: 0, user_barge_in: 1, agent_overlap: 2 } as const;
/** Metrics whose breakdown `turns[].turn` is the 1-based assistant ordinal (voice-metrics.md §5.1–5.2); all others use the turn index. */
const ORDINAL_TURN_METRICS = new Set(["Voice Naturalness", "Speech Intelligibility"]);

/** Times on the call clock and latencies: to the millisecond (seconds to 3 decimals); non-finite to null. */
function rn(x: unknown): number | null {
  if (typeof x !== "number" || !Number.isFinite(x)) return null;
  return Math.round(x * 1e3) / 1e3;
}

/** Scores: 4 decimals (the table shows 3). */
function rs(x: unknown): number | null {
  if (typeof x !== "number" || !Number.isFinite(x)) return null;
  return Math.round(x * 1e4) / 1e4;
}

/** Measurements and breakdown values: 4 significant digits (what the views show). */
function r4(x: unknown): number | null {
  if (typeof x !== "number" || !Number.isFinite(x)) return null;
  return Number.isInteger(x) ? x : Number(x.toPrecision(4));
}

/** Acoustics figures: 3 significant digits (the view shows at most that: -21.5 LUFS, 134 Hz, 75.8 %). */
function r3(x: unknown): number | null {
  if (typeof x !== "number" || !Number.isFinite(x)) return null;
  return Number.isInteger(x) ? x : Number(x.toPrecision(3));
}

/** Speech segments: to 10 ms (the activity detector's frame). */
function r2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Breakdown keys that name the turn an entry belongs to: carried by the entry's turn slot, not repeated. */
const TURN_KEYS = new Set(["turn", "from_turn", "to_turn"]);

function compactValue(v: unknown): unknown {
  if (typeof v === "number") return r4(v);
  if (Array.isArray(v)) return v.map(compactValue);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, compactValue(x)]));
  return v;
}

class Interner {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

/** Builds the report data one record at a time; the records themselves are not kept. */
export class ReportDataBuilder {
  private readonly strings = new Interner();
  private readonly keySets: string[][] = [];
  private readonly keySetIndex = new Map<string, number>();
  private readonly metricIndex = new Map<string, number>();
  private readonly metricNames: string[] = [];
  private readonly thresholds: (number | null)[] = [];
  private readonly totals = new SummaryAccumulator();
  private readonly calls: ReportData["calls"] = { id: [], name: [], format: [], path: [], err: [], score: [], outcome: [], stats: [] };
  private readonly latencies: number[] = [];
  private readonly errors: ReportData["errors"] = [];
  private readonly detail: (CallDetail | null)[] = [];

  constructor(private readonly options: ReportDataOptions) {}

  private metric(name: string, threshold: number | null): number {
    let i = this.metricIndex.get(name);
    if (i === undefined) {
      i = this.metricNames.length;
      this.metricIndex.set(name, i);
      this.metricNames.push(name);
      this.thresholds.push(threshold);
      // Calls seen before this metric first appeared have no result for it.
      this.calls.score.push(new Array(this.calls.id.length).fill(null));
      this.calls.outcome.push(new Array(this.calls.id.length).fill(null));
    }
    return i;
  }

  private keySet(label: string, keys: string[]): number {
    const sig = `${label}\u0000${keys.join("\u0000")}`;
    let i = this.keySetIndex.get(sig);
    if (i === undefined) {
      i = this.keySets.length;
      this.keySets.push([label, ...keys]);
      this.keySetIndex.set(sig, i);
    }
    return i;
  }

  add(record: ResultRecord): void {
    const k = this.calls.id.length;
    const digest = digestRecord(record);
    this.totals.add(digest);
    this.calls.id.push(record.id);
    this.calls.name.push(record.name ?? null);
    this.calls.format.push(this.strings.of(record.source?.format ?? "unknown"));
    this.calls.path.push(this.strings.of(record.source?.path ?? ""));
    this.calls.err.push(record.status === "ok" ? 0 : 1);
    for (const col of this.calls.score) col.push(null);
    for (const col of this.calls.outcome) col.push(null);
    if (record.status !== "ok") {
      this.errors.push([k, record.error?.code ?? "ERROR", this.strings.of(record.error?.message ?? "(no message)")]);
      this.calls.stats.push(null);
      this.detail.push(null);
      return;
    }
    const reasons: number[] = [];
    for (const [name, m] of Object.entries(record.metrics ?? {})) {
      const mi = this.metric(name, m.threshold);
      const outcome = m.error !== null ? 3 : m.skipped || m.score === null ? 2 : m.success === false ? 0 : m.success === true ? 1 : null;
      this.calls.score[mi][k] = outcome === 0 || outcome === 1 || outcome === null ? rs(m.score) : null;
      this.calls.outcome[mi][k] = outcome;
      reasons[mi] = this.strings.of(m.error !== null ? `Error: ${m.error}` : (m.reason ?? ""));
    }
    const turns = Array.isArray(record.turns) ? record.turns : [];
    const { stats, transitions, latenciesMs } = statsOfTurnRecords(turns);
    for (const l of latenciesMs) this.latencies.push(Math.round(l));
    const s = stats;
    this.calls.stats.push(
      s.timed_turns > 0
        ? [r4(s.latency_ms.p50), r4(s.latency_ms.p90), r4(s.latency_ms.p95), r4(s.latency_ms.p99), r4(s.talk_ratio), rn(s.overlap_s), s.user_barge_ins, s.agent_overlaps, rn(s.longest_silence_s), s.timed_turns]
        : null,
    );
    const detail: CallDetail = {
      t: turns.map((t) => [t.index, t.role === "assistant" ? 1 : 0, rn(t.start_time), rn(t.duration)]),
      tr: transitions.map((t) => [t.from_turn, t.to_turn, TRANSITION_KINDS[t.kind], rn(t.gap_seconds)!]),
      r: this.metricNames.map((_, i) => reasons[i] ?? -1),
      b: [],
    };
    this.addBreakdowns(record, turns, detail);
    this.addTurnExtras(turns, detail);
    const audio = this.options.audio?.(record);
    if (audio && audio.size > 0) detail.u = Object.fromEntries(audio);
    this.detail.push(detail);
  }

  /** Breakdown entries tied to a turn (lists of objects with `turn` / `to_turn`) and the metric's other scalars. */
  private addBreakdowns(record: ResultRecord, turns: TurnRecord[], detail: CallDetail): void {
    // Assistant ordinal → turn index, only when every turn before the last is in the record (a turn without audio leaves a gap whose role is unknown).
    const contiguous = turns.every((t, i) => t.index === i);
    const ordinals = contiguous ? turns.filter((t) => t.role === "assistant").map((t) => t.index) : null;
    for (const [name, m] of Object.entries(record.metrics ?? {})) {
      if (!m.score_breakdown) continue;
      const mi = this.metricIndex.get(name)!;
      const walk = (obj: Record<string, unknown>, label: string) => {
        const scalars: [string, unknown][] = [];
        for (const [key, value] of Object.entries(obj)) {
          const path = label ? `${label}.${key}` : key;
          if (Array.isArray(value) && value.every((v) => v !== null && typeof v === "object" && !Array.isArray(v))) {
            for (const entry of value as Record<string, unknown>[]) {
              let turn = -1;
              if (typeof entry.to_turn === "number") turn = entry.to_turn;
              else if (typeof entry.turn === "number") {
                if (ORDINAL_TURN_METRICS.has(name) && path === "turns") turn = ordinals?.[entry.turn - 1] ?? -1;
                else turn = entry.turn;
              }
              // An entry placed on its turn does not repeat the turn keys (the view shows it under that turn).
              const keys = Object.keys(entry).filter((k2) => turn === -1 || !TURN_KEYS.has(k2));
              detail.b.push([mi, this.keySet(path, keys), turn, ...keys.map((k2) => compactValue(entry[k2]))]);
            }
          } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
            walk(value as Record<string, unknown>, path);
          } else {
            scalars.push([key, value]);
          }
        }
        if (scalars.length) detail.b.push([mi, this.keySet(label, scalars.map(([k2]) => k2)), -1, ...scalars.map(([, v]) => compactValue(v))]);
      };
      walk(m.score_breakdown, "");
    }
  }

  private addTurnExtras(turns: TurnRecord[], detail: CallDetail): void {
    for (const t of turns) {
      const meas = t.measurements as unknown as Record<string, unknown>;
      if (meas && typeof meas.error === "string") (detail.e ??= {})[t.index] = meas.error;
      const a = t.acoustics;
      if (!a) continue;
      (detail.a ??= {})[t.index] = [
        r3(a.integrated_lufs), r3(a.true_peak_dbtp), r3(a.wada_snr_db), r3(a.speech_ratio),
        a.pauses?.count ?? null, r3(a.pauses?.longest_s), r3(a.pauses?.per_minute),
        r3(a.syllables_per_s), r3(a.articulation_rate), r3(a.words_per_minute), r3(a.pitch?.median_hz), a.bandwidth ?? null,
      ];
      if (Array.isArray(a.speech_segments) && a.speech_segments.length) (detail.g ??= {})[t.index] = a.speech_segments.flatMap(([s, e]) => [r2(s), r2(e)]);
    }
  }

  /** The finished data. */
  finish(results: string, elapsedFallbackTime: string | null): ReportData {
    const run = this.options.run ?? {};
    const summary = this.totals.summary(run.elapsedS ?? 0);
    const failUnder = run.failUnder ?? null;
    const metrics: ReportMetric[] = this.metricNames.map((name, i) => {
      const m = summary.metrics[name] ?? { count: 0, skipped: 0, errors: 0, mean: null, p50: null, p95: null, pass_rate: null };
      return {
        name,
        threshold: this.thresholds[i],
        ...m,
        failed: this.calls.outcome[i].filter((o) => o === 0).length,
        gate_fail: failUnder !== null && m.mean !== null && m.mean < failUnder,
      };
    });
    return {
      v: 1,
      header: {
        title: run.title ?? "voxmetrics report",
        results,
        generated_at: new Date().toISOString(),
        run_time: run.time ?? elapsedFallbackTime,
        version: this.options.version,
        inputs: run.inputs ?? [],
        options: run.options ?? {},
        fail_under: failUnder,
        calls: summary.calls,
        ok: summary.ok,
        errors: summary.errors,
        elapsed_s: run.elapsedS ?? null,
      },
      metrics,
      conversation: summary.conversation,
      S: this.strings.list,
      K: this.keySets,
      calls: this.calls,
      latencies: this.latencies,
      errors: this.errors,
      detail: this.detail,
    };
  }
}

/**
 * Read a results JSONL (streamed) into report data. A line that is not a result record is an error
 * naming the file and line; a trailing partial line (a run killed mid-write) is ignored.
 */
export async function readReportData(resultsPath: string, options: ReportDataOptions): Promise<ReportData> {
  let mtime: string | null;
  try {
    mtime = statSync(resultsPath).mtime.toISOString();
  } catch {
    throw new VoxError("IO_ERROR", "results file not found", { file: resultsPath });
  }
  const builder = new ReportDataBuilder(options);
  const lines = createInterface({ input: createReadStream(resultsPath, { encoding: "utf8" }), crlfDelay: Infinity });
  let n = 0;
  let pending: { line: number; error: string } | null = null;
  for await (const raw of lines) {
    n++;
    const line = raw.trim();
    if (!line) continue;
    if (pending) throw new VoxError("INVALID_JSON", pending.error, { file: resultsPath, field: `line ${pending.line}` });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      // Only the last line may be cut short; a bad line followed by more lines is an error.
      pending = { line: n, error: `not a JSON line (${(e as Error).message})` };
      continue;
    }
    if (!isResultRecord(value)) throw new VoxError("INVALID_JSON", 'not a result record (needs a string "id" and "status")', { file: resultsPath, field: `line ${n}` });
    builder.add(value);
  }
  return builder.finish(resultsPath, mtime);
}
