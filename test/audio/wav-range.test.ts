// The random-access recording reader: every frame range of every channel, and every chunking, equals what decodeAudio gives for the same file; errors are decodeAudio's.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeAudio, DecodeError, findFfmpeg, randomChunkSizes, writeWavPcm16, type DecodedAudio } from "../../src/audio/index.js";
import { openRecordingReader, type RecordingReader } from "../../src/audio/wav-range.js";
import { buildWav } from "./wav-builder.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-wav-range-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
function file(bytes: Uint8Array, ext = "wav"): string {
  const p = join(tmp, `f${fileNo++}.${ext}`);
  writeFileSync(p, bytes);
  return p;
}

/** Deterministic pseudo-random bytes. */
function noiseBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s & 0xff;
  }
  return out;
}

/** Float samples in [-1.2, 1.2] (some clip on conversion), as little-endian bytes. */
function floatBytes(count: number, wide: boolean, seed: number): Uint8Array {
  const raw = noiseBytes(count * 2, seed);
  const out = new Uint8Array(count * (wide ? 8 : 4));
  const v = new DataView(out.buffer);
  for (let i = 0; i < count; i++) {
    const x = (((raw[2 * i] << 8) | raw[2 * i + 1]) / 65535 - 0.5) * 2.4;
    if (wide) v.setFloat64(8 * i, x, true);
    else v.setFloat32(4 * i, x, true);
  }
  return out;
}

function gathered(reader: RecordingReader, max: number | undefined, sizes?: (i: number) => number): DecodedAudio {
  const samples = new Int16Array(reader.frames * reader.channels);
  const floats = Array.from({ length: reader.channels }, () => new Float32Array(reader.frames));
  let at = 0;
  let hasFloats = false;
  let i = 0;
  for (const c of reader.chunks(sizes ? sizes(i++) : max)) {
    samples.set(c.samples.subarray(0, c.frames * reader.channels), at * reader.channels);
    if (c.floatChannels) {
      hasFloats = true;
      c.floatChannels.forEach((f, ch) => floats[ch].set(f.subarray(0, c.frames), at));
    }
    at += c.frames;
  }
  expect(at).toBe(reader.frames);
  return { sampleRate: reader.sampleRate, channels: reader.channels, frames: at, samples, floatChannels: hasFloats ? floats : undefined, format: reader.format, warnings: reader.warnings };
}

/** Check ranges and chunkings of the reader against decodeAudio. */
function expectSameAsDecode(path: string, seed: number): RecordingReader {
  const bytes = new Uint8Array(readFileSync(path));
  const whole = decodeAudio(bytes, { name: "x" });
  const reader = openRecordingReader(path, { name: "x", chunkFrames: 1 + (seed % 97) });
  try {
    expect([reader.sampleRate, reader.channels, reader.frames, reader.format, reader.warnings]).toEqual([whole.sampleRate, whole.channels, whole.frames, whole.format, whole.warnings]);
    for (const max of [1, 3, 7, 1000, undefined]) {
      const g = gathered(reader, max);
      expect(g.samples).toEqual(whole.samples);
      expect(g.floatChannels).toEqual(whole.floatChannels);
    }
    const sizes = randomChunkSizes(seed, 50);
    const g = gathered(reader, undefined, sizes);
    expect(g.samples).toEqual(whole.samples);
    const pick = randomChunkSizes(seed + 1, whole.frames + 1);
    for (let t = 0; t < 20; t++) {
      const a = pick(0) - 1;
      const b = pick(0) - 1;
      const [from, to] = a <= b ? [a, b] : [b, a];
      const ch = t % whole.channels;
      const into = new Int16Array(to - from);
      reader.readInt16(ch, from, to, into);
      const want = Int16Array.from({ length: to - from }, (_, k) => whole.samples[(from + k) * whole.channels + ch]);
      expect(into).toEqual(want);
    }
    return reader;
  } finally {
    reader.dispose();
  }
}

function expectSameError(path: string): void {
  let want: unknown;
  try {
    decodeAudio(new Uint8Array(readFileSync(path)), { name: "x" });
  } catch (e) {
    want = e;
  }
  expect(want).toBeInstanceOf(DecodeError);
  let got: unknown;
  try {
    const r = openRecordingReader(path, { name: "x" });
    try {
      for (const c of r.chunks(5)) void c;
    } finally {
      r.dispose();
    }
  } catch (e) {
    got = e;
  }
  expect(got).toBeInstanceOf(DecodeError);
  expect([(got as DecodeError).code, (got as DecodeError).message, (got as DecodeError).metricMessage]).toEqual([
    (want as DecodeError).code,
    (want as DecodeError).message,
    (want as DecodeError).metricMessage,
  ]);
}

describe("openRecordingReader on WAV files", () => {
  const cases: Array<[string, () => Uint8Array, boolean]> = [
    ["pcm16 stereo", () => buildWav({ channels: 2, sampleRate: 16000, bits: 16, data: noiseBytes(2 * 2 * 3001, 1) }), true],
    ["pcm8 mono", () => buildWav({ channels: 1, bits: 8, data: noiseBytes(1234, 2) }), true],
    ["pcm24 three channels", () => buildWav({ channels: 3, bits: 24, sampleRate: 22050, data: noiseBytes(3 * 3 * 777, 3) }), true],
    ["pcm32 stereo", () => buildWav({ channels: 2, bits: 32, sampleRate: 44100, data: noiseBytes(4 * 2 * 555, 4) }), true],
    ["float32 stereo", () => buildWav({ format: 3, channels: 2, bits: 32, sampleRate: 48000, data: floatBytes(2 * 999, false, 5) }), true],
    ["float64 stereo", () => buildWav({ format: 3, channels: 2, bits: 64, sampleRate: 24000, data: floatBytes(2 * 501, true, 6) }), true],
    ["extensible pcm16", () => buildWav({ extensibleSubformat: 1, channels: 2, bits: 16, data: noiseBytes(4 * 800, 7) }), true],
    ["extensible float32", () => buildWav({ extensibleSubformat: 3, channels: 2, bits: 32, data: floatBytes(2 * 700, false, 8) }), true],
    ["odd LIST chunk before data, odd trailing bytes", () => buildWav({ channels: 2, bits: 16, between: [["LIST", noiseBytes(13, 9)], ["fact", noiseBytes(4, 9)]], data: noiseBytes(4 * 600 + 3, 10) }), true],
    ["data size 0xFFFFFFFF (written to a pipe)", () => buildWav({ channels: 2, bits: 16, data: noiseBytes(4 * 333, 11), dataSize: 0xffffffff }), true],
    ["an unknown chunk before data", () => buildWav({ channels: 2, bits: 16, between: [["abcd", noiseBytes(10, 12)]], data: noiseBytes(4 * 300, 13) }), false],
  ];
  for (const [name, make, streamed] of cases) {
    it(`${name}: every range and chunking equals decodeAudio (${streamed ? "read in place" : "decoded whole"})`, () => {
      const r = expectSameAsDecode(file(make()), name.length * 31);
      expect(r.streamed).toBe(streamed);
    });
  }

  it("a recording made by writeWavPcm16 (the engine's own writer) is read in place", () => {
    const pcm = new Int16Array(noiseBytes(2 * 2 * 5000, 21).buffer);
    expect(expectSameAsDecode(file(writeWavPcm16(pcm, 8000, 2)), 5).streamed).toBe(true);
  });

  it("bad WAVs give decodeAudio's error (truncated data, non-finite float, too many channels, no samples)", () => {
    expectSameError(file(buildWav({ channels: 2, bits: 16, data: noiseBytes(400, 1), dataSize: 800 })));
    const nan = floatBytes(2 * 300, false, 3);
    new DataView(nan.buffer).setFloat32(4 * 417, Number.NaN, true);
    expectSameError(file(buildWav({ format: 3, channels: 2, bits: 32, data: nan })));
    expectSameError(file(buildWav({ channels: 40, bits: 16, data: noiseBytes(80 * 10, 4) })));
    expectSameError(file(buildWav({ channels: 2, bits: 16, data: new Uint8Array(0) })));
    expectSameError(file(new Uint8Array(0)));
  });

  it("the duration limit is checked on the header, as decodeAudio does", () => {
    const p = file(buildWav({ channels: 2, bits: 16, sampleRate: 8000, data: noiseBytes(4 * 8000 * 3, 5) }));
    let want = "";
    try {
      decodeAudio(new Uint8Array(readFileSync(p)), { name: "x", limits: { maxAudioSeconds: 2 } });
    } catch (e) {
      want = (e as Error).message;
    }
    expect(want).toMatch(/--max-audio-seconds/);
    expect(() => openRecordingReader(p, { name: "x", limits: { maxAudioSeconds: 2 } })).toThrow(want);
  });
});

describe.skipIf(!findFfmpeg())("openRecordingReader through ffmpeg", () => {
  it("a FLAC and a µ-law WAV are decoded once to a temporary WAV on disk, equal to decodeAudio, and the temporary file is deleted", () => {
    const pcm = new Int16Array(noiseBytes(2 * 2 * 4000, 31).buffer).map((x) => x >> 3);
    const wav = file(writeWavPcm16(pcm, 16000, 2));
    const spill = mkdtempSync(join(tmp, "spill-"));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = spill;
    try {
      for (const [ext, args] of [["flac", ["-c:a", "flac"]], ["wav", ["-c:a", "pcm_mulaw"]]] as const) {
        const out = join(tmp, `enc${fileNo++}.${ext}`);
        const run = spawnSync(findFfmpeg()!, ["-hide_banner", "-loglevel", "error", "-i", wav, ...args, "-y", out]);
        expect(run.status).toBe(0);
        // A relative path works too (ffmpeg reads the recording through a link in a temporary folder).
        const r = expectSameAsDecode(ext === "flac" ? relative(process.cwd(), out) : out, 9);
        expect(r.streamed).toBe(true);
        expect(readdirSync(spill)).toEqual([]);
      }
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });

  it("an undecodable non-WAV file gives decodeAudio's error", () => {
    expectSameError(file(noiseBytes(3000, 77), "mp3"));
  });
});

describe("openRecordingReader under --compat deepeval: read in place, equal to decodeAudio's compat decode", () => {
  /** Check the compat reader against decodeAudio(bytes, { compat: "deepeval" }): samples of every chunking and range, or the same error. */
  function expectSameAsCompatDecode(path: string, seed: number): void {
    const bytes = new Uint8Array(readFileSync(path));
    let whole: DecodedAudio | undefined;
    let want: unknown;
    try {
      whole = decodeAudio(bytes, { name: "x", compat: "deepeval" });
    } catch (e) {
      want = e;
    }
    let reader: RecordingReader | undefined;
    let got: unknown;
    try {
      reader = openRecordingReader(path, { name: "x", compat: "deepeval", chunkFrames: 1 + (seed % 89) });
    } catch (e) {
      got = e;
    }
    if (!whole) {
      expect(want).toBeInstanceOf(DecodeError);
      expect(got).toBeInstanceOf(DecodeError);
      expect([(got as DecodeError).code, (got as DecodeError).message, (got as DecodeError).metricMessage]).toEqual([(want as DecodeError).code, (want as DecodeError).message, (want as DecodeError).metricMessage]);
      return;
    }
    expect(got).toBeUndefined();
    const r = reader!;
    try {
      expect(r.streamed).toBe(true);
      expect([r.sampleRate, r.channels, r.frames, r.format, r.warnings]).toEqual([whole.sampleRate, whole.channels, whole.frames, whole.format, whole.warnings]);
      // A partial last frame's samples stay in decodeAudio's array (Python's bytes) but are no frame of the recording: whole frames are compared.
      const frames = whole.samples.subarray(0, whole.frames * whole.channels);
      for (const max of [1, 5, 1000, undefined]) expect(gathered(r, max).samples).toEqual(frames);
      expect(gathered(r, undefined, randomChunkSizes(seed, 40)).samples).toEqual(frames);
      const pick = randomChunkSizes(seed + 1, whole.frames + 1);
      for (let t = 0; t < 20; t++) {
        const [a, b] = [pick(0) - 1, pick(0) - 1];
        const [from, to] = a <= b ? [a, b] : [b, a];
        const ch = t % whole.channels;
        const into = new Int16Array(to - from);
        r.readInt16(ch, from, to, into);
        expect(into).toEqual(Int16Array.from({ length: to - from }, (_, k) => whole!.samples[(from + k) * whole!.channels + ch]));
      }
    } finally {
      r.dispose();
    }
  }

  const stereo = (frames: number, seed: number) => noiseBytes(4 * frames, seed);
  it("canonical, extra chunks, a RIFF size shorter than the file, a partial last frame, an unknown chunk", () => {
    expectSameAsCompatDecode(file(buildWav({ channels: 2, sampleRate: 16000, bits: 16, data: stereo(3001, 1) })), 1);
    expectSameAsCompatDecode(file(buildWav({ channels: 2, bits: 16, between: [["LIST", noiseBytes(13, 2)], ["abcd", noiseBytes(10, 3)]], data: stereo(900, 4) })), 2);
    for (const cut of [400, 401, 1, 2]) {
      const bytes = buildWav({ channels: 2, bits: 16, between: [["LIST", new Uint8Array(9)]], data: stereo(1200, 5) });
      new DataView(bytes.buffer).setUint32(4, bytes.length - 8 - cut, true);
      expectSameAsCompatDecode(file(bytes), cut);
    }
    expectSameAsCompatDecode(file(buildWav({ channels: 2, bits: 16, data: stereo(700, 6).subarray(0, 4 * 700 - 2) })), 3);
    expectSameAsCompatDecode(file(buildWav({ channels: 3, bits: 16, data: noiseBytes(6 * 500 + 3, 7) })), 4);
  });

  it("what deepeval does not read gives decodeAudio's compat error: 24-bit, float, extensible, no samples, not a WAV, empty", () => {
    expectSameAsCompatDecode(file(buildWav({ channels: 2, bits: 24, data: noiseBytes(6 * 300, 8) })), 5);
    expectSameAsCompatDecode(file(buildWav({ format: 3, channels: 2, bits: 32, data: floatBytes(2 * 300, false, 9) })), 6);
    expectSameAsCompatDecode(file(buildWav({ extensibleSubformat: 1, channels: 2, bits: 16, data: stereo(300, 10) })), 7);
    expectSameAsCompatDecode(file(buildWav({ channels: 2, bits: 16, data: new Uint8Array(0) })), 8);
    expectSameAsCompatDecode(file(noiseBytes(3000, 11), "mp3"), 9);
    expectSameAsCompatDecode(file(new Uint8Array(0)), 10);
  });
});
