// Exit codes and CI gates through the built CLI: missing inputs, every call errored, usage errors before scoring, --fail-under, --fail-on-threshold.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { jsonLines, runVoxmetrics } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const MORE = join(REPO_ROOT, "fixtures", "sample-archive", "calls", "more.jsonl");
const tmp = mkdtempSync(join(tmpdir(), "vx-gates-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("exit codes", () => {
  it("exits 1 naming a missing input, and still writes its error record", () => {
    const out = join(tmp, "missing", "r.jsonl");
    const r = runVoxmetrics(["score", join(tmp, "nowhere.json"), MORE, "-o", out, "--workers", "0", "--metrics", "integrity"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`voxmetrics: 1 input(s) missing or unreadable: ${join(tmp, "nowhere.json")} (error records in ${out})`);
    const records = jsonLines(readFileSync(out, "utf8"));
    expect(records.map((x) => x.status).sort()).toEqual(["error", "ok", "ok", "ok"]);
  });

  it("exits 1 when every call errored", () => {
    const dir = join(tmp, "all-bad");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "a.json"), JSON.stringify({ turns: [] }));
    writeFileSync(join(dir, "b.json"), JSON.stringify({ turns: [{ role: "robot", content: "x" }] }));
    const r = runVoxmetrics(["score", dir, "--workers", "0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("voxmetrics: every call errored (2 of 2)");
    expect(jsonLines(r.stdout).map((x) => x.error.code)).toEqual(["INVALID_TEST_CASE", "INVALID_TURN"]);
  });

  it("exits 1 when the inputs hold no call", () => {
    const dir = join(tmp, "empty");
    mkdirSync(dir, { recursive: true });
    const r = runVoxmetrics(["score", dir, "--workers", "0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`voxmetrics: no calls found in ${dir}`);
  });

  it("refuses an unknown metric, listing the valid names, before anything is written", () => {
    const out = join(tmp, "usage", "r.jsonl");
    const r = runVoxmetrics(["score", MORE, "-o", out, "--metrics", "integrity,loudness", "--workers", "0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown metric "loudness"; choose from naturalness, intelligibility, consistency, turn-taking, responsiveness, integrity, reliability');
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ["--threshold", "1.5"],
    ["--threshold", "-0.1"],
    ["--fail-under", "2"],
    ["--fail-under", "x"],
  ])("refuses %s %s as a usage error", (flag, value) => {
    const r = runVoxmetrics(["score", MORE, flag, value, "--workers", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`argument '${value}' is invalid. expected a number between 0 and 1, got "${value}"`);
  });
});

describe("gates", () => {
  it("--fail-under names each failing metric, its mean and the gate, without --print-summary", () => {
    const r = runVoxmetrics(["score", MORE, "--metrics", "integrity,turn-taking", "--fail-under", "0.5", "--workers", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("voxmetrics: --fail-under 0.5: Audio Integrity mean 0.3233 < 0.5");
    expect(r.stderr).not.toContain("Turn-Taking Naturalness");
    const pass = runVoxmetrics(["score", MORE, "--metrics", "turn-taking", "--fail-under", "0.5", "--workers", "0"]);
    expect(pass.code).toBe(0);
    expect(pass.stderr).toBe("");
  });

  it("--fail-under fails a run where nothing was scored", () => {
    const dir = join(tmp, "text-only");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "t.json"), JSON.stringify({ turns: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] }));
    const r = runVoxmetrics(["score", dir, "--metrics", "naturalness", "--fail-under", "0.1", "--workers", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("voxmetrics: --fail-under 0.1: failed, no metric was scored");
  });

  it("--fail-on-threshold lists the worst results below their threshold and exits 2; passes when none is", () => {
    const r = runVoxmetrics(["score", MORE, "--metrics", "integrity,responsiveness", "--threshold", "0.7", "--fail-on-threshold", "--workers", "0"]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n").map(bareId).map((l) => l.replace(/@[0-9a-f]{10} /, " "));
    expect(lines[0]).toBe("voxmetrics: --fail-on-threshold: 3 of 6 metric result(s) below their threshold; worst 3:");
    expect(lines.slice(1)).toEqual([
      "  more.jsonl#2  Agent Responsiveness  0.0000 < 0.7",
      "  more.jsonl#2  Audio Integrity  0.0000 < 0.7",
      "  more.jsonl#0  Audio Integrity  0.2500 < 0.7",
    ]);
    const pass = runVoxmetrics(["score", MORE, "--metrics", "turn-taking", "--threshold", "0.5", "--fail-on-threshold", "--workers", "0"]);
    expect(pass.code).toBe(0);
  });
});
