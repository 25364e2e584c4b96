// Simulation folders whose combined render is read from disk chunk by chunk (never whole in JavaScript) recover the same start times and warnings as decoding the render whole did, at any chunk size.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeAudio, downmixTruncating, writeWavPcm16 } from "../../src/audio/index.js";
import { openCompatRecordingReader } from "../../src/audio/wav-range.js";
import { LOCATE_MAX_SEARCH_SAMPLES, LOCATE_WINDOW_SAMPLES, locateClipsInMix } from "../../src/dsp/locate.js";
import { listSimTurnFiles, loadSimConversation } from "../../src/ingest/formats/deepeval-sim.js";
import { buildWav } from "../audio/wav-builder.js";
import { seededRandom } from "../helpers/random.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-sim-stream-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A clip: a noisy tone with a syllable envelope (distinctive enough to be placed). */
function clip(seconds: number, rate: number, random: () => number): Int16Array {
  const n = Math.round(seconds * rate);
  const f = 120 + 200 * random();
  return Int16Array.from({ length: n }, (_, k) => Math.round((0.5 + 0.5 * Math.sin((2 * Math.PI * 4 * k) / rate)) * (6000 * Math.sin((2 * Math.PI * f * k) / rate) + 1500 * (random() - 0.5))));
}

/** deepeval's render: the clamped int32 sum of the clips at their offsets. */
function render(clips: Int16Array[], offsets: number[]): Int16Array {
  const len = Math.max(...clips.map((c, i) => c.length + offsets[i])) + 1000;
  const sum = new Int32Array(len);
  clips.forEach((c, i) => c.forEach((x, k) => (sum[offsets[i] + k] += x)));
  return Int16Array.from(sum, (x) => Math.max(-32768, Math.min(32767, x)));
}

/** A simulation folder of `turns` clips (some overlapping) and its render as `renderBytes` makes it. */
function folder(name: string, rate: number, turns: number, seed: number, renderBytes: (mono: Int16Array) => Uint8Array, sameAs?: (i: number) => number): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const random = seededRandom(seed);
  const clips: Int16Array[] = [];
  const offsets: number[] = [];
  let at = Math.round(0.2 * rate);
  for (let i = 0; i < turns; i++) {
    const fresh = clip(0.5 + 1.5 * random(), rate, random);
    // A turn that says what an earlier one said: the same samples in its own file.
    const c = sameAs && sameAs(i) < i ? clips[sameAs(i)] : fresh;
    clips.push(c);
    offsets.push(at);
    writeFileSync(join(dir, `deepeval-turn-${Math.floor(i / 2)}-${i % 2 ? "assistant" : "user"}.wav`), writeWavPcm16(c, rate));
    // Every fourth turn barges in on the previous one.
    at += c.length + Math.round((i % 4 === 3 ? -0.3 : 0.2 + random()) * rate);
  }
  writeFileSync(join(dir, "deepeval-conversation.wav"), renderBytes(render(clips, offsets)));
  return dir;
}

/** What the folder gave when its render was decoded whole and searched whole (the code before streaming and windowing): start times and warnings. */
function wholeStarts(dir: string): { starts: Array<number | null>; warnings: string[] } {
  const files = listSimTurnFiles(dir);
  const name = "deepeval-conversation.wav";
  const warnings: string[] = [];
  let starts: Array<number | null>;
  try {
    const mix = decodeAudio(new Uint8Array(readFileSync(join(dir, name))), { compat: "deepeval", name });
    const clips = files.map((f) => {
      const d = decodeAudio(new Uint8Array(readFileSync(join(dir, f.name))), { compat: "deepeval" });
      return d.sampleRate === mix.sampleRate ? downmixTruncating(d.samples, d.channels) : null;
    });
    starts = locateClipsInMix(downmixTruncating(mix.samples, mix.channels), clips, { search: "whole" }).map((o) => (o === null ? null : o / mix.sampleRate));
  } catch (e) {
    warnings.push(`${name} is not readable (${(e as Error).message}); start times unknown`);
    starts = files.map(() => null);
  }
  const missing = files.filter((_, i) => starts[i] === null).map((f) => f.name);
  if (missing.length > 0) warnings.push(`start_time left null for ${missing.join(", ")}: not placeable exactly in ${name}`);
  return { starts, warnings };
}

function expectSameAsWhole(dir: string, chunkFrames?: number): Array<number | null> {
  const want = wholeStarts(dir);
  const { testCase, warnings } = loadSimConversation(dir, {}, { chunkFrames });
  const starts = testCase.turns.map((t) => t.audio!.start_time);
  expect({ starts, warnings }).toEqual(want);
  return starts;
}

/** A stereo render whose channels differ by one unit on odd samples, so deepeval's truncating mix matters. */
function stereo(mono: Int16Array, rate: number): Uint8Array {
  const out = new Int16Array(mono.length * 2);
  mono.forEach((x, i) => ((out[2 * i] = x), (out[2 * i + 1] = i % 2 && x < 32767 ? x + 1 : x)));
  return writeWavPcm16(out, rate, 2);
}

describe("simulation folders: the render streamed from disk ≡ decoded whole", () => {
  it("a mono render at 24 kHz: every start time placed, the same as before", () => {
    const starts = expectSameAsWhole(folder("mono24", 24000, 9, 1, (m) => writeWavPcm16(m, 24000)));
    expect(starts.filter((s) => s !== null).length).toBeGreaterThanOrEqual(7);
  });

  it("a stereo render (deepeval's truncating mix) at 16 kHz, at chunk sizes 1, 5 and 4097 frames", () => {
    const dir = folder("stereo16", 16000, 8, 2, (m) => stereo(m, 16000));
    for (const chunkFrames of [undefined, 1, 5, 4097]) expectSameAsWhole(dir, chunkFrames);
    // The streamed reader gives exactly the samples decodeAudio gives (deepeval's reading of the WAV).
    const path = join(dir, "deepeval-conversation.wav");
    const reader = openCompatRecordingReader(path, { chunkFrames: 333 });
    try {
      expect(reader.streamed).toBe(true);
      const whole = decodeAudio(new Uint8Array(readFileSync(path)), { compat: "deepeval" });
      const got = new Int16Array(whole.samples.length);
      let at = 0;
      for (const c of reader.chunks()) (got.set(c.samples.subarray(0, c.frames * 2), at), (at += c.frames * 2));
      expect(got).toEqual(whole.samples);
    } finally {
      reader.dispose();
    }
  });

  it("renders Python's wave reads specially: extra chunks, a RIFF size shorter than the file, a partial last frame; and an undecodable render", () => {
    const short = (cut: number) => (m: Int16Array) => {
      const bytes = buildWav({ channels: 1, sampleRate: 8000, bits: 16, between: [["LIST", new Uint8Array(9)]], data: new Uint8Array(m.buffer) });
      // The RIFF chunk claims fewer bytes than are there: Python stops reading the data at its end (an odd count is an error).
      new DataView(bytes.buffer).setUint32(4, bytes.length - 8 - cut, true);
      return bytes;
    };
    expect(expectSameAsWhole(folder("riff-short", 8000, 6, 3, short(4000)), 7).filter((s) => s !== null).length).toBeGreaterThan(3);
    expect(expectSameAsWhole(folder("riff-short-odd", 8000, 6, 3, short(3)), 7).every((s) => s === null)).toBe(true);
    const partial = (m: Int16Array) => buildWav({ channels: 2, sampleRate: 8000, bits: 16, data: new Uint8Array(stereo(m, 8000).subarray(44, 44 + 4 * m.length - 2)) });
    expectSameAsWhole(folder("partial", 8000, 6, 4, partial), 11);
    const wide = (m: Int16Array) => {
      const data = new Uint8Array(m.length * 3);
      m.forEach((x, i) => ((data[3 * i + 1] = x & 0xff), (data[3 * i + 2] = (x >> 8) & 0xff)));
      return buildWav({ channels: 1, sampleRate: 8000, bits: 24, data });
    };
    const starts = expectSameAsWhole(folder("pcm24", 8000, 4, 5, wide));
    expect(starts).toEqual([null, null, null, null]);
  });

  it("a render longer than the locator's window (96 turns, 2.3 M samples, barge-ins, a stereo render): searched windowed, the same as before", () => {
    for (const [name, bytes] of [["long-mono", (m: Int16Array) => writeWavPcm16(m, 24000)], ["long-stereo", (m: Int16Array) => stereo(m, 24000)]] as const) {
      const dir = folder(name, 24000, 96, 6, bytes);
      const mix = decodeAudio(new Uint8Array(readFileSync(join(dir, "deepeval-conversation.wav"))), { compat: "deepeval" });
      expect(mix.frames).toBeGreaterThan(2 * LOCATE_WINDOW_SAMPLES);
      // The layout is one the windowed search takes (no fallback to the whole search).
      const clips = listSimTurnFiles(dir).map((f) => decodeAudio(new Uint8Array(readFileSync(join(dir, f.name))), { compat: "deepeval" }).samples);
      let search = "";
      locateClipsInMix(downmixTruncating(mix.samples, mix.channels), clips, { onSearch: (s) => (search = s) });
      expect(search, name).toBe("windowed");
      for (const chunkFrames of [undefined, 7919]) {
        const starts = expectSameAsWhole(dir, chunkFrames);
        expect(starts.filter((s) => s !== null).length, name).toBeGreaterThanOrEqual(90);
      }
    }
  });

  it("a reply repeated far apart in a long render: the segments it ties are searched again together, the same as before", () => {
    // Turn 81 says what turn 5 said, about 1.7 M samples later.
    const dir = folder("repeated", 24000, 96, 7, (m) => writeWavPcm16(m, 24000), (i) => (i === 81 ? 5 : i));
    const mix = decodeAudio(new Uint8Array(readFileSync(join(dir, "deepeval-conversation.wav"))), { compat: "deepeval" });
    const clips = listSimTurnFiles(dir).map((f) => decodeAudio(new Uint8Array(readFileSync(join(dir, f.name))), { compat: "deepeval" }).samples);
    let search = "";
    locateClipsInMix(mix.samples, clips, { onSearch: (s) => (search = s) });
    expect(search).toBe("component");
    const starts = expectSameAsWhole(dir, 4099);
    // Both copies placed, in turn order.
    expect([starts[5], starts[81]].every((s) => s !== null)).toBe(true);
    expect(starts[81]! - starts[5]!).toBeGreaterThan(LOCATE_WINDOW_SAMPLES / 24000);
  });

  it("a reply canned in twelve turns across more render than the search holds: those turns left unplaced with a warning naming them, the others placed as before", () => {
    const dir = folder("canned", 24000, 230, 8, (m) => writeWavPcm16(m, 24000), (i) => (i % 20 === 9 ? 9 : i));
    const want = wholeStarts(dir);
    const { testCase, warnings } = loadSimConversation(dir, {});
    const starts = testCase.turns.map((t) => t.audio!.start_time);
    const canned = listSimTurnFiles(dir).flatMap((f, i) => (i % 20 === 9 ? [f.name] : []));
    expect(canned).toHaveLength(12);
    // Twelve copies: the whole search cannot tell them apart either (it sees eight offsets at most).
    expect(starts).toEqual(want.starts);
    expect(starts.filter((s) => s === null)).toHaveLength(12);
    const over = warnings.find((w) => w.includes("more than the clip search holds"));
    expect(over).toMatch(new RegExp(`^start_time left null for ${canned.join(", ")}: their audio recurs across [0-9.]+ s of deepeval-conversation.wav, more than the clip search holds at once \\(${(LOCATE_MAX_SEARCH_SAMPLES / 24000).toFixed(1)} s\\)$`));
    // The turns it names are not named again by the warning about turns not placed exactly (here: no other).
    expect(warnings.filter((w) => w !== over)).toEqual(want.warnings.filter((w) => !w.startsWith("start_time left null")));
    expect(want.warnings.some((w) => w.startsWith(`start_time left null for ${canned.join(", ")}: not placeable`))).toBe(true);
  });
});
