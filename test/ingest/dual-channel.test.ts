// Dual-channel recordings: turns from per-channel speech activity, start times against known clip offsets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeAudio, writeWavPcm16 } from "../../src/audio/index.js";
import { buildPartyTurns, loadDualChannel } from "../../src/ingest/formats/dual-channel.js";
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
});
