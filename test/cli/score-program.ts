// Test helper: a commander program with the score and timeline commands, run in-process or as a child process (score-entry.ts).
import { Command } from "commander";
import { registerScoreCommand } from "../../src/cli/score.js";
import { registerTimelineCommand } from "../../src/cli/timeline.js";

export function buildTestProgram(): Command {
  const program = new Command().name("voxmetrics").exitOverride();
  registerScoreCommand(program);
  registerTimelineCommand(program);
  return program;
}

let stderrOfLastRun = "";

/** What the last runCli wrote to stderr (captured, so the test output stays quiet). */
export function lastStderr(): string {
  return stderrOfLastRun;
}

/** Run `voxmetrics <args>` in this process; resolves to the exit code the command set. Its stderr is captured (lastStderr). */
export async function runCli(args: string[]): Promise<number> {
  process.exitCode = 0;
  stderrOfLastRun = "";
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderrOfLastRun += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stderr.write;
  try {
    await buildTestProgram().parseAsync(args, { from: "user" });
  } finally {
    process.stderr.write = write;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return code;
}
