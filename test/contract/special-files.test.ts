// Per-input contract, files: FIFOs are refused without opening them (no hang), unreadable files named directly or found in a folder are one error record each; the rest of the run is scored.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/index.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { CLI, jsonLines, runBuiltCli, speechLike } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "vx-special-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const call = JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "clip.wav", start_time: 0 } }] });
mkdirSync(join(dir, "archive"));
writeFileSync(join(dir, "clip.wav"), writeWavPcm16(speechLike(16000, 1), 16000));
writeFileSync(join(dir, "archive", "clip.wav"), writeWavPcm16(speechLike(16000, 1), 16000));
writeFileSync(join(dir, "good.json"), call);
writeFileSync(join(dir, "archive", "a-good.json"), call);

const hasMkfifo = spawnSync("mkfifo", ["--version"]).status === 0;

describe("special files", () => {
  it.skipIf(!hasMkfifo)("a FIFO named to score or analyze is one error record, never opened; the inputs after it are read", () => {
    execFileSync("mkfifo", [join(dir, "pipe.jsonl"), join(dir, "pipe.wav"), join(dir, "archive", "z-pipe.json")]);
    const score = runBuiltCli(["score", "--workers", "0", "pipe.jsonl", "good.json", "archive"], { cwd: dir, timeoutMs: 30_000 });
    expect(score.signal).toBeNull();
    const records = jsonLines(score.stdout);
    // Ids are `<file name>[#record]@<digest>` (docs/results.md); a FIFO is never read, so it has no digest.
    expect(records.map((r) => [r.id, r.status])).toEqual([["pipe.jsonl", "error"], [expect.stringMatching(/^good\.json#0@[0-9a-f]{10}$/), "ok"], [expect.stringMatching(/^a-good\.json#0@[0-9a-f]{10}$/), "ok"]]);
    expect(records.map((r) => r.source.path)).toEqual(["pipe.jsonl", "good.json", "archive/a-good.json"]);
    expect(records[0].error).toEqual({ code: "UNSUPPORTED_INPUT", message: "pipe.jsonl: a FIFO (named pipe), not a regular file; refused without opening it" });
    expect(score.stderr).toContain("warning: archive/z-pipe.json: skipped (not a regular file)");

    const analyze = runBuiltCli(["analyze", "--json", "pipe.wav", "clip.wav"], { cwd: dir, timeoutMs: 30_000 });
    expect(analyze.signal).toBeNull();
    const [fifo, clip] = jsonLines(analyze.stdout);
    expect(fifo.error).toEqual({ code: "UNSUPPORTED_INPUT", message: "pipe.wav: a FIFO (named pipe), not a regular file; refused without opening it" });
    expect(clip.status).toBe("ok");
  }, 60_000);

  it("a Unix socket named to score or analyze is refused the same way; the input after it is read", async () => {
    const path = join(dir, "sock.wav");
    const server = createServer();
    await new Promise<void>((ready) => server.listen(path, ready));
    try {
      const score = jsonLines(runBuiltCli(["score", "--workers", "0", "sock.wav", "good.json"], { cwd: dir, timeoutMs: 30_000 }).stdout);
      expect(score.map((r) => [bareId(r.id), r.status])).toEqual([["sock.wav", "error"], ["good.json#0", "ok"]]);
      expect(score[0].error).toEqual({ code: "UNSUPPORTED_INPUT", message: "sock.wav: a socket, not a regular file; refused without opening it" });
      const analyze = jsonLines(runBuiltCli(["analyze", "--json", "sock.wav", "clip.wav"], { cwd: dir, timeoutMs: 30_000 }).stdout);
      expect(analyze.map((r) => [r.path, r.status])).toEqual([["sock.wav", "error"], ["clip.wav", "ok"]]);
      expect(analyze[0].error).toEqual({ code: "UNSUPPORTED_INPUT", message: "sock.wav: a socket, not a regular file; refused without opening it" });
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  }, 60_000);

  it("a character device named as an input is refused the same way", () => {
    const [record] = jsonLines(runBuiltCli(["score", "--workers", "0", "/dev/zero"], { cwd: dir, timeoutMs: 30_000 }).stdout);
    expect(record.error).toEqual({ code: "UNSUPPORTED_INPUT", message: "/dev/zero: a character device, not a regular file; refused without opening it" });
  }, 60_000);
});

// Root reads any file whatever its mode: as root the CLI runs as `nobody` (setpriv), so that mode 000 means unreadable.
const root = process.getuid?.() === 0;
const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
const canTest = !root || setpriv !== undefined;

function runUnprivileged(args: string[]) {
  if (!root) return runBuiltCli(args, { cwd: dir, timeoutMs: 30_000 });
  const r = spawnSync(setpriv!, ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, CLI, ...args], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!canTest)("unreadable files (as root: needs setpriv to drop to nobody)", () => {
  // Everything but the files under test is readable by the unprivileged run.
  beforeAll(() => {
    for (const p of [dir, join(dir, "archive")]) chmodSync(p, 0o755);
    for (const f of ["clip.wav", "good.json", "archive/clip.wav", "archive/a-good.json"]) chmodSync(join(dir, f), 0o644);
  });

  it("named directly or found in a folder: one IO_ERROR record each, naming the file; every other call is scored", () => {
    writeFileSync(join(dir, "secret.json"), call, { mode: 0o000 });
    writeFileSync(join(dir, "archive", "b-secret.json"), call, { mode: 0o000 });
    writeFileSync(join(dir, "archive", "c-secret.wav"), writeWavPcm16(speechLike(16000, 1), 16000), { mode: 0o000 });
    const run = runUnprivileged(["score", "--workers", "0", "secret.json", "good.json", "archive"]);
    const records = jsonLines(run.stdout);
    // Ids are `<file name>[#record]@<digest>` (docs/results.md): an unreadable file has no digest; its path is in source.path and the message.
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(records).toHaveLength(5);
    expect(byId.get("secret.json")?.error).toEqual({ code: "IO_ERROR", message: "secret.json: cannot read the file (EACCES)" });
    expect(byId.get("b-secret.json")?.error).toEqual({ code: "IO_ERROR", message: "archive/b-secret.json: cannot read the file (EACCES)" });
    expect(byId.get("b-secret.json")?.source.path).toBe("archive/b-secret.json");
    expect(byId.get("c-secret.wav")?.error).toEqual({ code: "IO_ERROR", message: "archive/c-secret.wav: cannot read the file (EACCES)" });
    expect(byId.get("c-secret.wav")?.source.path).toBe("archive/c-secret.wav");
    expect(byId.get("good.json#0")?.status).toBe("ok");
    expect(byId.get("a-good.json#0")?.status).toBe("ok");
    expect(byId.get("a-good.json#0")?.source.path).toBe("archive/a-good.json");
    // Every other call is scored, but a named input that cannot be read makes the run exit 1 (README "Exit codes"), naming it.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("voxmetrics: 1 input(s) missing or unreadable: secret.json");
  }, 60_000);

  it("score -o: the results file is written with the unreadable file's record and every other call's", () => {
    writeFileSync(join(dir, "hidden.json"), call, { mode: 0o000 });
    mkdirSync(join(dir, "results"), { mode: 0o777 });
    chmodSync(join(dir, "results"), 0o777);
    const run = runUnprivileged(["score", "--workers", "1", "-o", "results/out.jsonl", "hidden.json", "good.json"]);
    expect(run.signal).toBeNull();
    const records = jsonLines(readFileSync(join(dir, "results", "out.jsonl"), "utf8"));
    expect(records.map((r) => [bareId(r.id), r.status])).toEqual([["hidden.json", "error"], ["good.json#0", "ok"]]);
    expect(records[0].error).toEqual({ code: "IO_ERROR", message: "hidden.json: cannot read the file (EACCES)" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("voxmetrics: 1 input(s) missing or unreadable: hidden.json");
  }, 60_000);

  it("analyze: an unreadable file is one IO_ERROR record naming it, exit 1; the file after it is measured", () => {
    writeFileSync(join(dir, "locked.wav"), writeWavPcm16(speechLike(16000, 1), 16000), { mode: 0o000 });
    const run = runUnprivileged(["analyze", "--json", "locked.wav", "clip.wav"]);
    const records = jsonLines(run.stdout);
    expect(records.map((r) => [r.path, r.status])).toEqual([["locked.wav", "error"], ["clip.wav", "ok"]]);
    expect(records[0].error).toEqual({ code: "IO_ERROR", message: "locked.wav: cannot read the file (EACCES)" });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  }, 60_000);

  it("an unreadable folder is one error record; the other inputs are scored", () => {
    mkdirSync(join(dir, "locked"), { mode: 0o000 });
    const records = jsonLines(runUnprivileged(["score", "--workers", "0", "locked", "good.json"]).stdout);
    expect(records.map((r) => [bareId(r.id), r.status, r.error?.message ?? null])).toEqual([
      ["locked", "error", "locked: cannot list the folder (EACCES)"],
      ["good.json#0", "ok", null],
    ]);
  }, 60_000);
});

describe("a symlink loop named as an input", () => {
  it("is one IO_ERROR record", () => {
    symlinkSync("loop-b", join(dir, "loop-a.json"));
    symlinkSync("loop-a.json", join(dir, "loop-b"));
    const [record] = jsonLines(runBuiltCli(["score", "--workers", "0", "loop-a.json"], { cwd: dir }).stdout);
    expect(record.error).toEqual({ code: "IO_ERROR", message: "loop-a.json: cannot read it (ELOOP)" });
  }, 60_000);
});
