// Done-when: against the reference agent with injected reply delays, latency_ms and assistant start_time are within 20 ms of the truth, for every connector, half and full duplex, and with 8 concurrent calls.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScriptedCalls, type CallRunResult, type CallerTurnRecord, type ConversationalTestCase } from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { CALLER_TTS, REPLY_TEXT, makeConnector, recordsOf, script, type CallbackTruth, type ConnectorKind } from "./live-helpers.js";
import { report } from "../helpers/report.js";

const TOLERANCE_MS = 20;
const DELAYS = [300, 800, 1500];

let out: string;
const agents = new Map<number, ReferenceAgent>();

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "vox-latency-"));
  for (const delayMs of DELAYS) agents.set(delayMs, await startReferenceAgent({ delayMs, vadSilenceMs: 200, replies: [REPLY_TEXT] }));
  // One unmeasured call per transport first: the accuracy under test is the steady state, not the
  // first call's just-in-time compilation of the socket, JSON and base64 paths (agent and caller
  // share this process).
  await runScriptedCalls(
    (["websocket", "realtime"] as const).map((k) => script(`warm-up-${k}`, [{ text: "Where is my order?" }])),
    (s) => makeConnector(s.name.endsWith("realtime") ? "realtime" : "websocket", agents.get(DELAYS[0])!),
    { outDir: join(out, "warm-up"), tts: CALLER_TTS, concurrency: 2 },
  );
});

afterAll(async () => {
  for (const a of agents.values()) await a.close();
  for (const a of agents.values()) expect(a.openConnections()).toBe(0);
  rmSync(out, { recursive: true, force: true });
});

interface Measured {
  kind: ConnectorKind;
  duplex: boolean;
  delayMs: number;
  /** measured − truth, ms */
  startErr: number;
  latencyErr: number;
  perceivedErr: number;
  latencyMs: number;
  /** The agent's own lateness against delayMs (its clock), ms. */
  agentLate: number;
}

const table: Measured[] = [];

/** Compare one captured call with the truth the agent (or the callback) recorded on the same clock. */
function check(kind: ConnectorKind, duplex: boolean, delayMs: number, r: CallRunResult, truths: CallbackTruth[]): Measured {
  expect(r.error, r.error?.message).toBeNull();
  const tc = r.testCase as ConversationalTestCase;
  expect(tc.turns.map((t) => t.role)).toEqual(["user", "assistant"]);
  const [user, assistant] = tc.turns;
  const userStart = user.audio!.start_time! * 1000;
  const userEnd = userStart + user.audio!.duration! * 1000;
  const speechEnd = userStart + (user.metadata!.speech_end_s as number) * 1000;
  const start = assistant.audio!.start_time! * 1000;
  const latency = assistant.latency_ms!;
  const perceived = assistant.metadata!.user_perceived_latency_ms as number;
  let startTruth: number, latencyTruth: number, perceivedTruth: number, agentLate: number;
  if (kind === "callback") {
    const t = truths[0];
    // The agent was called when the clip had been spoken; its reply starts when it returns.
    startTruth = userEnd + (t.returnedAt - t.invokedAt);
    latencyTruth = t.returnedAt - t.invokedAt; // half-duplex: the call's wall time; duplex: clip end → reply (the agent is called at clip end)
    perceivedTruth = userEnd - speechEnd + (t.returnedAt - t.invokedAt);
    agentLate = t.returnedAt - t.invokedAt - delayMs;
  } else {
    // The agent's record of this call: same protocol, caller burst begun when this call's first
    // uplink frame was sent (both on the host's monotonic clock). Calls sharing an agent in the
    // concurrent test differ in protocol.
    const sentAt = (r.record!.turns[0] as CallerTurnRecord).startedAt;
    const rec = agents.get(delayMs)!.records.filter((x) => x.utterance === 0 && x.protocol === (kind === "websocket" ? "generic" : "realtime")).reduce((a, b) => (Math.abs(b.callerFirstFrameAt - sentAt) < Math.abs(a.callerFirstFrameAt - sentAt) ? b : a));
    expect(Math.abs(rec.callerFirstFrameAt - sentAt)).toBeLessThan(50);
    expect(recordsOf(agents.get(delayMs)!, rec.connection)).toHaveLength(1);
    // Agent side, on the host clock: the reply's first frame relative to the caller's first frame.
    startTruth = userStart + (rec.replyFirstFrameAt! - rec.callerFirstFrameAt);
    latencyTruth = duplex
      ? rec.replyFirstFrameAt! - rec.callerFirstFrameAt - (userEnd - userStart) // §L8 duplex: first frame + clip duration → first agent audio
      : Math.max(0, rec.replyFirstFrameAt! - rec.callerBurstEndAt); // §L8 half-duplex: end of the padded uplink → first frame read
    perceivedTruth = rec.replyFirstFrameAt! - rec.callerSpeechEndAt;
    // How late the agent itself was against its schedule (its timers share the loaded machine): reported, not the measure under test.
    agentLate = perceivedTruth - delayMs;
  }
  const m = { kind, duplex, delayMs, agentLate, startErr: start - startTruth, latencyErr: latency - latencyTruth, perceivedErr: perceived - perceivedTruth, latencyMs: latency };
  expect(Math.abs(m.startErr), `start_time ${kind} ${duplex ? "duplex" : "half"} ${delayMs}`).toBeLessThan(TOLERANCE_MS);
  expect(Math.abs(m.latencyErr), `latency_ms ${kind} ${duplex ? "duplex" : "half"} ${delayMs}`).toBeLessThan(TOLERANCE_MS);
  expect(Math.abs(m.perceivedErr), `user-perceived ${kind} ${duplex ? "duplex" : "half"} ${delayMs}`).toBeLessThan(TOLERANCE_MS);
  table.push(m);
  return m;
}

async function runDelays(kind: ConnectorKind, duplex: boolean): Promise<void> {
  const truths = new Map(DELAYS.map((d) => [d, [] as CallbackTruth[]]));
  const scripts = DELAYS.map((d) => script(`${kind}-${duplex ? "duplex" : "half"}-${d}`, [{ text: "Where is my order?" }]));
  const { results } = await runScriptedCalls(scripts, (s) => {
    const d = DELAYS[scripts.indexOf(s)];
    return makeConnector(kind, agents.get(d)!, { delayMs: d, truths: truths.get(d) });
  }, { outDir: join(out, `${kind}-${duplex}`), tts: CALLER_TTS, duplex, concurrency: DELAYS.length });
  results.forEach((r, i) => check(kind, duplex, DELAYS[i], r, truths.get(DELAYS[i])!));
}

describe("latency and start_time accuracy against injected reply delays (300, 800, 1500 ms)", () => {
  for (const kind of ["callback", "websocket", "realtime"] as const) {
    for (const duplex of [false, true]) {
      it(`${kind}, ${duplex ? "duplex" : "half-duplex"}`, async () => {
        await runDelays(kind, duplex);
      });
    }
  }

  it("8 concurrent calls (connectors and delays mixed) stay within 20 ms", async () => {
    const plan: Array<[ConnectorKind, number, boolean]> = [
      ["websocket", 300, false], ["realtime", 800, false], ["realtime", 1500, true], ["websocket", 800, true],
      ["callback", 300, false], ["realtime", 300, true], ["websocket", 1500, false], ["callback", 800, true],
    ];
    const truths = plan.map(() => [] as CallbackTruth[]);
    const scripts = plan.map(([k, d, dup], i) => script(`c${i}-${k}-${d}-${dup ? "duplex" : "half"}`, [{ text: "Where is my order?" }]));
    // Half- and full-duplex calls need separate runs (the mode is per run); both run at once, 8 calls in flight.
    const runs = [false, true].map((dup) => {
      const idx = plan.map((p, i) => (p[2] === dup ? i : -1)).filter((i) => i >= 0);
      return runScriptedCalls(idx.map((i) => scripts[i]), (s) => {
        const i = scripts.indexOf(s);
        return makeConnector(plan[i][0], agents.get(plan[i][1])!, { delayMs: plan[i][1], truths: truths[i] });
      }, { outDir: join(out, `concurrent-${dup}`), tts: CALLER_TTS, duplex: dup, concurrency: idx.length }).then(({ results }) => results.map((r, j) => ({ r, i: idx[j] })));
    });
    const all = (await Promise.all(runs)).flat();
    expect(all).toHaveLength(8);
    for (const { r, i } of all) check(plan[i][0], plan[i][2], plan[i][1], r, truths[i]);
  });

  afterAll(() => {
    const f = (v: number) => v.toFixed(1).padStart(6);
    const lines = table.map((m) => `${m.kind.padEnd(9)} ${(m.duplex ? "duplex" : "half").padEnd(6)} ${String(m.delayMs).padStart(5)} ms  latency_ms ${f(m.latencyMs)}  Δstart ${f(m.startErr)}  Δlatency ${f(m.latencyErr)}  Δperceived ${f(m.perceivedErr)}  agent late ${f(m.agentLate)}`);
    report(`\nlatency accuracy (measured − truth, ms):\n${lines.join("\n")}`);
  });
});
