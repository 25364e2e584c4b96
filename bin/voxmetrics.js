#!/usr/bin/env node
// The voxmetrics command: runs the compiled CLI in dist/ (built by `npm install` / `npm run build`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("voxmetrics: not built yet; run `npm run build` (npm install does it) in the package folder.\n");
  process.exit(1);
}
// A reader that stops early (`voxmetrics score … | head`) closes the pipe: stop quietly, as Unix tools do.
// Any other write error on stdout (a full disk) is reported by the CLI's stdout guard (src/cli/stdout-guard.ts): one line, exit 1.
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(0);
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
