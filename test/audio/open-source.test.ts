// openPcmSource against decodeAudio: the same samples (every encoding, any chunk size, every pass), warnings and errors, for well-formed, odd and mutated WAVs and for ffmpeg containers.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectPcmSource, decodeAudio, DecodeError, openPcmSource, randomChunkSizes, writeWavPcm16, type DecodedAudio } from "../../src/audio/index.js";
import type { CompatMode } from "../../src/model/codec.js";
import { FFMPEG } from "../helpers/tools.js";
import { buildWav } from "./wav-builder.js";

const dir = mkdtempSync(join(tmpdir(), "vx-open-source-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function fileOf(bytes: Uint8Array): string {
  const path = join(dir, `f${fileNo++}.wav`);
  writeFileSync(path, bytes);
  return path;
}

type Outcome = { ok: DecodedAudio } | { error: { code: string; message: string; metric: string } };

function errorOutcome(e: unknown): Outcome {
  if (!(e instanceof DecodeError)) throw e;
  return { error: { code: e.code, message: e.message, metric: e.metricMessage } };
}

function viaDecode(bytes: Uint8Array, compat: CompatMode): Outcome {
  try {
    const d = decodeAudio(bytes, { compat, name: "clip.wav" });
    // What a consumer sees: whole frames only (decodeCompat may keep a trailing partial frame's samples, which every kernel ignores).
    return { ok: { ...d, samples: d.samples.slice(0, d.frames * d.channels), floatChannels: d.floatChannels } };
  } catch (e) {
    return errorOutcome(e);
  }
}

/** The source read in `passes` passes at the given maxima: each pass must give what the first gave. */
function viaSource(path: string, compat: CompatMode, maxima: Array<number | undefined>): Outcome {
  let source;
  try {
    source = openPcmSource(path, { compat, name: "clip.wav" });
  } catch (e) {
    return errorOutcome(e);
  }
  try {
    const passes = maxima.map((m) => collectPcmSource(source, m));
    for (const p of passes.slice(1)) expect(p).toEqual(passes[0]);
    expect(passes[0].frames).toBe(source.frames);
    return { ok: passes[0] };
  } catch (e) {
    return errorOutcome(e);
  } finally {
    source.dispose();
  }
}

function expectSame(bytes: Uint8Array, compat: CompatMode, maxima: Array<number | undefined> = [undefined, 1, 7]): Outcome {
  const path = fileOf(bytes);
  const want = viaDecode(bytes, compat);
  const got = viaSource(path, compat, maxima);
  expect(got).toEqual(want);
  rmSync(path);
  return want;
}

/** Deterministic bytes (xorshift). */
function noiseBytes(n: number, seed: number): Uint8Array {
  const next = randomChunkSizes(seed, 256);
  return Uint8Array.from({ length: n }, () => next(0) - 1);
}

function floatBytes(values: number[], wide: boolean): Uint8Array {
  return new Uint8Array((wide ? Float64Array.from(values) : Float32Array.from(values)).buffer);
}

const ENCODINGS: Array<{ label: string; bits: number; format?: number; ext?: number; float?: boolean }> = [
  { label: "pcm8", bits: 8 },
  { label: "pcm16", bits: 16 },
  { label: "pcm24", bits: 24 },
  { label: "pcm32", bits: 32 },
  { label: "float32", bits: 32, format: 3, float: true },
  { label: "float64", bits: 64, format: 3, float: true },
  { label: "extensible pcm24", bits: 24, ext: 1 },
  { label: "extensible float32", bits: 32, ext: 3, float: true },
];

describe("openPcmSource gives decodeAudio's samples for every encoding, at any chunk size", () => {
  for (const enc of ENCODINGS) {
    it.each([1, 2, 3])(`${enc.label}, %i channel(s), several rates and random chunk maxima`, (channels) => {
      for (const [k, sampleRate] of [8000, 16000, 22050, 24000, 44100, 48000].entries()) {
        const frames = 1 + ((k * 977 + channels * 131) % 3000);
        const width = enc.bits / 8;
        const data = enc.float
          ? floatBytes(Array.from({ length: frames * channels }, (_, i) => Math.sin(i * 0.37 + k) * (i % 11 === 0 ? 1.3 : 0.9)), enc.bits === 64)
          : noiseBytes(frames * channels * width, 17 + k * 7 + channels);
        const spec = { bits: enc.bits, channels, sampleRate, data, format: enc.format, extensibleSubformat: enc.ext };
        const random = randomChunkSizes(1000 + k, frames);
        const out = expectSame(buildWav(spec), "voxmetrics", [undefined, 1, 2 + (k % 6), random(0), random(1), 1 << 20]);
        expect("ok" in out && out.ok.format).toBe(`wav/${enc.float ? (enc.bits === 64 ? "float64" : "float32") : `pcm${enc.bits}`}`);
      }
    });
  }

  it("a canonical 16-bit file (the fast path) and the same under --compat deepeval", () => {
    const samples = Int16Array.from({ length: 48000 }, (_, i) => Math.round(12000 * Math.sin(i / 9)) ^ (i & 3));
    for (const channels of [1, 2]) {
      const wav = writeWavPcm16(samples, 24000, channels);
      expectSame(wav, "voxmetrics", [undefined, 1, 5, 4095]);
      expectSame(wav, "deepeval", [undefined, 3, 65536]);
    }
  });
});

describe("odd files: the same samples, warnings and errors as decodeAudio, in both modes", () => {
  const d = noiseBytes(4000, 5);
  const cases: Array<[string, Uint8Array]> = [
    ["odd chunk before data", buildWav({ data: d, between: [["LIST", new Uint8Array(5)]] })],
    ["chunks before fmt", buildWav({ data: d, before: [["JUNK", new Uint8Array(33)]] })],
    ["data before fmt", buildWav({ data: d, dataBeforeFmt: true })],
    ["odd data size (partial frame)", buildWav({ data: d.subarray(0, 3999) })],
    ["stereo partial frame", buildWav({ data: d.subarray(0, 3998), channels: 2 })],
    ["24-bit partial frame", buildWav({ data: d.subarray(0, 3998), bits: 24 })],
    ["truncated data chunk", buildWav({ data: d.subarray(0, 3000), dataSize: 4000 })],
    ["truncated to an odd count", buildWav({ data: d.subarray(0, 3001), dataSize: 4000 })],
    ["streaming size 0xFFFFFFFF", patchDataSize(buildWav({ data: d }), 0xffffffff)],
    ["streaming size 0", patchDataSize(buildWav({ data: d }), 0)],
    ["streaming size, odd tail", patchDataSize(buildWav({ data: d.subarray(0, 3999) }), 0xffffffff)],
    ["float with NaN late", buildWav({ format: 3, bits: 32, data: floatBytes([...Array.from({ length: 900 }, () => 0.1), NaN], false), channels: 1 })],
    ["stereo float with Inf", buildWav({ format: 3, bits: 32, channels: 2, data: floatBytes([...Array.from({ length: 301 }, () => -0.5), Infinity], false) })],
    ["0 channels", buildWav({ data: d, channels: 0 })],
    ["rate 0", buildWav({ data: d, sampleRate: 0 })],
    ["header only", writeWavPcm16(new Int16Array(0), 8000)],
    ["empty file", new Uint8Array(0)],
    ["not RIFF (compat)", new TextEncoder().encode("definitely not audio")],
    ["no fmt", riff([chunkBytes("data", d)])],
    ["no data", riff([chunkBytes("fmt ", fmtBody(1, 1, 8000, 16))])],
    ["nothing", riff([])],
    ["fmt of 14 bytes", riff([chunkBytes("fmt ", fmtBody(1, 1, 8000, 16).subarray(0, 14)), chunkBytes("data", d)])],
    ["extensible fmt of 18 bytes", riff([chunkBytes("fmt ", fmtBody(0xfffe, 1, 8000, 16, 18)), chunkBytes("data", d)])],
    ["extensible fmt of 24 bytes", riff([chunkBytes("fmt ", fmtBody(0xfffe, 1, 8000, 16, 24)), chunkBytes("data", d)])],
    ["two fmt chunks", riff([chunkBytes("fmt ", fmtBody(1, 2, 8000, 16)), chunkBytes("fmt ", fmtBody(1, 1, 16000, 8)), chunkBytes("data", d)])],
    ["two data chunks", riff([chunkBytes("fmt ", fmtBody(1, 1, 8000, 16)), chunkBytes("data", d.subarray(0, 10)), chunkBytes("data", d)])],
    ["RIFF size wrong", patchRiffSize(buildWav({ data: d }), 30)],
    ["RIFF size 0xFFFFFFFF", patchRiffSize(buildWav({ data: d }), 0xffffffff)],
    ["trailing garbage", concat(buildWav({ data: d }), noiseBytes(37, 9))],
    ["odd chunk without its pad byte", riff([chunkBytes("fmt ", fmtBody(1, 1, 8000, 16)), chunkBytes("junk", new Uint8Array(5), false), chunkBytes("data", d)])],
    ["8-bit in compat", buildWav({ bits: 8, data: d })],
    ["chunk past the RIFF end", patchRiffSize(riff([chunkBytes("fmt ", fmtBody(1, 1, 8000, 16)), chunkBytes("junk", new Uint8Array(100)), chunkBytes("data", d)]), 40)],
  ];
  it.each(cases)("%s", (_label, bytes) => {
    expectSame(bytes, "voxmetrics");
    expectSame(bytes, "deepeval");
  });

  it("mutated headers (seeded byte flips and size changes) give the same outcome in both modes", () => {
    const bases = [
      buildWav({ data: noiseBytes(600, 1), channels: 2, between: [["LIST", new Uint8Array(7)]] }),
      buildWav({ data: noiseBytes(603, 2), bits: 24, sampleRate: 16000 }),
      buildWav({ data: floatBytes(Array.from({ length: 150 }, (_, i) => Math.cos(i)), false), format: 3, bits: 32 }),
      buildWav({ data: noiseBytes(480, 3), extensibleSubformat: 1, channels: 2 }),
    ];
    const rand = randomChunkSizes(424242, 1 << 30);
    let compared = 0;
    for (let i = 0; i < 240; i++) {
      const bytes = bases[i % bases.length].slice();
      const edits = 1 + (rand(0) % 3);
      for (let e = 0; e < edits; e++) {
        const at = rand(0) % Math.min(bytes.length, 80);
        // Keep the format tag PCM/float (other tags go through ffmpeg, tested below) unless this edit is the size fields.
        if (at === 20 || at === 21) continue;
        bytes[at] = rand(0) % 4 === 0 ? 0xff : rand(0) & 0xff;
      }
      if (rand(0) % 5 === 0) bytes.subarray(0, bytes.length - (rand(0) % 200));
      const cut = rand(0) % 6 === 0 ? bytes.subarray(0, Math.max(0, bytes.length - (rand(0) % 300))) : bytes;
      const channels = cut.length >= 24 ? cut[22] | (cut[23] << 8) : 0;
      if (channels > 8) continue; // the channel budget is tested in test/contract; keep the comparison small
      expectSame(cut, "voxmetrics", [undefined, 3]);
      expectSame(cut, "deepeval", [undefined, 3]);
      compared++;
    }
    expect(compared).toBeGreaterThan(150);
  });
});

describe("limits on the header and on what is decoded", () => {
  it("a header declaring more channels or audio than allowed is refused on open, as decodeAudio refuses it", () => {
    const path = fileOf(buildWav({ data: new Uint8Array(33 * 2 * 4), channels: 33 }));
    expect(() => openPcmSource(path, { name: "x.wav" })).toThrow("x.wav: the WAV header declares 33 channels, more than the limit of 32 (--max-channels)");
    const long = fileOf(writeWavPcm16(new Int16Array(16000), 8000));
    expect(() => openPcmSource(long, { name: "y.wav", limits: { maxAudioSeconds: 1.5 } })).toThrow("y.wav: the WAV holds 2 s of audio, more than the limit of 1.5 s (--max-audio-seconds)");
    expect(openPcmSource(long, { limits: { maxAudioSeconds: 2 } }).frames).toBe(16000);
  });

  it("dispose closes the file; chunks() afterwards is refused", () => {
    const path = fileOf(writeWavPcm16(new Int16Array(100), 8000));
    const s = openPcmSource(path);
    s.dispose();
    expect(() => [...s.chunks()]).toThrow(/disposed/);
    s.dispose();
  });
});

describe.skipIf(!FFMPEG)("containers decoded by ffmpeg", () => {
  const make = (name: string, args: string[]) => {
    const path = join(dir, name);
    execFileSync(FFMPEG!, ["-loglevel", "error", "-y", ...args, path]);
    return path;
  };
  // ffmpeg's temporary outputs go to a folder of this test's own (other test files decode through ffmpeg at the same time).
  const privateTmp = join(dir, "tmp");
  let savedTmp: string | undefined;
  beforeAll(() => {
    mkdirSync(privateTmp);
    savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
  });
  afterAll(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  });
  const tempOutputs = () => readdirSync(privateTmp).filter((n) => n.startsWith("voxmetrics-")).length;

  it("MP3, FLAC, Opus and a µ-law WAV: decodeAudio's samples and format; the temporary output is removed on dispose", () => {
    const files = [
      make("a.mp3", ["-f", "lavfi", "-i", "sine=f=300:d=1.5:sample_rate=24000", "-ac", "2"]),
      make("a.flac", ["-f", "lavfi", "-i", "sine=f=500:d=1:sample_rate=16000"]),
      make("a.opus", ["-f", "lavfi", "-i", "sine=f=200:d=1:sample_rate=48000"]),
      make("mulaw.wav", ["-f", "lavfi", "-i", "sine=f=400:d=1:sample_rate=8000", "-c:a", "pcm_mulaw"]),
    ];
    const before = tempOutputs();
    for (const path of files) {
      const bytes = readFileSync(path);
      const want = viaDecode(bytes, "voxmetrics");
      expect("ok" in want).toBe(true);
      const source = openPcmSource(path, { name: "clip.wav" });
      expect(tempOutputs()).toBe(before + 1);
      const passes = [collectPcmSource(source, 1000), collectPcmSource(source)];
      source.dispose();
      expect(tempOutputs()).toBe(before);
      expect(passes[0]).toEqual((want as { ok: DecodedAudio }).ok);
      expect(passes[1]).toEqual(passes[0]);
    }
  });

  it("undecodable bytes and a missing ffmpeg: decodeAudio's errors, nothing left behind", () => {
    const before = tempOutputs();
    const garbage = noiseBytes(5000, 77);
    garbage.set([0x49, 0x44, 0x33], 0);
    expectSame(garbage, "voxmetrics");
    expect(tempOutputs()).toBe(before);
    const saved = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = "/nonexistent/ffmpeg";
    try {
      const out = expectSame(garbage, "voxmetrics");
      expect("error" in out && out.error.code).toBe("FFMPEG_MISSING");
    } finally {
      if (saved === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = saved;
    }
  });

  it("the expansion rule and --max-audio-seconds stop ffmpeg at the budget, with decodeAudio's messages", () => {
    const data = Uint8Array.from({ length: 8000 * 40 }, (_, i) => (i * 37) & 0xff);
    const lying = wavHeader(7, 1, 8000, 8, 80000, data.length);
    const out = expectSame(concat(lying, data), "voxmetrics");
    expect(out).toEqual({ error: { code: "LIMIT_EXCEEDED", metric: "Audio is not a decodable PCM WAV.", message: "clip.wav: WAV format tag 7 with 8-bit samples; it decodes to more than 26 s, but its header declares 4 s (a decompression bomb?)" } });
    const mp3 = make("s40.mp3", ["-f", "lavfi", "-i", "sine=f=300:d=40"]);
    expect(() => openPcmSource(mp3, { name: "s40.mp3", limits: { maxAudioSeconds: 30 } })).toThrow("s40.mp3: not a RIFF/WAVE file; it decodes to more than the limit of 30 s (--max-audio-seconds)");
  });
});

// --- WAV bytes of any shape ---

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

function chunkBytes(id: string, body: Uint8Array, pad = true): Uint8Array {
  const out = new Uint8Array(8 + body.length + (pad ? body.length & 1 : 0));
  for (let i = 0; i < 4; i++) out[i] = id.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, body.length, true);
  out.set(body, 8);
  return out;
}

function fmtBody(tag: number, channels: number, rate: number, bits: number, size = 16): Uint8Array {
  const b = new Uint8Array(40);
  const v = new DataView(b.buffer);
  v.setUint16(0, tag, true);
  v.setUint16(2, channels, true);
  v.setUint32(4, rate, true);
  v.setUint32(8, (rate * channels * bits) / 8, true);
  v.setUint16(12, (channels * bits) / 8, true);
  v.setUint16(14, bits, true);
  v.setUint16(16, 22, true);
  v.setUint16(18, bits, true);
  v.setUint32(24, 1, true);
  return b.subarray(0, size);
}

function riff(chunks: Uint8Array[]): Uint8Array {
  const body = concat(new TextEncoder().encode("WAVE"), ...chunks);
  const head = new Uint8Array(8);
  head.set(new TextEncoder().encode("RIFF"));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat(head, body);
}

function wavHeader(tag: number, channels: number, rate: number, bits: number, byteRate: number, dataSize: number): Uint8Array {
  const fmt = fmtBody(tag, channels, rate, bits);
  new DataView(fmt.buffer).setUint32(8, byteRate, true);
  const data = new Uint8Array(8);
  data.set(new TextEncoder().encode("data"));
  new DataView(data.buffer).setUint32(4, dataSize, true);
  const head = riff([chunkBytes("fmt ", fmt), data]);
  new DataView(head.buffer).setUint32(4, head.length - 8 + dataSize, true);
  return head;
}

function patchDataSize(wav: Uint8Array, size: number): Uint8Array {
  const out = wav.slice();
  const v = new DataView(out.buffer);
  for (let at = 12; at + 8 <= out.length; at += 8 + v.getUint32(at + 4, true) + (v.getUint32(at + 4, true) & 1)) {
    if (String.fromCharCode(...out.subarray(at, at + 4)) === "data") {
      v.setUint32(at + 4, size, true);
      return out;
    }
  }
  throw new Error("no data chunk");
}

function patchRiffSize(wav: Uint8Array, size: number): Uint8Array {
  const out = wav.slice();
  new DataView(out.buffer).setUint32(4, size, true);
  return out;
}
