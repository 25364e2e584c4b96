// Resumability: a run killed halfway (SIGKILL, or SIGINT) and resumed with --resume yields the same records as an uninterrupted run.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultRecord } from "../../src/scoring/record.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";
import { lastStderr, runCli } from "./score-program.js";

const CALLS = 150;
const tmp = mkdtempSync(join(tmpdir(), "vx-resume-"));
const archive = join(tmp, "archive");
beforeAll(() => {
  ensureBuilt();
  cpSync(join(REPO_ROOT, "fixtures", "sample-archive", "clips"), join(archive, "clips"), { recursive: true });
  const names = ["user-1", "agent-1", "user-2", "agent-2"];
  const lines = Array.from({ length: CALLS }, (_, i) =>
    JSON.stringify({
      name: `call-${i}`,
      turns: names.map((n, k) => ({ role: n.startsWith("user") ? "user" : "assistant", content: "words here", audio: { url: `clips/${n}.wav`, start_time: k * 2.5 + (i % 7) * 0.1 } })),
    }),
  );
  writeFileSync(join(archive, "calls.jsonl"), lines.join("\n") + "\n");
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Records keyed by id with the timing field removed (the only part that may differ between runs). */
function recordsOf(path: string): Map<string, Omit<ResultRecord, "elapsed_ms">> {
  const out = new Map<string, Omit<ResultRecord, "elapsed_ms">>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const { elapsed_ms: _, ...rest } = JSON.parse(line) as ResultRecord;
    expect(out.has(rest.id), `duplicate ${rest.id}`).toBe(false);
    out.set(rest.id, rest);
  }
  return out;
}

function lineCount(path: string): number {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").length - 1 : 0;
}

/** Start `score` in a child process and send `signal` once `out` holds at least `after` lines. */
function scoreThenKill(out: string, after: number, signal: NodeJS.Signals): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "test", "cli", "score-entry.ts"), "score", archive, "--out", out, "--workers", "1", "--summary", `${out}.summary.json`], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (lineCount(out) >= after) {
        clearInterval(timer);
        child.kill(signal);
      }
    }, 10);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(timer);
      resolve(code);
    });
  });
}

describe("score --resume", () => {
  let full: Map<string, Omit<ResultRecord, "elapsed_ms">>;
  beforeAll(async () => {
    mkdirSync(join(tmp, "out"), { recursive: true });
    await runCli(["score", archive, "--out", join(tmp, "out", "full.jsonl"), "--workers", "1"]);
    full = recordsOf(join(tmp, "out", "full.jsonl"));
    expect(full.size).toBe(CALLS);
  }, 120_000);

  it("after SIGKILL halfway, resuming gives the same set of records as an uninterrupted run", async () => {
    const out = join(tmp, "out", "killed.jsonl");
    await scoreThenKill(out, CALLS / 3, "SIGKILL");
    const partial = lineCount(out);
    expect(partial).toBeGreaterThanOrEqual(CALLS / 3);
    expect(partial).toBeLessThan(CALLS);
    expect(await runCli(["score", archive, "--out", out, "--resume", "--workers", "2"])).toBe(0);
    expect(lastStderr()).toMatch(/^resuming: \d+ call\(s\) already in the output\n/);
    expect(recordsOf(out)).toEqual(full);
  }, 120_000);

  it("after SIGINT, in-flight calls finish, the file is whole, the summary is written, and --resume completes it", async () => {
    const out = join(tmp, "out", "sigint.jsonl");
    const code = await scoreThenKill(out, CALLS / 3, "SIGINT");
    expect(code).toBe(130);
    const text = readFileSync(out, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const done = recordsOf(out).size;
    expect(done).toBeLessThan(CALLS);
    expect(JSON.parse(readFileSync(`${out}.summary.json`, "utf8")).calls).toBe(done);
    expect(await runCli(["score", archive, "--out", out, "--resume", "--workers", "2", "--summary", `${out}.summary.json`])).toBe(0);
    expect(recordsOf(out)).toEqual(full);
    expect(JSON.parse(readFileSync(`${out}.summary.json`, "utf8"))).toMatchObject({ calls: CALLS, ok: CALLS, errors: 0 });
  }, 120_000);
});
