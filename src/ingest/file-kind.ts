// What a path names, told from stat alone (never opening it): special files (FIFOs, devices, sockets) are refused, since reading one can block forever or never end.
import { lstatSync, statSync, type Stats } from "node:fs";

/** A path's kind after following symlinks; `special` carries what it is. */
export type PathKind = { kind: "file"; size: number } | { kind: "dir" } | { kind: "special"; what: string } | { kind: "missing" } | { kind: "error"; code: string };

/** The name of a special file's type, as messages say it. */
export function specialFileName(s: Stats): string {
  if (s.isFIFO()) return "a FIFO (named pipe)";
  if (s.isCharacterDevice()) return "a character device";
  if (s.isBlockDevice()) return "a block device";
  if (s.isSocket()) return "a socket";
  return "not a regular file";
}

/** Stat `path` (following symlinks, without opening it) and classify it. */
export function pathKind(path: string): PathKind {
  let s: Stats;
  try {
    s = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "EIO";
    if (code === "ENOENT" || code === "ENOTDIR") {
      // A dangling symlink exists but names nothing.
      try {
        lstatSync(path);
        return { kind: "error", code: "a symlink to a missing target" };
      } catch {
        return { kind: "missing" };
      }
    }
    return { kind: "error", code };
  }
  if (s.isFile()) return { kind: "file", size: s.size };
  if (s.isDirectory()) return { kind: "dir" };
  return { kind: "special", what: specialFileName(s) };
}

/** Why `path` cannot be read as a regular file (special, missing…), or null when it is one. */
export function regularFileProblem(path: string): { code: "UNSUPPORTED_INPUT" | "IO_ERROR"; why: string } | null {
  const k = pathKind(path);
  if (k.kind === "file") return null;
  if (k.kind === "special") return { code: "UNSUPPORTED_INPUT", why: `${k.what}, not a regular file; refused without opening it` };
  if (k.kind === "dir") return { code: "UNSUPPORTED_INPUT", why: "a folder, not a file" };
  if (k.kind === "missing") return { code: "IO_ERROR", why: "no such file" };
  return { code: "IO_ERROR", why: `cannot read the file (${k.code})` };
}
