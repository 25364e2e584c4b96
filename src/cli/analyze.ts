// `voxmetrics analyze <audio...>`: per-file measurements (parity set, standards set) as a table or JSON lines.
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { analyzeFile, type AnalyzeFileResult, type MeasurementSet } from "../index.js";
import type { CompatMode } from "../index.js";

interface AnalyzeFlags {
  set: MeasurementSet;
  compat: CompatMode;
  json?: boolean;
}

export function registerAnalyzeCommand(program: Command): void {
  program
    .command("analyze")
    .description("measure audio files: deepeval's parity set and the standards set (loudness, peaks, pauses, rate, SNR, pitch)")
    .argument("<audio...>", "audio files (WAV, or anything ffmpeg reads)")
    .addOption(new Option("--set <set>", "which measurements to compute").choices(["parity", "loudness", "standards", "all"]).default("all"))
    .addOption(new Option("--compat <mode>", "audio acceptance for the parity set").choices(["voxmetrics", "deepeval"]).default("voxmetrics"))
    .option("--json", "one JSON line per file (default when stdout is not a terminal)")
    .action((files: string[], flags: AnalyzeFlags) => {
      const json = flags.json || !process.stdout.isTTY;
      let failed = 0;
      for (const path of files) {
        const result = analyzeOne(path, flags);
        if (result.status === "error") failed++;
        process.stdout.write(json ? `${JSON.stringify(result)}\n` : renderTable(result));
      }
      if (failed > 0) process.exitCode = 1;
    });
}

function analyzeOne(path: string, flags: AnalyzeFlags): AnalyzeFileResult {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    return errorResult(path, "IO_ERROR", `${path}: cannot read the file${code ? ` (${code})` : ""}`);
  }
  return analyzeFile(bytes, { path, set: flags.set, compat: flags.compat });
}

function errorResult(path: string, code: string, message: string): AnalyzeFileResult {
  return { path, status: "error", error: { code, message }, format: null, sample_rate: null, channels: null, duration: null };
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
  const section = (title: string, obj: Record<string, unknown> | undefined, prefix = "") => {
    if (!obj) return;
    if (title) lines.push(`  ${title}`);
    for (const [k, v] of Object.entries(obj)) {
      if (v !== null && typeof v === "object" && !Array.isArray(v)) section("", v as Record<string, unknown>, `${prefix}${k}.`);
      else lines.push(`    ${(prefix + k).padEnd(28)} ${fmt(v)}`);
    }
  };
  section("parity set (deepeval)", r.measurements as Record<string, unknown> | undefined);
  section("standards set", r.acoustics as Record<string, unknown> | undefined);
  return `${lines.join("\n")}\n\n`;
}
