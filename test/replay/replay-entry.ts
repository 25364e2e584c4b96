// Test helper: `node --import tsx test/replay/replay-entry.ts replay …` runs the replay command in a child process (to kill it).
import { Command } from "commander";
import { registerReplayCommand } from "../../src/cli/replay.js";

const program = new Command().name("voxmetrics").exitOverride();
registerReplayCommand(program);
await program.parseAsync(process.argv);
