// Temporary folders: named by kind and process id, removed by the process at exit, and, when a killed process left them, by the next process.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STALE_AFTER_MS, sweepStaleTempDirs, tempDir } from "../../src/audio/temp-dirs.js";
import { FFMPEG } from "../helpers/tools.js";

const CLI = resolve(__dirname, "../../bin/voxmetrics.js");
const root = mkdtempSync(join(tmpdir(), "vm-tempdirs-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The id of a process that has exited (what a killed run leaves in its folders' names). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

/** A folder as tempDir names it, with a file inside, last changed `ageMs` ago. */
function leftover(dir: string, kind: string, pid: number, suffix: string, ageMs: number): string {
  const path = join(dir, `voxmetrics-${kind}-${pid}-${suffix}`);
  mkdirSync(path);
  writeFileSync(join(path, "input"), "x");
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(path, when, when);
  return path;
}

describe("temporary folders", () => {
  it("tempDir names the folder by kind and process id, and refuses a kind that is not lowercase letters", () => {
    const dir = tempDir("decode");
    try {
      expect(dir.startsWith(join(tmpdir(), `voxmetrics-decode-${process.pid}-`))).toBe(true);
      expect(existsSync(dir)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => tempDir("../x")).toThrow(/lowercase letters/);
  });

  it("the sweep removes only a dead process's folders that have been idle long enough", () => {
    const dir = join(root, "sweep");
    mkdirSync(dir);
    const dead = deadPid();
    const old = STALE_AFTER_MS + 60_000;
    const stale = leftover(dir, "decode", dead, "aB3dE9", old);
    const staleRec = leftover(dir, "rec", dead, "Zz0000", old);
    const recent = leftover(dir, "decode", dead, "recent", 1000); // maybe a process in another PID namespace, still decoding
    const live = leftover(dir, "decode", process.pid, "mine00", old); // this process's own
    const parent = leftover(dir, "stdin", process.ppid, "parent", old); // a live process's
    const foreign = join(dir, "voxmetrics-acoustics");
    mkdirSync(foreign); // not a name tempDir makes
    const removed = sweepStaleTempDirs(dir);
    expect(removed.sort()).toEqual([stale, staleRec].map((p) => p.slice(dir.length + 1)).sort());
    for (const p of [recent, live, parent, foreign]) expect(existsSync(p), p).toBe(true);
    for (const p of [stale, staleRec]) expect(existsSync(p), p).toBe(false);
  });

  it.skipIf(!FFMPEG)("a run removes what a killed run left, and leaves nothing of its own", () => {
    const dir = join(root, "cli");
    mkdirSync(dir);
    const mp3 = join(dir, "a.mp3");
    execFileSync(FFMPEG!, ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=300:d=1:sample_rate=16000", mp3]);
    const stale = leftover(dir, "decode", deadPid(), "killed", STALE_AFTER_MS + 60_000);
    const run = spawnSync(process.execPath, [CLI, "analyze", mp3, "--set", "loudness"], { encoding: "utf8", env: { ...process.env, TMPDIR: dir }, timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.split("\n")[0]).error ?? null).toBeNull();
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith("voxmetrics-"))).toEqual([]);
  });
});
