// `voxmetrics merge <parts...>`: combines the parts of a sharded run (score --shard K/N) into one results JSONL, summary and CSV; refuses missing, doubled or foreign parts.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Command } from "commander";
import { formatSummaryTable, mergeParts } from "../index.js";

interface MergeFlags {
  out?: string;
  summary?: string;
  csv?: string;
  printSummary?: boolean;
}

export function registerMergeCommand(program: Command): void {
  program
    .command("merge")
    .description("merge the part files of `score --shard K/N` runs into one result set (every shard 1..N exactly once)")
    .argument("<parts...>", "part files (part-1.jsonl … part-N.jsonl)")
    .option("-o, --out <file.jsonl>", "merged results, one JSON line per call (default: stdout)")
    .option("--summary <file.json>", "aggregate per metric over all parts, written atomically")
    .option("--csv <file.csv>", "one row per call and metric")
    .option("--print-summary", "print the summary table when done (stdout, or stderr when results go to stdout)")
    .action((parts: string[], flags: MergeFlags) => {
      for (const p of [flags.out, flags.summary, flags.csv]) if (p) mkdirSync(dirname(p), { recursive: true });
      const result = mergeParts({ parts, out: flags.out ?? null, summary: flags.summary ?? null, csv: flags.csv ?? null });
      process.stderr.write(`merged ${result.calls} call(s) from ${result.header.count} shard(s)\n`);
      if (flags.printSummary) (flags.out ? process.stdout : process.stderr).write(formatSummaryTable(result.summary));
    });
}
