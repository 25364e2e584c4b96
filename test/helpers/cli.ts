// Runs the built `voxmetrics` command (bin/voxmetrics.js → dist/) as a child process: exit code, stdout, stderr.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./shared.js";

export const BIN = join(REPO_ROOT, "bin", "voxmetrics.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Default working directory: holds no input, so every fixture or temporary path in messages is absolute. */
export const NEUTRAL_CWD = join(REPO_ROOT, "test", "cli");

export interface CliRunOptions {
  /** Working directory; NEUTRAL_CWD when not given. */
  cwd?: string;
  /** Bytes or text on stdin. */
  input?: string | Uint8Array;
  /** Extra environment (NO_COLOR, FORCE_COLOR…); undefined values unset the variable. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/** `voxmetrics <args>` in a child process, stdin and stdout as pipes (so not terminals). */
export function runVoxmetrics(args: string[], options: CliRunOptions = {}): CliRun {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...options.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? NEUTRAL_CWD,
    input: options.input ?? "",
    env: env as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
    maxBuffer: 1 << 26,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The JSON lines of a text. */
export function jsonLines(text: string): Array<Record<string, any>> {
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}
