// `voxmetrics timeline <input>`: a call's reconstructed timeline, its transitions and response latencies.
import { Command } from "commander";
import { callNameOf, discoverCalls, LATENCY_PERCENTILE_MIN_SAMPLES, timelineOfCall, type AgentChannel, type CallRef, type CompatMode, type IngestOptions, type InputFormat } from "../index.js";
import { agentChannelOption, compatOption, inputFormatOption } from "./options.js";

interface TimelineFlags {
  id?: string;
  json?: boolean;
  text?: boolean;
  compat: CompatMode;
  inputFormat?: InputFormat;
  agentChannel: AgentChannel;
}

export function registerTimelineCommand(program: Command): void {
  program
    .command("timeline")
    .description("print a call's reconstructed timeline and its transitions (gaps, barge-ins, overlaps) and response latencies")
    .argument("<input>", "a call file or folder (any format `score` reads)")
    .option("--id <id>", "which call, by id or by name, when the input holds several (default: the first)")
    .option("--json", "JSON output (one line), the default when stdout is not a terminal")
    .option("--text", "the readable table even when stdout is not a terminal")
    .addOption(compatOption("audio acceptance"))
    .addOption(inputFormatOption("read the input as this format"))
    .addOption(agentChannelOption("agent side of dual-channel recordings"))
    .action((input: string, flags: TimelineFlags) => {
      process.exitCode = printTimeline(input, flags);
    });
}

/** The call `--id` names: by id, else by the test case's name; the first call without `--id`. */
function pickCall(calls: CallRef[], id: string | undefined, read: IngestOptions): CallRef | undefined {
  if (id === undefined) return calls[0];
  // The id, or the id without its content digest, or the call's name.
  const byId = calls.find((c) => c.id === id) ?? calls.find((c) => c.id.replace(/@[0-9a-f]+$/, "") === id);
  if (byId) return byId;
  return calls.find((c) => !c.error && nameOf(c, read) === id);
}

function nameOf(ref: CallRef, read: IngestOptions): string | null {
  return callNameOf(ref, read);
}

/** A turn's text as one short quoted line. */
function quoteText(text: string, width = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > width ? `${flat.slice(0, width - 1)}…` : flat);
}

function printTimeline(input: string, flags: TimelineFlags): number {
  const read: IngestOptions = { inputFormat: flags.inputFormat, agentChannel: flags.agentChannel, compat: flags.compat };
  const { calls } = discoverCalls([input], { inputFormat: flags.inputFormat });
  const ref = pickCall(calls, flags.id, read);
  if (!ref) {
    const known = calls.map((c) => {
      const name = c.error ? null : nameOf(c, read);
      return name && name !== c.id ? `${c.id} (${name})` : c.id;
    });
    process.stderr.write(`voxmetrics: ${flags.id ? `no call "${flags.id}" in ${input}${known.length ? ` (calls: ${known.join(", ")})` : ""}` : `no call found in ${input}`}\n`);
    return 1;
  }
  const { record, untimedTurns, warnings, name, texts } = timelineOfCall(ref, { compat: flags.compat, agentChannel: flags.agentChannel });
  for (const w of warnings) process.stderr.write(`warning: ${ref.displayPath}: ${w}\n`);
  if (flags.json || (!flags.text && !process.stdout.isTTY)) {
    process.stdout.write(`${JSON.stringify(record)}\n`);
    return 0;
  }
  const { entries, transitions, latency_ms: latency } = record;
  const s = (x: number) => x.toFixed(3).padStart(8);
  const lines = [`${ref.id}${name && name !== ref.id ? ` "${name}"` : ""} (${ref.format})`, ""];
  for (const e of entries) lines.push(`  ${s(e.start_time)} → ${s(e.end_time)}  turn ${String(e.turn_index).padStart(3)}  ${e.role.padEnd(9)}  ${quoteText(texts[e.turn_index] ?? "")}`);
  if (untimedTurns > 0) lines.push(`  (${untimedTurns} turn(s) with audio but no start_time are not on the timeline)`);
  lines.push("", "transitions:");
  for (const t of transitions) lines.push(`  turn ${t.from_turn} → ${t.to_turn}  ${t.kind.padEnd(13)} ${(t.gap_seconds * 1000).toFixed(0).padStart(6)} ms`);
  if (transitions.length === 0) lines.push("  (none)");
  const pct = (label: "p50" | "p95" | "p99") => {
    const x = latency[label];
    return x === null ? `${label} – (needs ${LATENCY_PERCENTILE_MIN_SAMPLES[label]} samples)` : `${label} ${x.toFixed(0)} ms`;
  };
  lines.push("", latency.count === 0 ? "response latency: no caller → agent transition" : `response latency over ${latency.count} caller → agent transition(s): ${pct("p50")}, ${pct("p95")}, ${pct("p99")}`, "");
  process.stdout.write(lines.join("\n"));
  return 0;
}
