// Audio decoding: deepeval-exact acceptance under compat, wide acceptance (wavefile, ffmpeg) by default.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compatWavDuration, decodeAudio, DecodeError, downmixTruncating, findFfmpeg, writeWavPcm16 } from "../../src/audio/index.js";
import { buildWav, int16Bytes } from "./wav-builder.js";

function decodeError(bytes: Uint8Array, compat: "deepeval" | "voxmetrics"): DecodeError {
  try {
    decodeAudio(bytes, { compat, name: "clip.wav" });
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
  throw new Error("decoded without error");
}

describe("--compat deepeval acceptance (voice-metrics.md §2.2)", () => {
  it("accepts 16-bit PCM with unknown chunks skipped", () => {
    const wav = buildWav({ data: int16Bytes([1, -2, 3]), before: [], between: [["LIST", new Uint8Array(5)]] });
    const d = decodeAudio(wav, { compat: "deepeval" });
    expect(Array.from(d.samples)).toEqual([1, -2, 3]);
  });
  it.each([
    ["8-bit", { bits: 8, data: new Uint8Array([128, 129]) }],
    ["24-bit", { bits: 24, data: new Uint8Array(6) }],
    ["float", { format: 3, bits: 32, data: new Uint8Array(8) }],
    ["extensible", { extensibleSubformat: 1, data: int16Bytes([1, 2]) }],
    ["data before fmt", { dataBeforeFmt: true, data: int16Bytes([1, 2]) }],
  ])("rejects %s", (_label, spec) => {
    expect(decodeError(buildWav(spec as never), "deepeval").metricMessage).toBe("Audio is not a decodable PCM WAV.");
  });
  it("rejects non-RIFF bytes", () => {
    expect(decodeError(new TextEncoder().encode("not-a-wav"), "deepeval").metricMessage).toBe("Audio is not a decodable PCM WAV.");
  });
  it("an odd data size ignores the trailing byte", () => {
    const data = new Uint8Array(801);
    expect(decodeAudio(buildWav({ data }), { compat: "deepeval" }).frames).toBe(400);
  });
  it("a truncated data chunk leaving an odd byte count fails with the unfolded message", () => {
    const wav = buildWav({ data: new Uint8Array(801), dataSize: 1000 });
    expect(decodeError(wav, "deepeval").metricMessage).toBe("bytes length not a multiple of item size");
  });
  it("header-only and rate 0 have no samples", () => {
    expect(decodeError(writeWavPcm16(new Int16Array(0), 8000), "deepeval").metricMessage).toBe("Audio contains no decodable PCM samples.");
    expect(decodeError(buildWav({ sampleRate: 0, data: int16Bytes([1]) }), "deepeval").metricMessage).toBe("Audio contains no decodable PCM samples.");
  });
  it("timeline duration tolerates odd byte counts and falls back for non-16-bit", () => {
    expect(compatWavDuration(buildWav({ data: new Uint8Array(801), dataSize: 1000 }))).toBeCloseTo(801 / 2 / 8000, 12);
    expect(compatWavDuration(buildWav({ bits: 8, data: new Uint8Array(4) }))).toBeNull();
  });
});

describe("downmix (voice-metrics.md §2.3)", () => {
  it("truncates toward zero", () => {
    expect(Array.from(downmixTruncating(Int16Array.from([3, -2, -3, 2, 32767, 32767, -32768, -32767]), 2))).toEqual([0, 0, 32767, -32767]);
    expect(Array.from(downmixTruncating(Int16Array.from([1, 1, 0]), 3))).toEqual([0]);
  });
});

describe("default decoder (formats.md §F0.3)", () => {
  it("converts 8/24/32-bit integer and float", () => {
    expect(Array.from(decodeAudio(buildWav({ bits: 8, data: new Uint8Array([0, 128, 255]) })).samples)).toEqual([-32768, 0, 32512]);
    expect(Array.from(decodeAudio(buildWav({ bits: 24, data: new Uint8Array([0xff, 0xff, 0x7f, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff]) })).samples)).toEqual([32767, -32768, -1]);
    const i32 = new Uint8Array(new Int32Array([0x7fffffff, -0x80000000, 65536]).buffer);
    expect(Array.from(decodeAudio(buildWav({ bits: 32, data: i32 })).samples)).toEqual([32767, -32768, 1]);
    const f32 = new Uint8Array(new Float32Array([0.5, -1, 1, 1.5 / 32768, 2.5 / 32768]).buffer);
    const d = decodeAudio(buildWav({ format: 3, bits: 32, data: f32 }));
    expect(Array.from(d.samples)).toEqual([16384, -32768, 32767, 2, 2]);
    expect(d.floatChannels?.[0][0]).toBe(0.5);
    const f64 = new Uint8Array(new Float64Array([0.25]).buffer);
    expect(Array.from(decodeAudio(buildWav({ format: 3, bits: 64, data: f64 })).samples)).toEqual([8192]);
  });
  it("reads WAVE_FORMAT_EXTENSIBLE PCM and float", () => {
    expect(Array.from(decodeAudio(buildWav({ extensibleSubformat: 1, data: int16Bytes([5, 6]), channels: 2 })).samples)).toEqual([5, 6]);
    const f32 = new Uint8Array(new Float32Array([0.5]).buffer);
    expect(Array.from(decodeAudio(buildWav({ extensibleSubformat: 3, bits: 32, data: f32 })).samples)).toEqual([16384]);
  });
  it("refuses NaN and Inf in float WAVs, naming the sample", () => {
    const f32 = new Uint8Array(new Float32Array([0, NaN]).buffer);
    const e = decodeError(buildWav({ format: 3, bits: 32, data: f32 }), "voxmetrics");
    expect(e.message).toMatch(/clip\.wav: .*NaN/);
    const inf = new Uint8Array(new Float32Array([Infinity]).buffer);
    expect(decodeError(buildWav({ format: 3, bits: 32, data: inf }), "voxmetrics").message).toMatch(/Infinity/);
  });
  it("refuses truncated WAVs and zero-length audio with a clear message", () => {
    expect(decodeError(buildWav({ data: new Uint8Array(800), dataSize: 1000 }), "voxmetrics").message).toMatch(/truncated WAV/);
    expect(decodeError(writeWavPcm16(new Int16Array(0), 8000), "voxmetrics").message).toMatch(/zero-length/);
    expect(decodeError(new Uint8Array(0), "voxmetrics").message).toMatch(/empty/);
  });
});

describe("ffmpeg containers", () => {
  afterEach(() => {
    delete process.env.FFMPEG_PATH;
  });
  const ffmpeg = findFfmpeg();
  it.skipIf(!ffmpeg)("decodes MP3 through ffmpeg", () => {
    const dir = mkdtempSync(join(tmpdir(), "vox-ff-"));
    const mp3 = join(dir, "a.mp3");
    const run = spawnSync(ffmpeg!, ["-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5:sample_rate=16000", "-ac", "2", mp3]);
    expect(run.status).toBe(0);
    const d = decodeAudio(readFileSync(mp3));
    rmSync(dir, { recursive: true, force: true });
    expect(d.format).toBe("ffmpeg/mp3");
    expect(d.sampleRate).toBe(16000);
    expect(d.channels).toBe(2);
    expect(d.frames).toBeGreaterThan(7000);
  });
  it("without ffmpeg a non-WAV clip gets a clear error", () => {
    process.env.FFMPEG_PATH = "/nonexistent/ffmpeg";
    const e = decodeError(new TextEncoder().encode("ID3 not really mp3"), "voxmetrics");
    expect(e.code).toBe("FFMPEG_MISSING");
    expect(e.message).toMatch(/needs ffmpeg, which was not found/);
  });
});
