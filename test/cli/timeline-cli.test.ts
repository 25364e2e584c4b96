// `voxmetrics timeline` through the built CLI: --id by name, the turn text in the table, latencies only over caller → agent responses, percentiles with their count.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { jsonLines, runVoxmetrics } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const SAMPLE = join(REPO_ROOT, "fixtures", "sample-archive");
const MORE = join(SAMPLE, "calls", "more.jsonl");
const tmp = mkdtempSync(join(tmpdir(), "vx-timeline-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("voxmetrics timeline", () => {
  it("--id takes a call name as well as an id", () => {
    const byName = runVoxmetrics(["timeline", MORE, "--id", "barge-in"]);
    const byId = runVoxmetrics(["timeline", MORE, "--id", "more.jsonl#0"]);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toBe(byId.stdout);
    const id = jsonLines(byName.stdout)[0].id;
    expect(bareId(id)).toBe("more.jsonl#0");
    // The full id (as score writes it) names the same call.
    expect(runVoxmetrics(["timeline", MORE, "--id", id]).stdout).toBe(byId.stdout);
  });

  it("--text shows each turn's text and the latency count with the percentiles it supports", () => {
    const r = runVoxmetrics(["timeline", MORE, "--id", "barge-in", "--text"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").map((l) => l.replace(/@[0-9a-f]{10} /, " "))).toEqual([
      'more.jsonl#0 "barge-in" (deepeval-jsonl)',
      "",
      '     0.000 →    1.900  turn   0  user       "Hi, I need help with my order."',
      '     2.200 →    4.042  turn   1  assistant  "Sure. What is the order number?"',
      '     3.642 →    4.858  turn   2  user       "Four seven two nine."',
      '     5.358 →    7.200  turn   3  assistant  "Thanks. It ships tomorrow."',
      "",
      "transitions:",
      "  turn 0 → 1  gap              300 ms",
      "  turn 1 → 2  user_barge_in   -400 ms",
      "  turn 2 → 3  gap              500 ms",
      "",
      "response latency over 2 caller → agent transition(s): p50 400 ms, p95 – (needs 20 samples), p99 – (needs 100 samples)",
      "",
    ]);
  });

  it("clips that both start at 0 give no response latency (not −1,900 ms)", () => {
    copyFileSync(join(SAMPLE, "clips", "user-1.wav"), join(tmp, "user-1.wav"));
    copyFileSync(join(SAMPLE, "clips", "agent-1.wav"), join(tmp, "agent-1.wav"));
    const call = {
      name: "both-at-zero",
      turns: [
        { role: "user", content: "Hi, I need help with my order.", audio: { url: "user-1.wav", start_time: 0 } },
        { role: "assistant", content: "Sure.", audio: { url: "agent-1.wav", start_time: 0 } },
      ],
    };
    writeFileSync(join(tmp, "zero.json"), JSON.stringify(call));
    const r = runVoxmetrics(["timeline", join(tmp, "zero.json")]);
    expect(r.code).toBe(0);
    const t = jsonLines(r.stdout)[0];
    expect(t.transitions).toHaveLength(1);
    expect(t.transitions[0].gap_seconds).toBeLessThan(0);
    expect(t.latency_ms).toEqual({ count: 0, p50: null, p95: null, p99: null });
  });
});
