#!/usr/bin/env -S node --max-semi-space-size=1
// The voxmetrics command: runs the compiled CLI in dist/ (built by `npm install` / `npm run build`).
// The shebang gives the main thread the small young generation the scoring workers get (src/pool/pool.ts):
// V8 otherwise grows it with the bytes a run allocates, so a 4-hour `analyze --set loudness` peaked
// about 10 MB above a 10-minute one (77–78 → 87–90 MB; with it 73–75 → 74–78 MB), at no cost in speed
// (4 h: 4.8–5.4 s against 5.7–6.4 s, two runs each). `node bin/voxmetrics.js` runs without it.
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
