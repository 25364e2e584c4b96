// The `voxmetrics` command-line program: a thin commander adapter over the public API and the worker pool.
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerAnalyzeCommand } from "./analyze.js";
import { registerCallCommand } from "./call.js";
import { registerReportCommand } from "./report.js";
import { registerReplayCommand } from "./replay.js";
import { registerMergeCommand } from "./merge.js";
import { registerScoreCommand } from "./score.js";
import { registerSimulateCommand } from "./simulate.js";
import { guardStdout } from "./stdout-guard.js";
import { registerTimelineCommand } from "./timeline.js";
import { registerWorkerCommand } from "./worker.js";

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** Build the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name("voxmetrics")
    .description(
      "Offline evaluation of voice-agent calls: deepeval's seven voice metrics (exact parity), " +
        "standards-grade acoustics, whole archives in parallel.",
    )
    .version(packageVersion())
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerScoreCommand(program);
  registerAnalyzeCommand(program);
  registerTimelineCommand(program);
  registerCallCommand(program);
  registerReportCommand(program);
  registerReplayCommand(program);
  registerMergeCommand(program);
  registerWorkerCommand(program);
  registerSimulateCommand(program);
  return program;
}

/** Run the CLI; resolves to the process exit code (0 ok, 1 error, 2 a --fail-under gate failed). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  guardStdout();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    process.stderr.write(`voxmetrics: ${(e as Error).message}\n`);
    return 1;
  }
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
