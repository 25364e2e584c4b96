// `voxmetrics timeline <input>`: a call's reconstructed timeline, its transitions and response latencies.
import { Command } from "commander";
import { discoverCalls, timelineOfCall, type AgentChannel, type CompatMode, type InputFormat } from "../index.js";
import { agentChannelOption, compatOption, inputFormatOption } from "./options.js";

interface TimelineFlags {
  id?: string;
  json?: boolean;
  compat: CompatMode;
  inputFormat?: InputFormat;
  agentChannel: AgentChannel;
}

export function registerTimelineCommand(program: Command): void {
  program
    .command("timeline")
    .description("print a call's reconstructed timeline and its transitions (gaps, barge-ins, overlaps) and response latencies")
    .argument("<input>", "a call file or folder (any format `score` reads)")
    .option("--id <id>", "which call, when the input holds several (default: the first)")
    .option("--json", "JSON output (interfaces.md), the default when stdout is not a terminal")
    .addOption(compatOption("audio acceptance"))
    .addOption(inputFormatOption("read the input as this format"))
    .addOption(agentChannelOption("agent side of dual-channel recordings"))
    .action((input: string, flags: TimelineFlags) => {
      process.exitCode = printTimeline(input, flags);
    });
}

function printTimeline(input: string, flags: TimelineFlags): number {
  const { calls } = discoverCalls([input], { inputFormat: flags.inputFormat });
  const ref = flags.id ? calls.find((c) => c.id === flags.id) : calls[0];
  if (!ref) {
    const known = calls.map((c) => c.id).join(", ");
    process.stderr.write(`voxmetrics: ${flags.id ? `no call "${flags.id}" in ${input}${known ? ` (calls: ${known})` : ""}` : `no call found in ${input}`}\n`);
    return 1;
  }
  const { record, untimedTurns, warnings } = timelineOfCall(ref, { compat: flags.compat, agentChannel: flags.agentChannel });
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  if (flags.json || !process.stdout.isTTY) {
    process.stdout.write(`${JSON.stringify(record)}\n`);
    return 0;
  }
  const { entries, transitions, latency_ms: latency } = record;
  const s = (x: number) => x.toFixed(3).padStart(8);
  const lines = [`${ref.id} (${ref.format})`, ""];
  for (const e of entries) lines.push(`  ${s(e.start_time)} → ${s(e.end_time)}  turn ${String(e.turn_index).padStart(3)}  ${e.role}`);
  if (untimedTurns > 0) lines.push(`  (${untimedTurns} turn(s) with audio but no start_time are not on the timeline)`);
  lines.push("", "transitions:");
  for (const t of transitions) lines.push(`  turn ${t.from_turn} → ${t.to_turn}  ${t.kind.padEnd(13)} ${(t.gap_seconds * 1000).toFixed(0).padStart(6)} ms`);
  if (transitions.length === 0) lines.push("  (none)");
  const ms = (x: number | null) => (x === null ? "-" : `${x.toFixed(0)} ms`);
  lines.push("", `response latency: p50 ${ms(latency.p50)}, p95 ${ms(latency.p95)}, p99 ${ms(latency.p99)}`, "");
  process.stdout.write(lines.join("\n"));
  return 0;
}
