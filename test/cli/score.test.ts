// The score and timeline commands on the bundled sample archive: outputs, summary table, --fail-under, stdout mode, timelines.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { REPO_ROOT } from "../helpers/shared.js";
import { BIN, NEUTRAL_CWD } from "../helpers/cli.js";
import { ensureBuilt } from "../helpers/dist.js";
import { lastStderr, runCli } from "./score-program.js";
import { bareId } from "../helpers/ids.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");
const tmp = mkdtempSync(join(tmpdir(), "vx-cli-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function captureStdout(): () => string {
  let text = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  });
  return () => text;
}

describe("voxmetrics score", () => {
  it("writes results, summary and CSV for the sample archive and prints the table", async () => {
    const stdout = captureStdout();
    const out = join(tmp, "a", "results.jsonl");
    const code = await runCli(["score", ARCHIVE, "--out", out, "--summary", join(tmp, "a", "summary.json"), "--csv", join(tmp, "a", "results.csv"), "--print-summary", "--workers", "2"]);
    expect(code).toBe(0);
    const records = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(records).toHaveLength(11);
    expect(new Set(records.map((r) => r.source.format))).toEqual(new Set(["deepeval-json", "deepeval-jsonl", "deepeval-sim-folder", "dual-channel", "voicelive-dataset", "voicelive-output"]));
    for (const r of records) {
      expect(Object.keys(r)).toEqual(expect.arrayContaining(["id", "name", "source", "status", "error", "metrics", "turns", "elapsed_ms"]));
      expect(Object.keys(r.metrics)).toHaveLength(7);
    }
    const dual = records.find((r) => r.source.format === "dual-channel");
    expect(dual.metrics["Turn-Taking Naturalness"].skipped).toBe(false);
    const summary = JSON.parse(readFileSync(join(tmp, "a", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ calls: 11, ok: 11, errors: 0 });
    expect(Object.keys(summary.metrics["Voice Naturalness"])).toEqual(["count", "skipped", "errors", "mean", "p50", "p95", "pass_rate"]);
    expect(readFileSync(join(tmp, "a", "results.csv"), "utf8").split("\r\n").filter(Boolean)).toHaveLength(1 + 11 * 7);
    expect(stdout()).toMatch(/11 call\(s\): 11 scored, 0 error\(s\)[\s\S]*Turn-Taking Naturalness/);
  }, 60_000);

  it("writes JSONL to stdout without --out, honours --metrics and exits 2 under --fail-under", async () => {
    const stdout = captureStdout();
    const code = await runCli(["score", join(ARCHIVE, "calls", "more.jsonl"), "--metrics", "agent-responsiveness", "--fail-under", "0.99", "--workers", "0"]);
    expect(code).toBe(2);
    expect(lastStderr()).toBe("voxmetrics: --fail-under 0.99: Agent Responsiveness mean 0.6667 < 0.99\n");
    const lines = stdout().trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => bareId(l.id))).toEqual(["more.jsonl#0", "more.jsonl#1", "more.jsonl#2"]);
    expect(Object.keys(lines[0].metrics)).toEqual(["Agent Responsiveness"]);
  }, 60_000);

  it("scores a call named twice (the same input given twice) once", async () => {
    captureStdout();
    const input = join(ARCHIVE, "calls", "more.jsonl");
    const out = join(tmp, "twice", "results.jsonl");
    const code = await runCli(["score", input, input, "--out", out, "--workers", "2"]);
    expect(code).toBe(0);
    const ids = readFileSync(out, "utf8").trim().split("\n").map((l) => bareId(JSON.parse(l).id));
    expect(ids.sort()).toEqual(["more.jsonl#0", "more.jsonl#1", "more.jsonl#2"]);
  }, 60_000);

  it("writes the same bytes to stdout (a pipe) as to -o FILE, with the same summary and CSV", () => {
    // The command as users run it, its stdout a pipe read as bytes; one worker, so records come in the same order.
    const run = (dir: string, extra: string[]) => {
      const r = spawnSync(process.execPath, [BIN, "score", ARCHIVE, "--workers", "1", "--summary", join(dir, "summary.json"), "--csv", join(dir, "results.csv"), ...extra], { cwd: NEUTRAL_CWD, timeout: 120_000, maxBuffer: 1 << 26 });
      expect(r.status).toBe(0);
      return r.stdout;
    };
    const [viaStdout, viaFile] = [join(tmp, "stdout"), join(tmp, "file")];
    for (const dir of [viaStdout, viaFile]) mkdirSync(dir, { recursive: true });
    const piped = run(viaStdout, []);
    expect(run(viaFile, ["-o", join(viaFile, "results.jsonl")])).toHaveLength(0);
    const written = readFileSync(join(viaFile, "results.jsonl"));
    // Only the timings differ from run to run: every other byte must match.
    const timeless = (bytes: Buffer) => bytes.toString("latin1").replace(/"elapsed_(ms|s)": ?[-0-9.e+]+/g, '"elapsed_$1":0');
    expect(piped.length).toBeGreaterThan(0);
    expect(timeless(piped)).toBe(timeless(written));
    expect(piped.toString("utf8").trim().split("\n")).toHaveLength(11);
    for (const f of ["summary.json", "results.csv"]) expect(timeless(readFileSync(join(viaStdout, f)))).toBe(timeless(readFileSync(join(viaFile, f))));
  }, 120_000);

  it("refuses --resume without --out", async () => {
    await expect(runCli(["score", ARCHIVE, "--resume"])).rejects.toThrow(/--resume needs --out/);
  });
});

describe("voxmetrics timeline", () => {
  it("prints the dual-channel recording's timeline as JSON with transitions and latency percentiles", async () => {
    const stdout = captureStdout();
    await runCli(["timeline", join(ARCHIVE, "recordings", "call-0001.flac"), "--json"]);
    const t = JSON.parse(stdout());
    expect(bareId(t.id)).toBe("call-0001.flac");
    expect(t.entries.map((e: { role: string }) => e.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(t.transitions.map((x: { kind: string }) => x.kind)).toEqual(["gap", "gap", "gap"]);
    expect(t.latency_ms.p50).toBeGreaterThan(400);
    expect(t.latency_ms.p50).toBeLessThan(900);
  });

  it("picks a call by --id and shows barge-ins in text form", async () => {
    const stdout = captureStdout();
    Object.defineProperty(process.stdout, "isTTY", { value: true, configurable: true });
    try {
      await runCli(["timeline", join(ARCHIVE, "calls", "more.jsonl"), "--id", "more.jsonl#0"]);
    } finally {
      delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
    expect(stdout()).toMatch(/more\.jsonl#0@[0-9a-f]{10} "barge-in" \(deepeval-jsonl\)[\s\S]*user_barge_in/);
  });
});
