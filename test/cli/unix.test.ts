// Unix conventions through the built CLI: `-` reads stdin, `-o -` writes stdout, NO_COLOR and terminals, --quiet / --verbose, warnings naming their files.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { BIN, jsonLines, runVoxmetrics } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const SAMPLE = join(REPO_ROOT, "fixtures", "sample-archive");
const cwd = mkdtempSync(join(tmpdir(), "vx-unix-"));
beforeAll(ensureBuilt, 120_000);
beforeAll(() => cpSync(join(SAMPLE, "clips"), join(cwd, "clips"), { recursive: true }));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** An order-status call whose audio urls are relative to the working directory. */
const orderStatus = () => {
  const call = JSON.parse(readFileSync(join(SAMPLE, "calls", "order-status.json"), "utf8"));
  for (const t of call.turns) if (t.audio?.url) t.audio.url = t.audio.url.replace("../clips/", "clips/");
  return call;
};
const SCRIPT = existsSync("/usr/bin/script") ? "/usr/bin/script" : null;

describe("stdin and stdout", () => {
  it("- reads JSONL from stdin, audio urls relative to the working directory; ids and messages say <stdin>", () => {
    const a = orderStatus();
    const jsonl = `${JSON.stringify(a)}\n${JSON.stringify({ ...a, name: "second" })}\n{"turns": [\n`;
    const r = runVoxmetrics(["score", "-", "--metrics", "naturalness", "--workers", "0"], { cwd, input: jsonl });
    expect(r.code).toBe(0);
    const records = jsonLines(r.stdout);
    expect(records.map((x) => [bareId(x.id), x.name, x.status, x.source])).toEqual([
      ["stdin#0", "order-status", "ok", { format: "deepeval-jsonl", path: "<stdin>" }],
      ["stdin#1", "second", "ok", { format: "deepeval-jsonl", path: "<stdin>" }],
      ["stdin#2", null, "error", { format: "deepeval-jsonl", path: "<stdin>" }],
    ]);
    expect(records[0].metrics["Voice Naturalness"].skipped).toBe(false);
    expect(records[2].error).toEqual({ code: "INVALID_JSON", message: "<stdin>: line 3 column 12: JSON syntax error: unexpected end of input (expected a JSON value)" });
  });

  it("- reads a JSON array too, and scores the same as the file", () => {
    writeFileSync(join(cwd, "order.json"), JSON.stringify(orderStatus()));
    const fromFile = runVoxmetrics(["score", "order.json", "--workers", "0"], { cwd });
    const fromStdin = runVoxmetrics(["score", "-", "--workers", "0"], { cwd, input: JSON.stringify([orderStatus()]) });
    expect(fromStdin.code).toBe(0);
    const strip = (x: Record<string, any>) => ({ ...x, id: null, source: null, elapsed_ms: null, turns: x.turns.map((t: Record<string, any>) => ({ ...t, measurements: { ...t.measurements, elapsed_ms: null } })) });
    expect(jsonLines(fromStdin.stdout).map(strip)).toEqual(jsonLines(fromFile.stdout).map(strip));
  });

  it("-o - writes the results to stdout, beside a summary file", () => {
    const summary = join(cwd, "out", "summary.json");
    const r = runVoxmetrics(["score", join(SAMPLE, "calls", "more.jsonl"), "-o", "-", "--summary", summary, "--workers", "0"], { cwd });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((x) => bareId(x.id))).toEqual(["more.jsonl#0", "more.jsonl#1", "more.jsonl#2"]);
    expect(JSON.parse(readFileSync(summary, "utf8")).calls).toBe(3);
    expect(existsSync(join(cwd, "-"))).toBe(false);
  });
});

describe("stderr", () => {
  it("the bundled sample archive warns of nothing", () => {
    const r = runVoxmetrics(["score", SAMPLE, "-o", join(cwd, "sample", "r.jsonl"), "--workers", "1"], { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });

  it("warnings name their files; --verbose adds every file passed over and every call; --quiet silences both", () => {
    const dir = join(cwd, "mixed");
    mkdirSync(dir, { recursive: true });
    cpSync(join(SAMPLE, "clips", "user-1.wav"), join(dir, "clip.wav"));
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ foo: 1 }));
    const call = orderStatus();
    for (const t of call.turns) if (t.audio) t.audio = { url: `../${t.audio.url}`, startTime: t.audio.start_time };
    writeFileSync(join(dir, "alias.json"), JSON.stringify(call));
    const plain = runVoxmetrics(["score", "mixed", "--metrics", "turn-taking", "--workers", "0"], { cwd });
    expect(plain.code).toBe(0);
    expect(plain.stderr.split("\n").filter(Boolean).map((l) => l.replace(/@[0-9a-f]{10}\)/, ")"))).toEqual([
      "warning: mixed/settings.json: skipped (no deepeval test case (turns), Voice Live dataset or Voice Live output record)",
      ...[0, 1, 2, 3, 4, 5].map((i) => `warning: mixed/alias.json (alias.json#0): turns[${i}].audio.startTime: read as start_time (a voxmetrics extension; deepeval ignores startTime)`),
    ]);
    // The same warnings are in the record.
    expect(jsonLines(plain.stdout)[0].warnings).toHaveLength(6);
    const verbose = runVoxmetrics(["score", "mixed", "--metrics", "turn-taking", "--workers", "0", "--verbose"], { cwd });
    expect(verbose.stderr).toContain("mixed/clip.wav: skipped (a mono clip, not a call recording)\n");
    expect(verbose.stderr).toMatch(/^ok {5}alias\.json#0@[0-9a-f]{10} \(\d+ ms\)$/m);
    const quiet = runVoxmetrics(["score", "mixed", "--metrics", "turn-taking", "--workers", "0", "--quiet"], { cwd });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
    expect(jsonLines(quiet.stdout).map((x) => x.id)).toEqual(jsonLines(plain.stdout).map((x) => x.id));
  });

  it("a folder of clips only: exit 1, and the message says why", () => {
    const dir = join(cwd, "clips-only");
    cpSync(join(SAMPLE, "clips"), dir, { recursive: true });
    const r = runVoxmetrics(["score", "clips-only", "--workers", "0"], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("voxmetrics: no calls found in clips-only (6 mono clip(s) passed over, listed by --verbose: score reads call recordings; `voxmetrics analyze` measures clips)\n");
  });

  it.skipIf(!SCRIPT)("on a terminal progress redraws in place, and NO_COLOR turns every escape sequence off", () => {
    const run = (env: Record<string, string>) =>
      spawnSync(SCRIPT!, ["-qec", `${process.execPath} ${BIN} score ${join(SAMPLE, "calls", "more.jsonl")} -o ${join(cwd, "tty", "r.jsonl")} --workers 0`, "/dev/null"], {
        cwd,
        encoding: "utf8",
        env: { ...process.env, TERM: "xterm", ...env },
        timeout: 60_000,
      });
    const rich = run({});
    expect(rich.status).toBe(0);
    expect(rich.stdout).toContain("\x1b[K");
    expect(rich.stdout).toContain("3/3 calls");
    const plain = run({ NO_COLOR: "1" });
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain("3/3 calls");
    expect(plain.stdout).not.toContain("\x1b");
  });
});
