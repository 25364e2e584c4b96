// The README, docs/ and --help point only at files a clone has; metric ids, names and deepeval class names are all accepted, as docs/metrics.md says.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { createMetrics, METRICS } from "../../src/metrics/index.js";
import { REPO_ROOT } from "../helpers/shared.js";

const DOCS = [join(REPO_ROOT, "README.md"), ...readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(REPO_ROOT, "docs", f))];

describe("user documentation", () => {
  it.each(DOCS.map((p) => [p.slice(REPO_ROOT.length + 1), p]))("%s links only to files in the repository and never to ../shared", (_name, path) => {
    const text = readFileSync(path, "utf8");
    expect(text).not.toMatch(/\.\.\/shared|shared\/spec|shared\/parity|shared\/DESIGN/);
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      expect(existsSync(resolve(dirname(path), target)), `${path} → ${target}`).toBe(true);
    }
  });

  it("--help of every command names no file outside the repository", () => {
    const program = buildProgram();
    for (const cmd of [program, ...program.commands]) expect(cmd.helpInformation()).not.toMatch(/shared\/|interfaces\.md|formats\.md|voice-metrics\.md|acoustics\.md/);
  });

  it("docs/metrics.md lists every metric's id, name and class name, and createMetrics takes all three", () => {
    const doc = readFileSync(join(REPO_ROOT, "docs", "metrics.md"), "utf8");
    for (const m of METRICS) {
      expect(doc).toContain(`| \`${m.id}\` | ${m.name} | \`${m.className}\` |`);
      for (const key of [m.id, m.name, m.className]) expect(createMetrics([key])[0].name).toBe(m.name);
    }
  });
});
