// Makes sure the compiled worker exists (workers run dist/, not src/); `npm test` builds first, this covers a bare `vitest run`.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./shared.js";

export function ensureBuilt(): void {
  if (existsSync(join(REPO_ROOT, "dist", "pool", "worker.js"))) return;
  try {
    execFileSync(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: REPO_ROOT, stdio: "ignore" });
  } catch {
    if (!existsSync(join(REPO_ROOT, "dist", "pool", "worker.js"))) throw new Error("could not build dist/ (run `npm run build`)");
  }
}
