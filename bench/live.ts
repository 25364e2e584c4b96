// Live-capture benchmark: lateness and jitter of the paced 20 ms uplink frames, 1 call vs 8 concurrent calls, in alternating runs (medians).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RealtimeConnector, parseScript, runScriptedCalls, type CallerTurnRecord } from "../src/index.js";
import { percentile } from "../src/analysis/percentile.js";
import { SyntheticTts } from "../examples/synthetic-speech.js";

const PAIRS = 3;
const CONCURRENT = 8;

interface Figures {
  calls: number;
  frames: number;
  p50LateMs: number;
  p99LateMs: number;
  maxLateMs: number;
  /** p99 of |interval − 20 ms| between consecutive frames. */
  p99JitterMs: number;
  /** Lateness of the last frame of each turn minus the first's, worst case: 0 means no drift. */
  maxDriftMs: number;
}

const sorted = (v: number[]) => [...v].sort((a, b) => a - b);

/** The reference agent in its own process, so only the callers share this event loop. */
async function startAgent(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/reference-agent.ts", "--port", "0", "--protocol", "realtime", "--delay-ms", "300", "--vad-silence-ms", "300"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`reference agent exited (${code})`)));
  });
  return { url: line.trim(), stop: () => child.kill("SIGTERM") };
}

async function runOnce(url: string, calls: number, tts: SyntheticTts): Promise<Figures> {
  const out = mkdtempSync(join(tmpdir(), "vox-bench-live-"));
  try {
    const scripts = Array.from({ length: calls }, (_, i) =>
      parseScript({ name: `c${i}`, turns: [{ text: "Hi, I need help with an order I placed last week." }, { text: "It is number four two seven, thank you." }] }, "/", "bench", `c${i}`),
    );
    const { results } = await runScriptedCalls(scripts, () => new RealtimeConnector({ url, turnDetection: "eager" }), { outDir: out, tts, duplex: true, concurrency: calls });
    const late: number[] = [];
    const jitter: number[] = [];
    let drift = 0;
    for (const r of results) {
      if (r.error) throw r.error;
      for (const t of r.record!.turns) {
        if (t.role !== "user") continue;
        const l = (t as CallerTurnRecord).frameLatenessMs;
        late.push(...l);
        for (let k = 1; k < l.length; k++) jitter.push(Math.abs(l[k] - l[k - 1]));
        drift = Math.max(drift, Math.abs(l[l.length - 1] - l[0]));
      }
    }
    const s = sorted(late);
    return { calls, frames: late.length, p50LateMs: percentile(s, 50)!, p99LateMs: percentile(s, 99)!, maxLateMs: s[s.length - 1], p99JitterMs: percentile(sorted(jitter), 99)!, maxDriftMs: drift };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function benchLive(): Promise<void> {
  const agent = await startAgent();
  const tts = new SyntheticTts({ pitchHz: 120 });
  const runs: Figures[] = [];
  try {
    for (let p = 0; p < PAIRS; p++) {
      for (const n of [1, CONCURRENT]) {
        const f = await runOnce(agent.url, n, tts);
        runs.push(f);
        process.stdout.write(
          `pair ${p + 1}, ${String(n).padStart(2)} call(s): ${f.frames} frames · lateness p50 ${f.p50LateMs.toFixed(2)} ms, p99 ${f.p99LateMs.toFixed(2)} ms, max ${f.maxLateMs.toFixed(2)} ms · p99 jitter ${f.p99JitterMs.toFixed(2)} ms · max drift ${f.maxDriftMs.toFixed(2)} ms\n`,
        );
      }
    }
  } finally {
    agent.stop();
  }
  for (const n of [1, CONCURRENT]) {
    const of = runs.filter((r) => r.calls === n);
    const med = (k: keyof Figures) => percentile(sorted(of.map((r) => r[k] as number)), 50)!.toFixed(2);
    process.stdout.write(`median of ${of.length} runs, ${n} call(s): p99 lateness ${med("p99LateMs")} ms, p99 jitter ${med("p99JitterMs")} ms, max drift ${med("maxDriftMs")} ms\n`);
  }
  process.stdout.write("(2 shared cores: figures are noisy; each frame is sent at t0 + k·20 ms, so lateness never accumulates)\n");
}
