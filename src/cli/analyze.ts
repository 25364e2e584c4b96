// `voxmetrics analyze <audio...>`: per-file measurements (parity set, standards set) as a table or JSON lines.
import { Command } from "commander";
import { analyzeFileAt, type AnalyzeFileResult, type CompatMode, type MeasurementSet } from "../index.js";
import { compatOption, maxAudioSecondsOption, maxChannelsOption, measurementSetOption } from "./options.js";

interface AnalyzeFlags {
  set: MeasurementSet;
  compat: CompatMode;
  json?: boolean;
  maxAudioSeconds: number;
  maxChannels: number;
}

export function registerAnalyzeCommand(program: Command): void {
  program
    .command("analyze")
    .description("measure audio files: deepeval's parity set and the standards set (loudness, peaks, pauses, rate, SNR, pitch)")
    .argument("<audio...>", "audio files (WAV, or anything ffmpeg reads)")
    .addOption(measurementSetOption())
    .addOption(compatOption("audio acceptance for the parity set"))
    .option("--json", "one JSON line per file (default when stdout is not a terminal)")
    .addOption(maxAudioSecondsOption())
    .addOption(maxChannelsOption())
    .action((files: string[], flags: AnalyzeFlags) => {
      const json = flags.json || !process.stdout.isTTY;
      let failed = 0;
      for (const path of files) {
        const result = analyzeFileAt(path, { set: flags.set, compat: flags.compat, limits: { maxAudioSeconds: flags.maxAudioSeconds, maxChannels: flags.maxChannels } });
        if (result.status === "error") failed++;
        process.stdout.write(json ? `${JSON.stringify(result)}\n` : renderTable(result));
      }
      if (failed > 0) process.exitCode = 1;
    });
}

function fmt(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return `${v.length} item(s)`;
  return String(v);
}

function renderTable(r: AnalyzeFileResult): string {
  const lines = [`${r.path}`];
  if (r.status === "error") return `${lines[0]}\n  error: ${r.error?.message}\n\n`;
  lines.push(`  ${r.format}, ${r.sample_rate} Hz, ${r.channels} channel(s), ${fmt(r.duration)} s`);
  const section = (title: string, obj: object | undefined, prefix = "") => {
    if (!obj) return;
    if (title) lines.push(`  ${title}`);
    for (const [k, v] of Object.entries(obj)) {
      if (v !== null && typeof v === "object" && !Array.isArray(v)) section("", v as object, `${prefix}${k}.`);
      else lines.push(`    ${(prefix + k).padEnd(28)} ${fmt(v)}`);
    }
  };
  section("parity set (deepeval)", r.measurements);
  section("standards set", r.acoustics);
  return `${lines.join("\n")}\n\n`;
}
