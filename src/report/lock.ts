// An advisory lock on a run's output file (`<file>.lock`, created exclusively, holding the owner's pid): a second run on the same file is refused with a clear error instead of interleaving or losing records.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { isProcessAlive } from "../audio/temp-dirs.js";
import { VoxError } from "../model/errors.js";

/** What the lock file holds. */
interface LockOwner {
  pid: number;
  host: string;
  started: string;
}

/** A held lock; release() removes it (also done at process exit). */
export interface OutputLock {
  readonly path: string;
  release(): void;
}

function readOwner(lockPath: string): LockOwner | null {
  try {
    const v = JSON.parse(readFileSync(lockPath, "utf8")) as Partial<LockOwner>;
    return typeof v.pid === "number" && typeof v.host === "string" ? { pid: v.pid, host: v.host, started: String(v.started ?? "") } : null;
  } catch {
    return null;
  }
}

/**
 * Lock `file` for this process. A lock left by a run that no longer exists (same host, dead pid) is
 * taken over; a live one (or one from another host, which cannot be probed) is an error naming the
 * owner and the lock file.
 */
export function lockOutputFile(file: string): OutputLock {
  const lockPath = `${file}.lock`;
  const owner: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new VoxError("IO_ERROR", `cannot create the lock file ${lockPath} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
      const other = readOwner(lockPath);
      const stale = other !== null && other.host === owner.host && !isProcessAlive(other.pid);
      if (stale && attempt === 0) {
        try {
          unlinkSync(lockPath);
        } catch {
          // Another run removed it first; the retry decides.
        }
        continue;
      }
      const who = other ? `run ${other.pid} on ${other.host}, started ${other.started}` : "another run";
      throw new VoxError("OUTPUT_LOCKED", `is being written by another voxmetrics ${who}; wait for it to finish, or delete ${lockPath} if that run is gone`, { file });
    }
    try {
      writeSync(fd, JSON.stringify(owner));
    } finally {
      closeSync(fd);
    }
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      process.off("exit", release);
      try {
        if (readOwner(lockPath)?.pid === process.pid) unlinkSync(lockPath);
      } catch {
        // Already gone.
      }
    };
    process.on("exit", release);
    return { path: lockPath, release };
  }
  throw new VoxError("OUTPUT_LOCKED", `could not take the lock ${lockPath}`, { file });
}
