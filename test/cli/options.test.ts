// The shared CLI flags: every default --help shows comes from the library's DEFAULT_* objects, and each command parses them the same way.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { DEFAULT_ANALYZE_FILE_OPTIONS, DEFAULT_INGEST_OPTIONS, DEFAULT_QUEUE_OPTIONS, DEFAULT_QUEUE_WORKER_OPTIONS, DEFAULT_SCORE_OPTIONS } from "../../src/index.js";
import { DEFAULT_POOL_OPTIONS } from "../../src/pool/index.js";

function optionOf(command: string, flag: string) {
  const cmd = buildProgram().commands.find((c: Command) => c.name() === command)!;
  return cmd.options.find((o) => o.long === flag)!;
}

describe("CLI flags built from DEFAULT_* options", () => {
  it.each([
    ["score", "--threshold", DEFAULT_SCORE_OPTIONS.threshold],
    ["score", "--compat", DEFAULT_SCORE_OPTIONS.compat],
    ["score", "--workers", DEFAULT_POOL_OPTIONS.workers],
    ["score", "--agent-channel", DEFAULT_INGEST_OPTIONS.agentChannel],
    ["analyze", "--set", DEFAULT_ANALYZE_FILE_OPTIONS.set],
    ["analyze", "--compat", DEFAULT_SCORE_OPTIONS.compat],
    ["timeline", "--compat", DEFAULT_SCORE_OPTIONS.compat],
    ["timeline", "--agent-channel", DEFAULT_INGEST_OPTIONS.agentChannel],
    ["score", "--queue-name", DEFAULT_QUEUE_OPTIONS.name],
    ["score", "--batch-size", DEFAULT_QUEUE_OPTIONS.batchSize],
    ["worker", "--queue-name", DEFAULT_QUEUE_OPTIONS.name],
    ["worker", "--workers", DEFAULT_POOL_OPTIONS.workers],
    ["worker", "--concurrency", DEFAULT_QUEUE_WORKER_OPTIONS.concurrency],
    ["worker", "--stall-timeout", DEFAULT_QUEUE_WORKER_OPTIONS.stallTimeoutMs],
    ["worker", "--connect-timeout", DEFAULT_QUEUE_WORKER_OPTIONS.connectTimeoutMs / 1000],
  ])("%s %s defaults to the library's value", (command, flag, value) => {
    const option = optionOf(command, flag);
    expect(option, `${command} ${flag}`).toBeDefined();
    expect(option.defaultValue).toBe(value);
  });

  it("--help shows those defaults", () => {
    const help = buildProgram().commands.find((c: Command) => c.name() === "score")!.helpInformation();
    expect(help).toContain(`(default: ${DEFAULT_SCORE_OPTIONS.threshold})`);
    expect(help).toContain(`default: "${DEFAULT_SCORE_OPTIONS.compat}"`);
    expect(help).toContain(`(default: ${DEFAULT_POOL_OPTIONS.workers})`);
  });
});
