// Done-when: a batch of 20 datasets × 5 conversations with --concurrency 8, killed halfway and resumed, gives exactly the records of an uninterrupted run; a dropped connection gives error records and the rest of the batch completes.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReplay } from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { REPO, readJsonl, runOptions, speechClip, writeDataset } from "./helpers.js";

const RATE = 24000;
const DATASETS = 20;
const CONVERSATIONS = 5;
const DROPPED = { dataset: 7, conversation: 3 };
let work: string;
let input: string;
let agent: ReferenceAgent;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "vox-replay-batch-"));
  input = join(work, "datasets");
  const clip = speechClip("Yes", RATE, 9);
  for (let d = 1; d <= DATASETS; d++) {
    const name = `set-${String(d).padStart(2, "0")}`;
    writeDataset(
      join(input, name),
      `${name}.jsonl`,
      Array.from({ length: CONVERSATIONS }, (_, c) => ({
        clip,
        rate: RATE,
        wav: `c${c + 1}.wav`,
        line: {
          Question: "Yes.",
          Answer: `answer ${d}.${c + 1}`,
          conversationID: `${name}-c${c + 1}`,
          system_prompt: d === DROPPED.dataset && c + 1 === DROPPED.conversation ? "HANG UP on this caller." : "You are brief.",
        },
      })),
    );
  }
  agent = await startReferenceAgent({ delayMs: 50, vadSilenceMs: 200, replies: ["Ok."], hangUpIf: (s) => String(s.instructions).startsWith("HANG UP") });
});

afterAll(async () => {
  await agent.close();
  rmSync(work, { recursive: true, force: true });
});

function timingLines(out: string): number {
  let n = 0;
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".timing.jsonl")) n += readFileSync(join(d, e.name), "utf8").split("\n").filter((l) => l.trim()).length;
    }
  };
  walk(out);
  return n;
}

/** A record without what varies from run to run (latencies, timing): what a rerun must reproduce. */
function stable(r: Record<string, unknown>): Record<string, unknown> {
  const { metrics, ...rest } = r;
  const m = metrics as Record<string, unknown> | undefined;
  return m ? { ...rest, metric_keys: Object.keys(m), audio_response_received: m.audio_response_received } : rest;
}

function outputs(out: string): Map<string, Record<string, unknown>[]> {
  const map = new Map<string, Record<string, unknown>[]>();
  for (let d = 1; d <= DATASETS; d++) {
    const name = `set-${String(d).padStart(2, "0")}`;
    map.set(name, readJsonl(join(out, name, name, `${name}.jsonl`)).map(stable));
  }
  return map;
}

describe("batch of 20 datasets × 5 conversations, --concurrency 8", () => {
  it("killed halfway and resumed: exactly the records of an uninterrupted run; the dropped conversation yields error records", async () => {
    const killedOut = join(work, "killed");
    const url = `${agent.url}/realtime`;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(REPO, "test", "replay", "replay-entry.ts"), "replay", input, "--url", url, "--out", killedOut, "--concurrency", "8", "--drain-ms", "0", "--turn-gap-ms", "0", "--turn-timeout-ms", "5000"],
      { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (b) => (stderr += String(b)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Kill it once about half the conversations are written.
    const deadline = Date.now() + 60_000;
    while (timingLines(killedOut) < (DATASETS * CONVERSATIONS) / 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await exited;
    const before = timingLines(killedOut);
    expect(before, stderr).toBeGreaterThanOrEqual((DATASETS * CONVERSATIONS) / 2);
    expect(before).toBeLessThan(DATASETS * CONVERSATIONS);

    const options = { concurrency: 8, drainMs: 0, turnGapMs: 0, turnTimeoutMs: 5000 };
    const resumed = await runReplay(runOptions(input, killedOut, url, { ...options, resume: true }));
    // Every conversation whose timing lines were on disk is kept (a line cut by the kill is replayed).
    expect(resumed.skippedConversations).toBeGreaterThanOrEqual(before - 1);
    expect(resumed.skippedConversations).toBeLessThanOrEqual(before);
    const fresh = await runReplay(runOptions(input, join(work, "fresh"), url, options));

    for (const r of [resumed, fresh]) expect(r).toMatchObject({ datasets: DATASETS, conversations: DATASETS * CONVERSATIONS, records: DATASETS * CONVERSATIONS, errorRecords: 1 });
    const a = outputs(killedOut);
    const b = outputs(join(work, "fresh"));
    for (const [name, records] of b) {
      expect(records.length, name).toBe(CONVERSATIONS);
      expect(a.get(name), name).toEqual(records);
    }
    const dropped = b.get(`set-${String(DROPPED.dataset).padStart(2, "0")}`)![DROPPED.conversation - 1];
    expect(Object.keys(dropped)).toEqual(["conversation_id", "source_file", "error", "turn_number"]);
    expect(dropped.error).toMatch(/^connection lost: .*4001/);
    // One aggregate per run, counted once from what is on disk.
    for (const out of [killedOut, join(work, "fresh")]) {
      const summary = JSON.parse(readFileSync(join(out, "operational_summary.json"), "utf8"));
      expect(summary.operational_metrics).toMatchObject({ turns_processed: "100/100", expected_turns: 100, actual_turns: 100, turns_with_audio_response: 99 });
      expect(timingLines(out)).toBe(100);
    }
  }, 120_000);
});
