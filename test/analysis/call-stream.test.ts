// CallAnalysis of clips named by a local url: measured from the file in bounded chunks (openPcmSource and the streamed sets) ≡ decoded whole — parity, acoustics, integrity, timeline duration and errors equal — on mono and stereo, int16 and float WAV, several rates, MP3 and broken clips, in both compat modes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveAcousticsOptions } from "../../src/analysis/acoustics-options.js";
import { CallAnalysis, STREAM_CLIP_MIN_BYTES, type CallAnalysisOptions, type ClipAnalysis } from "../../src/analysis/call.js";
import { resolveIntegrityOptions } from "../../src/analysis/integrity.js";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { parseDeepevalJsonText } from "../../src/ingest/formats/deepeval-json.js";
import type { CompatMode } from "../../src/model/codec.js";
import type { ConversationalTestCase } from "../../src/model/test-case.js";
import { seededRandom } from "../helpers/random.js";
import { speechLikeAudio } from "../helpers/stream-audio.js";
import { FFMPEG } from "../helpers/tools.js";

// Count the clips measured from their file (the streamed path), calling the real openPcmSource.
const opened = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../src/audio/open-source.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/audio/open-source.js")>();
  return { ...real, openPcmSource: (...args: Parameters<typeof real.openPcmSource>) => { opened.count++; return real.openPcmSource(...args); } };
});

if (!FFMPEG) console.warn("ffmpeg is not installed: the MP3 clip of the streamed CallAnalysis test is left out");

/** A float32 WAV (format tag 3) of planar channels. */
function floatWav(planar: Float32Array[], sampleRate: number): Uint8Array {
  const channels = planar.length, frames = planar[0].length;
  const out = Buffer.alloc(44 + 4 * frames * channels);
  out.write("RIFF", 0);
  out.writeUInt32LE(36 + 4 * frames * channels, 4);
  out.write("WAVEfmt ", 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(3, 20);
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(4 * sampleRate * channels, 28);
  out.writeUInt16LE(4 * channels, 32);
  out.writeUInt16LE(32, 34);
  out.write("data", 36);
  out.writeUInt32LE(4 * frames * channels, 40);
  for (let f = 0; f < frames; f++) for (let c = 0; c < channels; c++) out.writeFloatLE(planar[c][f], 44 + 4 * (f * channels + c));
  return out;
}

/** Lost frames (exact zeros) and a repeated stretch in every channel, so the integrity block has events to agree on. */
function damage(planar: Float32Array[], sampleRate: number): Float32Array[] {
  return planar.map((x) => {
    const y = x.slice();
    const n = y.length;
    for (const at of [0.3, 0.5, 0.7]) y.fill(0, Math.floor(at * n), Math.floor(at * n) + Math.round(0.02 * sampleRate));
    const lag = Math.round(0.3 * sampleRate), from = Math.floor(0.8 * n) - 2 * lag;
    for (let i = 0; i < lag; i++) y[from + lag + i] = y[from + i];
    return y;
  });
}

let dir = "";
const clips: Array<{ url: string; role: "user" | "assistant" }> = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vox-call-stream-"));
  const put = (name: string, bytes: Uint8Array, role: "user" | "assistant" = "assistant") => {
    writeFileSync(join(dir, name), bytes);
    clips.push({ url: name, role });
  };
  let seed = 100;
  for (const [rate, channels, float, seconds] of [[16000, 1, false, 7], [48000, 2, false, 4], [24000, 1, true, 5], [44100, 2, true, 3], [8000, 1, false, 9], [22050, 1, false, 6]] as const) {
    const a = speechLikeAudio(seconds, rate, channels, seed++, { float, clip: seed % 2 === 0, noise: 0.002 });
    const planar = damage(Array.from({ length: channels }, (_, c) => a.floatChannels?.[c] ?? Float32Array.from({ length: a.frames }, (_, f) => a.samples[f * channels + c] / 32768)), rate);
    const int16 = new Int16Array(a.frames * channels);
    for (let f = 0; f < a.frames; f++) for (let c = 0; c < channels; c++) int16[f * channels + c] = Math.max(-32768, Math.min(32767, Math.round(planar[c][f] * 32768)));
    put(`clip-${rate}-${channels}-${float ? "f32" : "i16"}.wav`, float ? floatWav(planar, rate) : writeWavPcm16(int16, rate, channels), seed % 3 === 0 ? "user" : "assistant");
  }
  // A float WAV holding a NaN halfway (refused while it is read), a header that is not a WAV, a rate outside the standards set's range.
  const random = seededRandom(7);
  const noisy = Float32Array.from({ length: 16000 * 5 }, () => 0.1 * (random() - 0.5));
  noisy[40000] = NaN;
  put("nan.wav", floatWav([noisy], 16000));
  put("broken.wav", Uint8Array.from({ length: 300000 }, (_, i) => (i < 4 ? "RIFF".charCodeAt(i) : (i * 7919) & 255)));
  put("slow.wav", writeWavPcm16(Int16Array.from({ length: 600 * 20 }, (_, i) => Math.round(9000 * Math.sin(i / 3))), 600));
  if (FFMPEG) {
    const wav = join(dir, clips[0].url);
    const mp3 = join(dir, "clip.mp3");
    const { status } = spawnSync(FFMPEG, ["-v", "error", "-y", "-i", wav, "-b:a", "64k", mp3]);
    if (status === 0) clips.push({ url: "clip.mp3", role: "assistant" });
  }
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function testCase(compat: CompatMode): ConversationalTestCase {
  const json = { turns: clips.map((c, i) => ({ role: c.role, content: `turn ${i} says a few words here`, audio: { url: c.url, start_time: 10 * i } })) };
  const [parsed] = parseDeepevalJsonText(JSON.stringify(json), join(dir, "case.json"), { compat });
  if (!parsed.ok) throw parsed.error;
  return parsed.testCase;
}

function analyse(compat: CompatMode, options: CallAnalysisOptions, streamFromBytes: number): ClipAnalysis[] {
  const analysis = new CallAnalysis(testCase(compat), { ...options, compat, streamFromBytes });
  return clips.map((_, i) => analysis.clip(i)!);
}

describe("CallAnalysis of local clip files: streamed ≡ decoded whole", () => {
  const modes: Array<[string, CallAnalysisOptions]> = [
    ["parity only", {}],
    ["--acoustics", { acoustics: resolveAcousticsOptions() }],
    ["voxmetrics profile", { integrity: resolveIntegrityOptions() }],
    ["profile and --acoustics", { acoustics: resolveAcousticsOptions(), integrity: resolveIntegrityOptions() }],
  ];
  for (const compat of ["voxmetrics", "deepeval"] as const) {
    it.each(modes)(`--compat ${compat}, %s`, (_, options) => {
      opened.count = 0;
      const whole = analyse(compat, options, Infinity);
      expect(opened.count).toBe(0);
      const streamed = analyse(compat, options, 0);
      expect(opened.count).toBe(clips.length);
      streamed.forEach((c, i) => {
        expect(c, clips[i].url).toEqual(whole[i]);
        expect(JSON.stringify(c), clips[i].url).toBe(JSON.stringify(whole[i]));
      });
      // The comparison covers measured clips and every kind of failure.
      const ok = whole.filter((c) => c.errorDetail === undefined);
      // deepeval accepts only the 16-bit PCM WAVs (five of them); voxmetrics also the float WAVs and the MP3.
      expect(ok.length).toBeGreaterThanOrEqual(compat === "deepeval" ? 5 : 7);
      expect(whole.some((c) => c.errorDetail !== undefined)).toBe(true);
      if (options.integrity) {
        const profiled = ok.filter((c) => c.integrity);
        expect(profiled.length).toBeGreaterThanOrEqual(2);
        expect(profiled.reduce((n, c) => n + c.integrity!.dropouts.count + c.integrity!.repeats.count, 0)).toBeGreaterThan(0);
      }
      // The 600 Hz clip: parity measured, the standards set refused.
      if (options.acoustics) expect(whole.filter((c) => c.acousticsError).length).toBe(1);
    }, 120_000);
  }

  it("picks the path by file size: files under STREAM_CLIP_MIN_BYTES are decoded whole, larger ones streamed", () => {
    opened.count = 0;
    const analysis = new CallAnalysis(testCase("voxmetrics"), {});
    clips.forEach((_, i) => analysis.clip(i));
    // The 48 kHz stereo clip (4 s, 1.5 MB) is at least 1 MiB; the 8 kHz mono one (9 s, 144 KB) is not.
    expect(STREAM_CLIP_MIN_BYTES).toBe(1 << 20);
    expect(opened.count).toBeGreaterThan(0);
    expect(opened.count).toBeLessThan(clips.length);
  });
});
