// `analyze` of a file path streams it (openPcmSource): every set gives the result analyzing the same bytes in memory gives, and the loudness set read chunk by chunk equals the whole-clip meter at any chunk size.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeLoudness } from "../../src/analysis/acoustics.js";
import { resolveAcousticsOptions } from "../../src/analysis/acoustics-options.js";
import { decodeAudio, memoryPcmSource, randomChunkSizes, writeWavPcm16 } from "../../src/audio/index.js";
import { toFloatPlanar } from "../../src/dsp/reference/interleaved.js";
import { measureStandardsStream } from "../../src/analysis/acoustics-stream.js";
import { analyzeFile, analyzeFileAt, MEASUREMENT_SETS } from "../../src/scoring/analyze-file.js";
import { buildWav } from "../audio/wav-builder.js";
import { FFMPEG } from "../helpers/tools.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-analyze-stream-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Speech-like bursts: a voiced tone switched on and off at syllable rate, with a little noise and a DC offset on odd channels. */
function speechLike(rate: number, seconds: number, channels: number, seed = 1): Int16Array {
  const next = randomChunkSizes(seed, 1000);
  const frames = Math.round(rate * seconds);
  const x = new Int16Array(frames * channels);
  for (let c = 0; c < channels; c++) {
    const f0 = 110 + 70 * c;
    for (let k = 0; k < frames; k++) {
      const t = k / rate;
      const on = Math.floor(t / 0.23 + c) % 3 !== 0 && Math.floor(t / 1.7) % 4 !== 3;
      const env = on ? 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t) : 0;
      const v = env * (8000 * Math.sin(2 * Math.PI * f0 * t) + 2500 * Math.sin(2 * Math.PI * 2.5 * f0 * t)) + (next(0) - 500) * 0.3 + (c % 2) * 120;
      x[k * channels + c] = Math.max(-32768, Math.min(32767, Math.round(v)));
    }
  }
  return x;
}

function file(name: string, bytes: Uint8Array): string {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
}

describe("analyzeFileAt streams the file and gives what analyzing its bytes gives", () => {
  const floats = Float32Array.from({ length: 2 * 22050 * 3 }, (_, i) => 0.4 * Math.sin(i * 0.05) * (Math.floor(i / 9000) % 2) + (i % 7) * 1e-4);
  const cases: Array<[string, Uint8Array]> = [
    ["mono 16 kHz", writeWavPcm16(speechLike(16000, 4, 1), 16000, 1)],
    ["stereo 24 kHz, 30 s (past the loudness block)", writeWavPcm16(speechLike(24000, 30, 2, 3), 24000, 2)],
    ["stereo float32 22.05 kHz", buildWav({ format: 3, bits: 32, channels: 2, sampleRate: 22050, data: new Uint8Array(floats.buffer) })],
    ["3-channel 24-bit 48 kHz", buildWav({ bits: 24, channels: 3, sampleRate: 48000, data: Uint8Array.from({ length: 3 * 3 * 48000 }, (_, i) => (i * 131 + (i >> 9)) & 0xff) })],
    ["8 kHz with a partial trailing frame", buildWav({ sampleRate: 8000, channels: 2, data: new Uint8Array(writeWavPcm16(speechLike(8000, 3, 2), 8000, 2).subarray(44, 44 + 4 * 24000 + 3)) })],
  ];
  it.each(cases)("%s: every set", (name, bytes) => {
    const path = file(`${name.replace(/\W+/g, "-")}.wav`, bytes);
    for (const set of MEASUREMENT_SETS) {
      const streamed = analyzeFileAt(path, { set });
      expect(streamed.status).toBe("ok");
      expect(streamed).toEqual(analyzeFile(bytes, { path, set }));
      expect(JSON.stringify(streamed)).toBe(JSON.stringify(analyzeFile(bytes, { path, set })));
    }
  });

  it("errors: the same records (truncated, no samples, NaN before an unsupported rate, limits, --compat deepeval)", () => {
    const nanAtLowRate = buildWav({ format: 3, bits: 32, sampleRate: 500, data: new Uint8Array(Float32Array.from([...new Array(800).fill(0.1), NaN]).buffer) });
    const cases: Array<[Uint8Array, Parameters<typeof analyzeFileAt>[1]]> = [
      [buildWav({ data: new Uint8Array(300), dataSize: 1000 }), {}],
      [writeWavPcm16(new Int16Array(0), 8000), {}],
      [nanAtLowRate, {}],
      [nanAtLowRate, { set: "parity" }],
      [buildWav({ sampleRate: 500, data: new Uint8Array(2000) }), { set: "loudness" }],
      [writeWavPcm16(speechLike(8000, 3, 1), 8000), { limits: { maxAudioSeconds: 2 } }],
      [buildWav({ bits: 24, data: new Uint8Array(300) }), { compat: "deepeval" }],
      [buildWav({ data: new Uint8Array(801), dataSize: 1000 }), { compat: "deepeval" }],
    ];
    for (const [i, [bytes, options]] of cases.entries()) {
      const path = file(`bad${i}.wav`, bytes);
      const streamed = analyzeFileAt(path, options);
      expect(streamed.status).toBe("error");
      expect(streamed).toEqual(analyzeFile(bytes, { ...options, path }));
    }
  });

  it.skipIf(!FFMPEG)("an MP3 (decoded by ffmpeg into a temporary file): every set as from its bytes", () => {
    const path = join(tmp, "speech.mp3");
    execFileSync(FFMPEG!, ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=220:d=6:sample_rate=24000,volume='0.5+0.5*sin(2*PI*4*t)':eval=frame", "-ac", "2", path]);
    const bytes = readFileSync(path);
    for (const set of MEASUREMENT_SETS) expect(analyzeFileAt(path, { set })).toEqual(analyzeFile(bytes, { path, set }));
  });
});

describe("the loudness set streamed (measureStandardsStream) equals the whole-clip loudness at any chunk size", () => {
  const o = resolveAcousticsOptions({});
  it.each([
    [8000, 1, 13, 1],
    [16000, 2, 12, 5],
    [44100, 1, 7, 1 << 15],
    [48000, 2, 9, 1 << 17],
  ])("%i Hz, %i channel(s), %i s, chunks up to %i frames", (rate, channels, seconds, max) => {
    const pcm = speechLike(rate, seconds, channels, rate);
    const decoded = decodeAudio(writeWavPcm16(pcm, rate, channels));
    const planar = toFloatPlanar({ samples: pcm, channels });
    const whole = analyzeLoudness(planar, rate);
    for (const seed of [1, 2]) {
      const got = measureStandardsStream(memoryPcmSource(decoded, randomChunkSizes(seed * 7919 + rate, max)), o, { set: "loudness", perChannel: true });
      expect(got.acoustics).toEqual(whole);
      if (channels > 1) expect(got.channels).toEqual(planar.map((c) => analyzeLoudness([c], rate)));
      else expect(got).not.toHaveProperty("channels");
    }
  });

  it("float sources are metered on their exact floats", () => {
    const rate = 24000;
    const floats = Float32Array.from({ length: rate * 12 }, (_, i) => 0.6 * Math.sin(i * 0.031) * Math.sin(i * 0.0002) + 1e-5 * (i % 13));
    const decoded = decodeAudio(buildWav({ format: 3, bits: 32, sampleRate: rate, data: new Uint8Array(floats.buffer) }));
    const got = measureStandardsStream(memoryPcmSource(decoded, randomChunkSizes(99, 40000)), o, { set: "loudness", perChannel: true });
    expect(got.acoustics).toEqual(analyzeLoudness([floats], rate));
  });
});
