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

/** Run `voxmetrics <args>` in this process; resolves to the exit code the command set. */
export async function runCli(args: string[]): Promise<number> {
  process.exitCode = 0;
  await buildTestProgram().parseAsync(args, { from: "user" });
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return code;
}
