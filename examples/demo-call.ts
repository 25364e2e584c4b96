// `npm run demo:call`: starts the reference agent, runs `voxmetrics call` against it (realtime protocol, espeak-ng caller), then `voxmetrics score` on the folder.
import { execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { startReferenceAgent } from "./reference-agent.js";

const OUT = "voxmetrics-out/call";
const voxmetrics = (args: string[]) => execFileSync(process.execPath, ["bin/voxmetrics.js", ...args], { stdio: "inherit" });

const agent = await startReferenceAgent({ delayMs: 600, voice: "espeak" });
try {
  rmSync(OUT, { recursive: true, force: true });
  process.stderr.write(`reference agent on ${agent.url} (realtime protocol at /realtime)\n`);
  // execFileSync would block this process (and the agent in it), so the CLI runs as an async child.
  await new Promise<void>((resolve, reject) => {
    const args = ["call", "--connector", "realtime", "--url", `${agent.url}/realtime`, "--script", "examples/scripts/order-status.json", "--script", "examples/scripts/barge-in.json"];
    const child = spawn(process.execPath, ["bin/voxmetrics.js", ...args, "--duplex", "--concurrency", "2", "--out", OUT], { stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`voxmetrics call exited with ${code}`))));
  });
} finally {
  await agent.close();
}
voxmetrics(["score", OUT, "--out", `${OUT}/results.jsonl`, "--print-summary"]);
