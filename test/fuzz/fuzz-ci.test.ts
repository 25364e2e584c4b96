// The fuzzing harness's CI profile (`npm run fuzz -- --profile ci`): seeded mutated WAV and JSON/JSONL inputs through the built CLI, the per-input contract checked on every batch.
import { beforeAll, describe, expect, it } from "vitest";
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
