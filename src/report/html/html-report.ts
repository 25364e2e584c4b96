// Writes the HTML report of a results JSONL: reads the records (streamed), finds the turn audio beside the report, renders one self-contained file.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writeHtmlReport } from "./html-writer.js";
import { readReportData, type ReportData, type ReportRunInfo } from "./report-data.js";
import { createTurnAudioLocator } from "./turn-audio.js";

export interface HtmlReportOptions {
  /** The results JSONL to report on. */
  results: string;
  /** The HTML file to write. */
  out: string;
  run?: ReportRunInfo;
  /** Embed each turn's audio in the file (data: URIs) instead of linking it by relative path. */
  embedAudio?: boolean;
  /** Look for the turn audio at all (default true): play buttons appear for the turns whose audio is reachable. */
  audio?: boolean;
  /** Folder the results' source paths are relative to (default: the working directory). */
  cwd?: string;
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
export async function writeHtmlReportOfResults(options: HtmlReportOptions): Promise<ReportData> {
  const audio = options.audio === false ? null : createTurnAudioLocator({ reportPath: options.out, embed: options.embedAudio ?? false, cwd: options.cwd });
  const data = await readReportData(options.results, { run: options.run, version: packageVersion(), audio });
  mkdirSync(dirname(options.out), { recursive: true });
  writeHtmlReport(data, options.out);
  return data;
}
