// `voxmetrics report <results.jsonl>`: the self-contained HTML report of a results file (archive overview, call table, per-call view).
import { Command } from "commander";
import { DEFAULT_HTML_REPORT_OPTIONS, writeHtmlReportOfResults } from "../index.js";
import { embedAudioOption, failUnderOption } from "./options.js";

interface ReportFlags {
  out: string;
  title?: string;
  embedAudio?: boolean;
  audio: boolean;
  failUnder?: number;
}

export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description("write a self-contained HTML report of a results JSONL: metric distributions, latencies, a call table, each call's timeline")
    .argument("<results>", "results JSONL written by `voxmetrics score --out`")
    .option("-o, --out <file.html>", "the HTML file", DEFAULT_HTML_REPORT_OPTIONS.out)
    .option("--title <text>", "the report's title")
    .addOption(embedAudioOption())
    .option("--no-audio", "no play buttons (do not look for the turn audio)")
    .addOption(failUnderOption("mark the metrics whose mean score is below n as failing, and list them first"))
    .action(async (results: string, flags: ReportFlags) => {
      const data = await writeHtmlReportOfResults({
        results,
        out: flags.out,
        embedAudio: flags.embedAudio ?? false,
        audio: flags.audio,
        run: { title: flags.title, failUnder: flags.failUnder ?? null },
      });
      process.stderr.write(`report of ${data.header.calls} call(s) written to ${flags.out}\n`);
      process.exitCode = 0;
    });
}
