// Per-input contract, outputs: a second run on the same -o is refused while the first holds its lock, -o may not name an input, and write errors (stdout or files) end the run with one clear line and a resumable file.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/index.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { CLI, jsonLines, runBuiltCli, speechLike } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "vx-outputs-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(join(dir, "clip.wav"), writeWavPcm16(speechLike(16000, 2), 16000));
const call = (i: number) => JSON.stringify({ name: `call ${i}`, turns: [{ role: "user", content: "hi", audio: { url: "clip.wav", start_time: 0 } }, { role: "assistant", content: "yes", audio: { url: "clip.wav", start_time: 2.5 } }] });
const CALLS = 150;
writeFileSync(join(dir, "calls.jsonl"), Array.from({ length: CALLS }, (_, i) => call(i)).join("\n") + "\n");
writeFileSync(join(dir, "one.json"), call(0));
const hasDevFull = existsSync("/dev/full");

describe("output file lock", () => {
  it("a run on an -o held by a live run is refused with one line naming the file, the owner and the lock", () => {
    writeFileSync(join(dir, "held.jsonl.lock"), JSON.stringify({ pid: process.pid, host: hostname(), started: "2026-01-01T00:00:00.000Z" }));
    const run = runBuiltCli(["score", "--workers", "0", "-o", "held.jsonl", "one.json"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`voxmetrics: ${join(dir, "held.jsonl")}: is being written by another voxmetrics run ${process.pid} on ${hostname()}, started 2026-01-01T00:00:00.000Z; wait for it to finish, or delete ${join(dir, "held.jsonl")}.lock if that run is gone\n`);
    expect(existsSync(join(dir, "held.jsonl"))).toBe(false);
    rmSync(join(dir, "held.jsonl.lock"));
  }, 60_000);

  it("a lock left by a run that died is taken over, and released at the end", () => {
    writeFileSync(join(dir, "stale.jsonl.lock"), JSON.stringify({ pid: 2 ** 22 + 17, host: hostname(), started: "x" }));
    const run = runBuiltCli(["score", "--workers", "0", "-o", "stale.jsonl", "one.json"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(jsonLines(readFileSync(join(dir, "stale.jsonl"), "utf8"))).toHaveLength(1);
    expect(existsSync(join(dir, "stale.jsonl.lock"))).toBe(false);
  }, 60_000);

  it("two concurrent runs on the same -o: the second is refused while the first runs; the file holds each call once", async () => {
    // The first run holds its lock for seconds: one of its calls waits on an "ffmpeg" that never answers (until --call-timeout).
    const stuck = join(dir, "stuck-ffmpeg");
    writeFileSync(stuck, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    writeFileSync(join(dir, "noise.mp3"), new Uint8Array(4096).map((_, i) => (i * 7919) % 251));
    writeFileSync(join(dir, "stuck.json"), JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "noise.mp3", start_time: 0 } }] }));
    const first = spawn(process.execPath, [CLI, "score", "--workers", "1", "--call-timeout", "8", "-o", "shared.jsonl", "stuck.json", "calls.jsonl"], {
      cwd: dir,
      stdio: "ignore",
      env: { ...process.env, FFMPEG_PATH: stuck },
    });
    const exited = new Promise<number | null>((r) => first.on("exit", (code) => r(code)));
    try {
      const lock = join(dir, "shared.jsonl.lock");
      for (let i = 0; i < 400 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 25));
      expect(existsSync(lock)).toBe(true);
      const second = runBuiltCli(["score", "--workers", "0", "-o", "shared.jsonl", "one.json"], { cwd: dir });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/shared\.jsonl: is being written by another voxmetrics run \d+ on /);
      expect(await exited).toBe(0);
    } finally {
      first.kill();
    }
    const records = jsonLines(readFileSync(join(dir, "shared.jsonl"), "utf8"));
    const ids = records.map((r) => r.id);
    expect(ids).toHaveLength(CALLS + 1);
    expect(new Set(ids).size).toBe(CALLS + 1);
    expect(records.find((r) => bareId(r.id) === "stuck.json#0")!.error.code).toBe("CALL_TIMEOUT");
    expect(existsSync(join(dir, "shared.jsonl.lock"))).toBe(false);
  }, 120_000);
});

describe("-o naming an input", () => {
  it("is refused before anything is written; the input is untouched", () => {
    const before = readFileSync(join(dir, "one.json"), "utf8");
    for (const flag of ["-o", "--summary", "--csv"]) {
      const run = runBuiltCli(["score", "--workers", "0", flag, "one.json", "one.json"], { cwd: dir });
      expect(run.code, flag).toBe(1);
      expect(run.stderr, flag).toBe(`voxmetrics: --${flag === "-o" ? "out" : flag.slice(2)} one.json is one of the inputs; writing there would overwrite it (choose another file)\n`);
    }
    expect(readFileSync(join(dir, "one.json"), "utf8")).toBe(before);
  }, 60_000);

  it("also through a symlink to the input", () => {
    symlinkSync(join(dir, "one.json"), join(dir, "alias.jsonl"));
    const run = runBuiltCli(["score", "--workers", "0", "-o", "alias.jsonl", "one.json"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--out alias\.jsonl is one of the inputs/);
  }, 60_000);
});

describe.skipIf(!hasDevFull)("write errors (/dev/full: every write fails with ENOSPC)", () => {
  it("results on stdout to a full device: one line on stderr, exit 1, no stack trace", () => {
    for (const args of [["score", "--workers", "0", "one.json"], ["analyze", "--json", "clip.wav"]]) {
      const child = runBuiltCliTo(args, "/dev/full");
      expect(child.code, args[0]).toBe(1);
      expect(child.stderr, args[0]).toBe("voxmetrics: cannot write to stdout (ENOSPC, no space left on the device); the run stopped\n");
    }
  }, 60_000);

  it.each([0, 2])("an -o file on a full device (workers %i): one line naming the file and how to resume, exit 1", (workers) => {
    const out = join(dir, `full-${workers}.jsonl`);
    symlinkSync("/dev/full", out);
    const run = runBuiltCli(["score", "--workers", String(workers), "-o", out, "calls.jsonl"], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`voxmetrics: cannot write to ${out} (ENOSPC, no space left on the device); the run stopped: the file keeps every complete record so far, rerun with --resume to continue\n`);
    expect(existsSync(`${out}.lock`)).toBe(false);
  }, 60_000);
});

/** The CLI with stdout opened on `path`. */
function runBuiltCliTo(args: string[], path: string) {
  const fd = openSync(path, "w");
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, stdio: ["ignore", fd, "pipe"], encoding: "utf8", timeout: 60_000 });
    return { code: r.status, stderr: r.stderr };
  } finally {
    closeSync(fd);
  }
}
