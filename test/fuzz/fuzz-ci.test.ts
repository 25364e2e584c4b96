// The fuzzing harness's CI profile (`npm run fuzz -- --profile ci`): seeded mutated WAV and JSON/JSONL inputs through the built CLI, the per-input contract checked on every batch.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CI_PROFILE } from "../../scripts/fuzz.js";
import { batchInputs, runFuzz } from "../../scripts/fuzz/harness.js";
import { ensureBuilt } from "../helpers/dist.js";

beforeAll(ensureBuilt, 120_000);

describe("fuzzing harness, CI profile", () => {
  it("the inputs are a function of the seed: the same seed gives the same bytes, another seed others", () => {
    const a = batchInputs(7, 3, 20, "AAAA");
    const b = batchInputs(7, 3, 20, "AAAA");
    const c = batchInputs(8, 3, 20, "AAAA");
    expect(a.map((i) => [i.name, Buffer.from(i.bytes).toString("base64")])).toEqual(b.map((i) => [i.name, Buffer.from(i.bytes).toString("base64")]));
    expect(a.map((i) => Buffer.from(i.bytes).toString("base64"))).not.toEqual(c.map((i) => Buffer.from(i.bytes).toString("base64")));
    expect(new Set(a.map((i) => i.name.split(".").pop()))).toEqual(new Set(["wav", "json", "jsonl"]));
  });

  it("every input gets its record(s); no signal deaths, time-outs, stack traces or RSS above the bound", async () => {
    const report = await runFuzz({ ...CI_PROFILE, seed: 20261203, failuresDir: null });
    expect(report.failures).toEqual([]);
    expect(report.inputs).toBe(CI_PROFILE.count);
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    expect(report.records.ok).toBeGreaterThan(0);
    expect(report.records.error).toBeGreaterThan(0);
    expect(report.peakRssMb).toBeGreaterThan(0);
  }, 600_000);
});

/**
 * A stand-in CLI that breaks the contract in every way the harness checks: analyze gives no record for
 * its last input and an INTERNAL record for its second, prints a stack trace and exits 3; score gives
 * no record for its first input, an unnamed message for its second and a KERNEL_ERROR for its third.
 */
const BROKEN_CLI = `
import { writeFileSync } from "node:fs";
const [command, ...args] = process.argv.slice(2);
const out = args.includes("-o") ? args[args.indexOf("-o") + 1] : null;
const inputs = args.filter((a) => /\\.(wav|jsonl?)$/.test(a) && a !== out);
if (command === "analyze") {
  for (const [i, path] of inputs.entries()) {
    if (i === inputs.length - 1) continue;
    const error = i === 1 ? { code: "INTERNAL", message: path + ": boom" } : null;
    process.stdout.write(JSON.stringify({ path, status: error ? "error" : "ok", error }) + "\\n");
  }
  process.stderr.write("Error: boom\\n    at main (/x/cli.js:1:2)\\n");
  process.exitCode = 3;
} else {
  const lines = inputs.slice(1).map((path, i) => {
    const error = i === 0 ? { code: "INVALID_JSON", message: "something is wrong" } : i === 1 ? { code: "KERNEL_ERROR", message: path + ": kernel x" } : null;
    return JSON.stringify({ id: path, source: { path }, status: error ? "error" : "ok", error });
  });
  writeFileSync(out, lines.join("\\n") + "\\n");
}
`;

describe("the harness fails on a broken CLI (its checks can fail)", () => {
  const dir = mkdtempSync(join(tmpdir(), "vx-fuzz-broken-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("missing records, INTERNAL and KERNEL_ERROR records, unnamed messages, stack traces and odd exit codes are all failures", async () => {
    const cli = join(dir, "broken-cli.mjs");
    writeFileSync(cli, BROKEN_CLI);
    const report = await runFuzz({ seed: 3, count: 12, batch: 12, timeoutMs: 60_000, failuresDir: null, cli });
    const reasons = report.failures.map((f) => `${f.command}: ${f.reason}`);
    const has = (re: RegExp) => expect(reasons.some((r) => re.test(r)), `${re} in\n${reasons.join("\n")}`).toBe(true);
    has(/^analyze: \d+ records for \d+ inputs$/);
    has(/^analyze: INTERNAL record: w\d+\.wav: boom$/);
    has(/^analyze: stack trace on stderr/);
    has(/^analyze: exit code 3$/);
    has(/^score: no record for [wj]\d+\./);
    has(/^score: the INVALID_JSON message does not name the file: something is wrong$/);
    has(/^score: KERNEL_ERROR record: [wj]\d+\.\w+: kernel x$/);
    expect(report.unnamedMessages).toBe(1);
  }, 120_000);
});
