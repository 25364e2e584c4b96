// Dual-channel recordings: turns from per-channel speech activity, start times against known clip offsets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeAudio, writeWavPcm16 } from "../../src/audio/index.js";
import { buildPartyTurns, loadDualChannel } from "../../src/ingest/formats/dual-channel.js";
import { analyzeParity } from "../../src/analysis/parity.js";
import { REPO_ROOT } from "../helpers/shared.js";

const CLIPS = join(REPO_ROOT, "fixtures", "sample-archive", "clips");
const RATE = 8000;
const tmp = mkdtempSync(join(tmpdir(), "vx-dual-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const clip = (name: string) => decodeAudio(readFileSync(join(CLIPS, `${name}.wav`))).samples;

/** Stereo WAV with clips at known offsets on each channel plus faint deterministic noise. */
function recording(left: Array<[string, number]>, right: Array<[string, number]>, channels = 2): Uint8Array {
  const placed = [...left.map(([n, s]) => [clip(n), s, 0] as const), ...right.map(([n, s]) => [clip(n), s, 1] as const)];
  const frames = Math.max(...placed.map(([c, s]) => Math.round(s * RATE) + c.length)) + RATE;
  const out = new Int16Array(frames * channels);
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = (seed % 31) - 15;
  }
  for (const [c, s, ch] of placed) c.forEach((x, k) => (out[(Math.round(s * RATE) + k) * channels + ch] = x));
  return writeWavPcm16(out, RATE, channels);
}

describe("buildPartyTurns", () => {
  it("joins a party's segments across short gaps unless the other party starts inside the gap", () => {
    const turns = buildPartyTurns(
      [[0, 1], [1.5, 2], [5, 6], [6.5, 7]],
      [[2.4, 4], [6.2, 6.4]],
    );
    expect(turns.map((t) => [t.role, t.start, t.end])).toEqual([
      ["user", 0, 2],
      ["assistant", 2.4, 4],
      ["user", 5, 6],
      ["assistant", 6.2, 6.4],
      ["user", 6.5, 7],
    ]);
    expect(buildPartyTurns([[0, 1], [2.5, 3]], []).map((t) => t.start)).toEqual([0, 2.5]);
    expect(buildPartyTurns([[1, 2]], [[1, 2]]).map((t) => t.role)).toEqual(["user", "assistant"]);
  });
});

describe("loadDualChannel", () => {
  const truth: Array<[string, number]> = [
    ["user-1", 0.5],
    ["agent-1", 3.0],
    ["user-2", 5.35],
    ["agent-2", 6.2],
    ["user-3", 9.1],
    ["agent-3", 10.9],
  ];
  const callerSide = truth.filter(([n]) => n.startsWith("user"));
  const agentSide = truth.filter(([n]) => n.startsWith("agent"));

  it("gives back every turn within 30 ms of the clips' true offsets (overlap included)", () => {
    const path = join(tmp, "call.wav");
    writeFileSync(path, recording(callerSide, agentSide));
    const { testCase } = loadDualChannel(path);
    const got = testCase.turns.map((t) => [t.role, t.audio!.start_time!] as const);
    expect(got.map(([r]) => r)).toEqual(truth.map(([n]) => (n.startsWith("user") ? "user" : "assistant")));
    const errorsMs = got.map(([, s], i) => Math.abs(s - truth[i][1]) * 1000);
    expect(Math.max(...errorsMs)).toBeLessThan(30);
    for (const t of testCase.turns) {
      const d = decodeAudio(t.audio!.getBytes());
      expect(d.channels).toBe(1);
      expect(d.frames / RATE).toBeCloseTo(t.audio!.duration!, 6);
    }
    expect(testCase.metadata).toMatchObject({ source_format: "dual-channel", caller_channel: 0, agent_channel: 1, sample_rate: RATE });
  });

  it("honours --agent-channel left and the sidecar (mapping, end reason, transcript, name)", () => {
    const path = join(tmp, "swapped.wav");
    writeFileSync(path, recording(agentSide, callerSide));
    const left = loadDualChannel(path, { agentChannel: "left" }).testCase;
    expect(left.turns[0].role).toBe("user");
    expect(Math.abs(left.turns[0].audio!.start_time! - 0.5)).toBeLessThan(0.03);

    writeFileSync(
      join(tmp, "swapped.json"),
      JSON.stringify({ caller_channel: 1, agent_channel: 0, end_reason: "customer_hangup", name: "swapped-call", transcript: [{ role: "user", start: 0.5, end: 2.3, text: "hello" }, { role: "user", start: 0.9, end: 1.0, text: "there" }] }),
    );
    const side = loadDualChannel(path).testCase;
    expect(side.name).toBe("swapped-call");
    expect(side.metadata!.end_reason).toBe("customer_hangup");
    expect(side.turns[0]).toMatchObject({ role: "user", content: "hello there" });
  });

  it("refuses mono files and unmapped multichannel files with clear errors", () => {
    const mono = join(tmp, "mono.wav");
    writeFileSync(mono, writeWavPcm16(clip("user-1"), RATE, 1));
    expect(() => loadDualChannel(mono)).toThrow(/needs 2 channels, this one has 1/);
    const three = join(tmp, "three.wav");
    writeFileSync(three, recording(callerSide, agentSide, 3));
    expect(() => loadDualChannel(three)).toThrow(/3 channels: name caller_channel and agent_channel/);
  });

  it("reads the bundled FLAC recording", () => {
    const { testCase } = loadDualChannel(join(REPO_ROOT, "fixtures", "sample-archive", "recordings", "call-0001.flac"));
    const sidecar = JSON.parse(readFileSync(join(REPO_ROOT, "fixtures", "sample-archive", "recordings", "call-0001.json"), "utf8"));
    expect(testCase.turns.map((t) => t.content)).toEqual(sidecar.transcript.map((s: { text: string }) => s.text));
    testCase.turns.forEach((t, i) => expect(Math.abs(t.audio!.start_time! - sidecar.transcript[i].start)).toBeLessThan(0.03));
  });

  it("keeps a turn's natural decay, so a clean clip cut at a segment boundary does not end abruptly", () => {
    const measured = (pcm: Int16Array) => analyzeParity(pcm, RATE);
    // The premise: in the recording each clip is followed by silence, so nothing is cut mid-voice
    // (each clip with 50 ms of silence after it does not end abruptly).
    for (const [name] of truth) {
      const c = clip(name);
      const padded = new Int16Array(c.length + RATE / 20);
      padded.set(c);
      expect(measured(padded).ends_abruptly, name).toBe(false);
    }
    const path = join(tmp, "decay.wav");
    writeFileSync(path, recording(callerSide, agentSide));
    const { testCase } = loadDualChannel(path);
    testCase.turns.forEach((t, i) => {
      const pcm = decodeAudio(t.audio!.getBytes()).samples;
      expect(measured(pcm).ends_abruptly, `turn ${i}`).toBe(false);
      // At most 0.3 s of decay past the detected speech, and the decay never reaches into the next turn.
      const segments = (t.metadata as { speech_segments: Array<[number, number]> }).speech_segments;
      const speechEnd = segments[segments.length - 1][1];
      const end = t.audio!.start_time! + t.audio!.duration!;
      expect(end).toBeGreaterThanOrEqual(speechEnd - 1 / RATE);
      expect(end).toBeLessThanOrEqual(speechEnd + 0.3 + 1 / RATE);
      const next = testCase.turns[i + 1];
      if (next) expect(end).toBeLessThanOrEqual(Math.max(speechEnd, next.audio!.start_time!) + 1 / RATE);
    });
    const sample = loadDualChannel(join(REPO_ROOT, "fixtures", "sample-archive", "recordings", "call-0001.flac")).testCase;
    for (const t of sample.turns) expect(measured(decodeAudio(t.audio!.getBytes()).samples).ends_abruptly).toBe(false);
  });

  it("a voice cut off by the end of the recording still ends abruptly", () => {
    const user = clip("user-1");
    const agent = clip("agent-1");
    const cut = Math.round(agent.length * 0.6);
    const agentAt = user.length + RATE / 2;
    const frames = agentAt + cut;
    const out = new Int16Array(frames * 2);
    user.forEach((x, k) => (out[k * 2] = x));
    for (let k = 0; k < cut; k++) out[(agentAt + k) * 2 + 1] = agent[k];
    expect(measured16(agent.subarray(0, cut))).toBe(true);
    const path = join(tmp, "cut.wav");
    writeFileSync(path, writeWavPcm16(out, RATE, 2));
    const turns = loadDualChannel(path).testCase.turns;
    expect(turns.map((t) => t.role)).toEqual(["user", "assistant"]);
    expect(measured16(decodeAudio(turns[1].audio!.getBytes()).samples)).toBe(true);
  });
});

function measured16(pcm: Int16Array): boolean {
  return analyzeParity(pcm, RATE).ends_abruptly;
}
