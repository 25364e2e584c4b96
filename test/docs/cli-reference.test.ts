// docs/cli.md is generated from the commander definitions; this fails when it is stale (regenerate with `npm run docs:cli`).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI_REFERENCE_PATH, renderCliReference } from "../../scripts/cli-reference.js";
import { buildProgram } from "../../src/cli/main.js";

describe("docs/cli.md", () => {
  it("matches the command definitions (stale? run `npm run docs:cli` and commit docs/cli.md)", () => {
    const program = buildProgram();
    const expected = renderCliReference(program);
    const actual = readFileSync(CLI_REFERENCE_PATH, "utf8");
    expect(actual, "docs/cli.md is stale: run `npm run docs:cli` and commit docs/cli.md").toBe(expected);
    // Every command the program has is in it, with every long flag its --help shows (hidden test-only options, e.g. worker --pool-worker-file, are not for users).
    for (const cmd of program.commands) {
      expect(actual).toContain(`## \`voxmetrics ${cmd.name()}\``);
      for (const o of cmd.options) {
        if (!o.long) continue;
        if (o.hidden) expect(actual, `${cmd.name()} ${o.long} is hidden`).not.toContain(o.long);
        else expect(actual, `${cmd.name()} ${o.long}`).toContain(o.long);
      }
    }
  });
});
