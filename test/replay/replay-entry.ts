// Test helper: `node --import tsx test/replay/replay-entry.ts replay …` runs the replay command in a child process (to kill it), with main.ts's error handling.
import { Command, CommanderError } from "commander";
import { registerReplayCommand } from "../../src/cli/replay.js";

const program = new Command().name("voxmetrics").exitOverride();
registerReplayCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  process.stderr.write(`voxmetrics: ${(e as Error).message}\n`);
  process.exit(1);
}
