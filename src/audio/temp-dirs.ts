// Temporary folders of this process (ffmpeg decodes, standard input, speech tools), named
// `voxmetrics-<kind>-<pid>-XXXXXX` so that what a process leaves behind can be found and removed:
// by the process itself when it exits (a worker stopped at --call-timeout never runs its own
// `finally`), and by the next process when the one that made them was killed (SIGKILL, a crash,
// a power cut), which runs no exit handler at all.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";

const PREFIX = "voxmetrics-";
/** `voxmetrics-<kind>-<pid>-<6 random characters>`, the names tempDir makes. */
const NAME = /^voxmetrics-([a-z]+)-(\d+)-[A-Za-z0-9]{6}$/;
/**
 * A dead process's folder is removed only when it has not changed for this long. A process in
 * another PID namespace (a container sharing /tmp) may look dead from here; none of its folders
 * stays untouched for long while in use, and a decoded WAV already open stays readable anyway.
 */
export const STALE_AFTER_MS = 10 * 60 * 1000;

let exitWatched = false;
let swept = false;

/** True when process `pid` exists on this machine (a signal-0 probe; EPERM means it exists under another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function names(root: string): string[] {
  try {
    return readdirSync(root);
  } catch {
    return [];
  }
}

/**
 * Remove the temporary folders in `root` left by processes that are gone: named by tempDir, with a
 * process id that is not alive, unchanged for `staleAfterMs`. Returns the names removed. Runs once
 * per process on its own (the first tempDir); exported for tests.
 */
export function sweepStaleTempDirs(root = tmpdir(), now = Date.now(), staleAfterMs = STALE_AFTER_MS): string[] {
  const removed: string[] = [];
  for (const name of names(root)) {
    const m = NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    const path = join(root, name);
    try {
      if (now - statSync(path).mtimeMs < staleAfterMs) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // gone meanwhile, or not ours to remove: leave it
    }
  }
  return removed;
}

/** Remove this process's temporary folders (at exit: whatever a stopped worker thread left). */
function removeOwn(): void {
  const root = tmpdir();
  for (const name of names(root)) {
    const m = NAME.exec(name);
    if (m && Number(m[2]) === process.pid) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/**
 * Register the exit clean-up, once, on the main thread only: a worker thread's `exit` is the
 * thread's, and removing the process's folders then would pull them from under the other threads.
 */
function watchTempDirs(): void {
  if (exitWatched || !isMainThread) return;
  exitWatched = true;
  process.once("exit", removeOwn);
}

// The main thread watches from the start: the workers that make folders may be stopped before they clean up.
watchTempDirs();

/**
 * A new temporary folder for `kind` (lowercase letters: "decode", "rec", "stdin", "speech"). The
 * caller removes it when done; if it cannot (killed), this process's exit or a later process does.
 */
export function tempDir(kind: string): string {
  if (!/^[a-z]+$/.test(kind)) throw new Error(`temporary folder kind "${kind}" must be lowercase letters`);
  watchTempDirs();
  if (!swept) {
    swept = true;
    sweepStaleTempDirs();
  }
  return mkdtempSync(join(tmpdir(), `${PREFIX}${kind}-${process.pid}-`));
}
