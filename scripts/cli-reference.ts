// The CLI reference (docs/cli.md), generated from the commander definitions so it cannot drift: `npm run docs:cli` rewrites it, test/docs/cli-reference.test.ts fails when it is stale.
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command, Option } from "commander";

const HEADER = `# voxmetrics command-line reference

Generated from the command definitions by \`npm run docs:cli\`; do not edit by hand (a test fails
when this file is stale). Exit codes: 0 ok, 1 error (usage, missing input, every call errored),
2 a gate failed (\`--fail-under\`, \`--fail-on-threshold\`), 130 interrupted.
`;

/** A table cell: pipes escaped, line breaks flattened. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

function defaultOf(o: Option): string {
  if (o.defaultValueDescription) return o.defaultValueDescription;
  // A worker count defaulting to this machine's cores is described, so the reference is the same everywhere.
  if (/workers/.test(o.flags) && o.defaultValue === availableParallelism()) return "the number of CPU cores";
  if (o.defaultValue === undefined) return "";
  if (o.negate && o.defaultValue === true) return "";
  return `\`${JSON.stringify(o.defaultValue)}\``;
}

function renderOptions(options: readonly Option[]): string[] {
  const visible = options.filter((o) => !o.hidden);
  if (visible.length === 0) return [];
  const rows = visible.map((o) => {
    const extra = o.argChoices ? ` (one of: ${o.argChoices.map((c) => `\`${c}\``).join(", ")})` : "";
    return `| \`${cell(o.flags)}\` | ${cell(o.description + extra)} | ${cell(defaultOf(o))} |`;
  });
  return ["| option | meaning | default |", "|---|---|---|", ...rows, ""];
}

function renderCommand(cmd: Command, parents: string[]): string[] {
  const path = [...parents, cmd.name()];
  const lines = [`## \`${path.join(" ")}\``, "", cell(cmd.description()), "", "```", `${path.join(" ")} ${cmd.usage()}`, "```", ""];
  const args = cmd.registeredArguments;
  if (args.length > 0) {
    lines.push("| argument | meaning |", "|---|---|");
    for (const a of args) lines.push(`| \`${a.name()}${a.variadic ? "..." : ""}\`${a.required ? "" : " (optional)"} | ${cell(a.description)} |`);
    lines.push("");
  }
  lines.push(...renderOptions(cmd.options));
  for (const sub of cmd.commands) lines.push(...renderCommand(sub, path));
  return lines;
}

/** The whole reference for a program: every command it has when called (so it covers commands added later). */
export function renderCliReference(program: Command): string {
  const lines = [HEADER, `Commands: ${program.commands.map((c) => `[\`${c.name()}\`](#${[program.name(), c.name()].join("-")})`).join(", ")}.`, ""];
  lines.push(...renderOptions(program.options).length ? ["Global options:", "", ...renderOptions(program.options)] : []);
  for (const cmd of program.commands) lines.push(...renderCommand(cmd, [program.name()]));
  return `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

export const CLI_REFERENCE_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "cli.md");

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { buildProgram } = await import("../src/cli/main.js");
  writeFileSync(CLI_REFERENCE_PATH, renderCliReference(buildProgram()));
  process.stdout.write(`wrote ${CLI_REFERENCE_PATH}\n`);
}
