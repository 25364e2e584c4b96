// Locates the shared parity set (../shared beside the checkout, or $VOXMETRICS_SHARED) for conformance tests.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The shared folder, or null when it is absent (tests then skip with a message). */
export function sharedDir(): string | null {
  const candidates = [process.env.VOXMETRICS_SHARED, join(REPO_ROOT, "..", "shared")].filter(Boolean) as string[];
  for (const c of candidates) if (existsSync(join(c, "parity", "expected.jsonl"))) return c;
  return null;
}
