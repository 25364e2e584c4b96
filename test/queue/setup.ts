// Test helper for the queue suites: a generated archive of short calls, `voxmetrics` child processes (tracked and killed at the end), and record-set comparison.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { ResultRecord } from "../../src/scoring/record.js";
import { REPO_ROOT } from "../helpers/shared.js";

const BIN = join(REPO_ROOT, "bin", "voxmetrics.js");
const TURNS = ["user-1", "agent-1", "user-2", "agent-2"];

/**
 * An archive of `calls` short calls (deepeval JSONL lines over the sample clips, each with its own
 * timing) in `files` files, plus one line that does not parse (an error record) when `withBadLine`.
 */
export function writeArchive(dir: string, calls: number, files: number, withBadLine: boolean): number {
  cpSync(join(REPO_ROOT, "fixtures", "sample-archive", "clips"), join(dir, "clips"), { recursive: true });
  const perFile = Math.ceil(calls / files);
  for (let f = 0; f < files; f++) {
    const lines: string[] = [];
    for (let i = f * perFile; i < Math.min(calls, (f + 1) * perFile); i++) {
      lines.push(
        JSON.stringify({
          name: `call-${i}`,
          turns: TURNS.map((n, k) => ({ role: n.startsWith("user") ? "user" : "assistant", content: "words here", audio: { url: `clips/${n}.wav`, start_time: k * 2.4 + (i % 11) * 0.09 + (i % 3) * 0.31 } })),
        }),
      );
    }
    if (withBadLine && f === files - 1) lines.push('{"turns": [');
    writeFileSync(join(dir, `calls-${f}.jsonl`), lines.join("\n") + "\n");
  }
  return calls + (withBadLine ? 1 : 0);
}

export interface Child {
  readonly child: ChildProcess;
  readonly pid: number;
  stderr(): string;
  /** Resolves to the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();

/** Run `voxmetrics <args>` (the compiled CLI) as a child process in the repository folder. */
export function voxmetrics(args: string[]): Child {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"] });
  children.add(child);
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return { child, pid: child.pid!, stderr: () => stderr, exited };
}

/** SIGKILL every child still running (test clean-up). */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...children].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once("exit", () => resolve());
          c.kill("SIGKILL");
        }),
    ),
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Complete lines in a file (0 when it does not exist). */
export function lineCount(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, "utf8");
  return text.split("\n").length - 1;
}

/** Wait until `check` holds (polled every 20 ms), failing after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export type Comparable = Omit<ResultRecord, "elapsed_ms">;

/** Records of a results file keyed by id, timing removed; a doubled id fails the test. */
export function recordsOf(path: string): Map<string, Comparable> {
  const map = new Map<string, Comparable>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const { elapsed_ms: _, ...rest } = JSON.parse(line) as ResultRecord;
    expect(map.has(rest.id), `record ${rest.id} is doubled`).toBe(false);
    map.set(rest.id, rest);
  }
  return map;
}

/** The same ids and, id by id, the same records (scores, metrics, turns, errors). */
export function expectSameRecords(actual: Map<string, Comparable>, expected: Map<string, Comparable>): void {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [id, record] of expected) expect(actual.get(id), id).toEqual(record);
}

/** The calls a worker reported in its last line ("stopped after N job(s), M call(s)"). */
export function callsScoredBy(stderr: string): number {
  const m = /stopped after (\d+) job\(s\), (\d+) call\(s\)/.exec(stderr);
  if (!m) throw new Error(`the worker did not report its totals:\n${stderr}`);
  return Number(m[2]);
}

export function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
