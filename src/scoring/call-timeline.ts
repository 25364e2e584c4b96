// The reconstructed timeline of one call (`voxmetrics timeline`): clips on the call clock, the transitions between speakers and the response latencies.
import { CallAnalysis } from "../analysis/call.js";
import { loadCall } from "../ingest/index.js";
import type { CallRef } from "../ingest/types.js";
import { buildTimeline, findTransitions, latencySummaryMs, responseLatenciesMs, type LatencySummary, type TimelineEntry, type Transition } from "../timeline/index.js";
import type { CallReadOptions } from "./score-call.js";
import type { ScoreOptions } from "./options.js";

/** The `timeline --json` record of interfaces.md. */
export interface TimelineRecord {
  id: string;
  entries: TimelineEntry[];
  transitions: Transition[];
  /** Response latencies over caller → agent transitions: count, and percentiles once there are enough samples. */
  latency_ms: LatencySummary;
}

/** A call's timeline record with what the table view also shows (untimed turns, warnings, name, turn texts). */
export interface CallTimeline {
  record: TimelineRecord;
  /** Turns with audio but no start_time: they are not on the timeline. */
  untimedTurns: number;
  /** What reading the call noticed. */
  warnings: string[];
  /** The test case's name, if it has one. */
  name: string | null;
  /** Each turn's text (`content`), by turn index. */
  texts: string[];
}

/** Read one call and place its clips on the call clock (durations measured as analysis measures them). */
export function timelineOfCall(ref: CallRef, options: CallReadOptions & Pick<ScoreOptions, "compat">): CallTimeline {
  const loaded = loadCall(ref, options);
  const analysis = new CallAnalysis(loaded, { compat: options.compat });
  const turns = loaded.testCase.turns;
  let entries;
  try {
    entries = buildTimeline(turns, (i) => analysis.clip(i)?.timelineDuration ?? null);
  } finally {
    loaded.dispose?.();
  }
  const transitions = findTransitions(entries);
  return {
    record: { id: ref.id, entries, transitions, latency_ms: latencySummaryMs(responseLatenciesMs(transitions, entries)) },
    untimedTurns: turns.filter((t) => t.audio && t.audio.start_time === null).length,
    warnings: loaded.warnings,
    name: loaded.testCase.name ?? null,
    texts: turns.map((t) => t.content),
  };
}
