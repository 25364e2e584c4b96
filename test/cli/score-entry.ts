// Test helper: `node --import tsx test/cli/score-entry.ts score …` runs the score command in a child process (to kill it).
import { buildTestProgram } from "./score-program.js";

await buildTestProgram().parseAsync(process.argv);
