// Loaded into the CLI under fuzzing (node --import): at exit, writes the process's peak RSS (KB, every thread included) to $VOXMETRICS_FUZZ_RSS.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const file = process.env.VOXMETRICS_FUZZ_RSS;
  if (!file) return;
  try {
    writeFileSync(file, String(process.resourceUsage().maxRSS));
  } catch {
    // Nothing to report to.
  }
});
