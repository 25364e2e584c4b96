// Runs a local tool (pocketsphinx, ffmpeg) as a child process without blocking the event loop, bounded by a timeout and an AbortSignal.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { tempDir } from "../audio/temp-dirs.js";
import { join } from "node:path";
import { SpeechModelError } from "./errors.js";

export interface ToolRunOptions {
  /** Model or tool name for error messages. */
  model: string;
  /** Bytes written to the tool's standard input; none closes it at once. */
  input?: Uint8Array;
  /** Kill the tool after this long (ms). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Appended to the message when the binary does not exist (how to install it). */
  installHint: string;
}

export interface ToolRunResult {
  stdout: Buffer;
  /** The last lines of standard error (tools log there; only the end explains a failure). */
  stderrTail: string;
}

const STDERR_TAIL_CHARS = 4000;

/** Run `binary args…`; resolves on exit status 0, rejects with a SpeechModelError otherwise. */
export function runTool(binary: string, args: readonly string[], options: ToolRunOptions): Promise<ToolRunResult> {
  const { model, timeoutMs, signal } = options;
  const endpoint = binary;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new SpeechModelError("ABORTED", `${model}: cancelled before it started`, { model, endpoint, attempts: 0 }));
      return;
    }
    const child = spawn(binary, args, { stdio: [options.input ? "pipe" : "ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    let stderr = "";
    let settled = false;
    const finish = (err: SpeechModelError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (err) {
        child.kill("SIGKILL");
        reject(err);
      } else {
        resolve({ stdout: Buffer.concat(stdout), stderrTail: stderr });
      }
    };
    const onAbort = () => finish(new SpeechModelError("ABORTED", `${model}: cancelled`, { model, endpoint, attempts: 1 }));
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => finish(new SpeechModelError("MODEL_TIMEOUT", `${model}: no result within ${timeoutMs} ms (killed)`, { model, endpoint, attempts: 1 })), timeoutMs);

    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    child.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") finish(new SpeechModelError("TOOL_MISSING", `${model}: ${binary} was not found. ${options.installHint}`, { model, endpoint, attempts: 1 }));
      else finish(new SpeechModelError("MODEL_FAILED", `${model}: could not run ${binary}: ${e.message}`, { model, endpoint, attempts: 1 }));
    });
    child.on("close", (code, killedBy) => {
      if (code === 0) return finish(null);
      // pocketsphinx logs pages of INFO: its ERROR/FATAL lines explain a failure; ffmpeg prints only the reason.
      const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
      const flagged = lines.filter((l) => /\b(ERROR|FATAL)\b/.test(l));
      const why = (flagged.length ? flagged : lines).slice(-2).join(" | ");
      finish(new SpeechModelError("MODEL_FAILED", `${model}: ${binary} exited with ${code === null ? `signal ${killedBy}` : `status ${code}`}${why ? `: ${why}` : ""}`, { model, endpoint, attempts: 1 }));
    });
    if (options.input && child.stdin) {
      // A tool that exits before reading all its input closes the pipe; the exit status tells what happened.
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
  });
}

/** Run `fn` with a fresh temporary folder, removed afterwards whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir("speech");
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
