// deepeval simulation folders: turn order, and start times recovered exactly from deepeval-conversation.wav.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/audio/index.js";
import { locateClipsInMix } from "../../src/dsp/locate.js";
import { listSimTurnFiles, loadSimConversation } from "../../src/ingest/formats/deepeval-sim.js";
import { Audio } from "../../src/model/audio.js";
import { resolveScoreOptions } from "../../src/scoring/options.js";
import { scoreLoadedCall } from "../../src/scoring/score-test-case.js";
import { REPO_ROOT, sharedDir } from "../helpers/shared.js";

const shared = sharedDir();
const tmp = mkdtempSync(join(tmpdir(), "vx-sim-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function lcg(n: number, seed: number, amplitude: number): Int16Array {
  const out = new Int16Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = Math.round(((s / 0x7fffffff) * 2 - 1) * amplitude * Math.sin((Math.PI * i) / n));
  }
  return out;
}

function mix(clips: Int16Array[], offsets: number[]): Int16Array {
  const len = Math.max(...clips.map((c, i) => c.length + offsets[i]));
  const sum = new Int32Array(len);
  clips.forEach((c, i) => c.forEach((x, k) => (sum[offsets[i] + k] += x)));
  return Int16Array.from(sum, (x) => Math.max(-32768, Math.min(32767, x)));
}

describe("listSimTurnFiles", () => {
  it("orders by n, user before assistant, and ignores other files", () => {
    const names = ["deepeval-turn-2-assistant.wav", "deepeval-conversation.wav", "deepeval-turn-10-user.mp3", "deepeval-turn-0-assistant.wav", "deepeval-turn-2-user.wav", "notes.txt"];
    expect(listSimTurnFiles("", names).map((f) => f.name)).toEqual([
      "deepeval-turn-0-assistant.wav",
      "deepeval-turn-2-user.wav",
      "deepeval-turn-2-assistant.wav",
      "deepeval-turn-10-user.mp3",
    ]);
  });
});

describe("locateClipsInMix", () => {
  it("places separate clips, overlapping clips (on their free parts) and leaves unplaceable ones null", () => {
    const a = lcg(8000, 1, 8000);
    const b = lcg(6000, 2, 8000);
    const c = lcg(5000, 3, 8000);
    const absent = lcg(4000, 4, 8000);
    const m = mix([a, b, c], [0, 7000, 15000]);
    expect(locateClipsInMix(m, [a, b, c, absent, null])).toEqual([0, 7000, 15000, null, null]);
  });

  it("tolerates clamped samples", () => {
    const a = lcg(8000, 5, 30000);
    const b = lcg(8000, 6, 30000);
    const m = mix([a, b], [0, 4000]);
    expect(m.some((x) => x === 32767 || x === -32768)).toBe(true);
    expect(locateClipsInMix(m, [a, b])).toEqual([0, 4000]);
  });

  it("refuses an ambiguous placement (the same clip twice in the mix)", () => {
    const a = lcg(4000, 7, 8000);
    expect(locateClipsInMix(mix([a, a], [0, 6000]), [a])).toEqual([null]);
  });

  it("places identical clips of several turns in turn order when the mix holds exactly that many copies", () => {
    const a = lcg(4000, 7, 8000);
    const b = lcg(3000, 8, 8000);
    expect(locateClipsInMix(mix([a, b, a], [0, 5000, 9000]), [a, b, Int16Array.from(a)])).toEqual([0, 5000, 9000]);
  });
});

describe("loadSimConversation", () => {
  it.skipIf(!shared)("recovers every start time of deepeval's real simulation exactly (alignment.json)", () => {
    const dir = join(shared!, "parity", "deepeval-sim");
    const truth = JSON.parse(readFileSync(join(dir, "alignment.json"), "utf8")).clips as Record<string, { start_time_s: number }>;
    const { testCase, warnings } = loadSimConversation(dir);
    expect(warnings).toEqual([]);
    expect(testCase.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"]);
    for (const t of testCase.turns) {
      const name = (t.metadata as { source_file: string }).source_file;
      expect(t.audio!.start_time).toBe(truth[name].start_time_s);
      expect(t.content).toBe("");
      expect(t.audio!.mimeType).toBe("audio/wav");
    }
  });

  it("recovers the bundled sample's start times, including a barge-in", () => {
    const dir = join(REPO_ROOT, "fixtures", "sample-archive", "deepeval-runs", "simulation-2026-01-15_09-30-00");
    const truth = JSON.parse(readFileSync(join(dir, "..", "..", "..", "sample-archive-truth.json"), "utf8")).start_times as Record<string, number>;
    const { testCase } = loadSimConversation(dir);
    for (const t of testCase.turns) {
      const name = (t.metadata as { source_file: string }).source_file;
      expect(Math.abs(t.audio!.start_time! - truth[name])).toBeLessThan(1 / 8000);
    }
  });

  it("leaves start times null without the combined render, and for clips at another rate", () => {
    const a = lcg(8000, 11, 8000);
    const b = lcg(8000, 12, 8000);
    writeFileSync(join(tmp, "deepeval-turn-1-user.wav"), writeWavPcm16(a, 8000));
    writeFileSync(join(tmp, "deepeval-turn-1-assistant.wav"), writeWavPcm16(b, 16000));
    const bare = loadSimConversation(tmp);
    expect(bare.testCase.turns.map((t) => t.audio!.start_time)).toEqual([null, null]);
    expect(bare.warnings.join(" ")).toMatch(/no deepeval-conversation\.wav/);
    writeFileSync(join(tmp, "deepeval-conversation.wav"), writeWavPcm16(mix([a, b], [0, 9000]), 8000));
    const withMix = loadSimConversation(tmp);
    expect(withMix.testCase.turns.map((t) => t.audio!.start_time)).toEqual([0, null]);
    expect(withMix.warnings.join(" ")).toMatch(/left null for deepeval-turn-1-assistant\.wav/);
    expect(loadSimConversation(tmp, { inferStartTimes: false }).testCase.turns[0].audio!.start_time).toBeNull();
  });

  it("maps extensions to MIME types", () => {
    const dir = mkdtempSync(join(tmp, "mime-"));
    copyFileSync(join(REPO_ROOT, "fixtures", "sample-archive", "clips", "user-1.wav"), join(dir, "deepeval-turn-1-user.mp3"));
    expect(loadSimConversation(dir).testCase.turns[0].audio!.mimeType).toBe("audio/mpeg");
  });
});

describe("turns read from their files, never held", () => {
  /** A folder of `turns` distinct clips at 8 kHz, some barging in, and its render. */
  function simFolder(name: string, turns: number): { dir: string; clips: Int16Array[]; offsets: number[] } {
    const dir = mkdtempSync(join(tmp, `${name}-`));
    const clips: Int16Array[] = [];
    const offsets: number[] = [];
    let at = 500;
    for (let i = 0; i < turns; i++) {
      const c = lcg(3000 + 700 * (i % 5), 100 + i, 9000);
      clips.push(c);
      offsets.push(at);
      writeFileSync(join(dir, `deepeval-turn-${Math.floor(i / 2)}-${i % 2 ? "assistant" : "user"}.wav`), writeWavPcm16(c, 8000));
      at += c.length + (i % 4 === 3 ? -600 : 400);
    }
    writeFileSync(join(dir, "deepeval-conversation.wav"), writeWavPcm16(mix(clips, offsets), 8000));
    return { dir, clips, offsets };
  }

  it("dumps each turn as Audio.fromBytes of its file did, and reads the file again each time its bytes are asked for", () => {
    const { dir, offsets } = simFolder("dump", 6);
    const { testCase } = loadSimConversation(dir);
    const names = listSimTurnFiles(dir).map((f) => f.name);
    expect(testCase.turns.map((t) => t.audio!.start_time)).toEqual(offsets.map((o) => o / 8000));
    testCase.turns.forEach((t, i) => {
      const bytes = new Uint8Array(readFileSync(join(dir, names[i])));
      const before = Audio.fromBytes(bytes, "audio/wav", { start_time: offsets[i] / 8000 });
      expect(JSON.stringify(t.audio)).toBe(JSON.stringify(before));
      expect(t.audio!.getBytes()).toEqual(bytes);
      expect([t.audio!.url, t.audio!.path, t.audio!.local, t.audio!.hasBytes]).toEqual([null, null, null, true]);
    });
    // Nothing of the file is held: bytes written after loading are what the turn gives.
    const changed = writeWavPcm16(lcg(1234, 9, 5000), 8000);
    writeFileSync(join(dir, names[2]), changed);
    expect(testCase.turns[2].audio!.getBytes()).toEqual(changed);
    expect(testCase.turns[2].audio!.getBase64()).toBe(Buffer.from(changed).toString("base64"));
  });

  it("under --compat deepeval keeps only the decoded clips that fit its budget, and scores the same as keeping them all", () => {
    const { dir } = simFolder("budget", 10);
    const all = loadSimConversation(dir, { compat: "deepeval" });
    const few = loadSimConversation(dir, { compat: "deepeval" }, { keepDecodedBytes: 20000 });
    expect(all.decoded?.byTurn.size).toBe(10);
    // Clips in file order, each that still fits in 20,000 bytes: 3000 + 3700 samples, then 3000 (turn 5).
    expect([...few.decoded!.byTurn.keys()]).toEqual([0, 1, 5]);
    expect(few.testCase.turns.map((t) => t.audio!.start_time)).toEqual(all.testCase.turns.map((t) => t.audio!.start_time));
    const options = resolveScoreOptions({ compat: "deepeval" });
    const none = loadSimConversation(dir, { compat: "voxmetrics" });
    expect(none.decoded?.byTurn.size).toBe(0);
    const want = JSON.stringify(scoreLoadedCall(all, options));
    expect(JSON.stringify(scoreLoadedCall(few, options))).toBe(want);
    expect(JSON.stringify(scoreLoadedCall({ ...none, decoded: undefined }, options))).toBe(want);
  });
});
