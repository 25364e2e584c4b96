// Writes the HTML report of a results JSONL: reads the records (streamed), finds the turn audio beside the report, renders one self-contained file.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { VoxError } from "../../model/errors.js";
import { writeHtmlReport } from "./html-writer.js";
import { readReportData, type ReportData, type ReportRunInfo } from "./report-data.js";
import { createTurnAudioLocator } from "./turn-audio.js";

/** Options of the HTML report (`voxmetrics report`, `score --html`): results file, output file, audio embedding, run header. */
export interface HtmlReportOptions {
  /** The results JSONL to report on. */
  results: string;
  /** The HTML file to write. @defaultValue "report.html" */
  out?: string;
  run?: ReportRunInfo;
  /** Embed each turn's audio in the file (data: URIs) instead of linking it by relative path. @defaultValue false */
  embedAudio?: boolean;
  /** Look for the turn audio at all: play buttons appear for the turns whose audio is reachable. @defaultValue true */
  audio?: boolean;
  /** Folder the results' source paths are relative to. @defaultValue the working directory */
  cwd?: string;
}

/** Defaults of the HTML report (the CLI builds its flags from them). */
export const DEFAULT_HTML_REPORT_OPTIONS = Object.freeze({ out: "report.html", embedAudio: false, audio: true });

/** Options with defaults applied, checked at the boundary. */
export function resolveHtmlReportOptions(options: HtmlReportOptions): Required<Omit<HtmlReportOptions, "run" | "cwd">> & Pick<HtmlReportOptions, "run" | "cwd"> {
  if (typeof options.results !== "string" || options.results === "") throw new VoxError("INVALID_OPTION", "results: the results JSONL path is required");
  const out = options.out ?? DEFAULT_HTML_REPORT_OPTIONS.out;
  if (typeof out !== "string" || out === "") throw new VoxError("INVALID_OPTION", "out: the HTML file path must be a non-empty string");
  const failUnder = options.run?.failUnder;
  if (failUnder !== undefined && failUnder !== null && !(Number.isFinite(failUnder) && failUnder >= 0)) throw new VoxError("INVALID_OPTION", `run.failUnder: expected a number ≥ 0, got ${failUnder}`);
  return { ...options, out, embedAudio: options.embedAudio ?? DEFAULT_HTML_REPORT_OPTIONS.embedAudio, audio: options.audio ?? DEFAULT_HTML_REPORT_OPTIONS.audio };
}

/** The version of this package, shown in the report. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** Write the report; resolves to the data it embeds (for callers that want its figures). */
export async function writeHtmlReportOfResults(input: HtmlReportOptions): Promise<ReportData> {
  const options = resolveHtmlReportOptions(input);
  const audio = options.audio ? createTurnAudioLocator({ reportPath: options.out, embed: options.embedAudio, cwd: options.cwd }) : null;
  const data = await readReportData(options.results, { run: options.run, version: packageVersion(), audio });
  mkdirSync(dirname(options.out), { recursive: true });
  writeHtmlReport(data, options.out);
  return data;
}
