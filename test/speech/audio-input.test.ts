// Audio prepared for speech models: 16-bit mono WAV at the model's rate (ffmpeg only when the rate differs), raw PCM, and the silence pad of interrupted turns.
import { afterEach, describe, expect, it } from "vitest";
import { decodeAudio } from "../../src/audio/decode.js";
import { findFfmpeg } from "../../src/audio/ffmpeg.js";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { Audio } from "../../src/model/audio.js";
import { appendSilence, toMonoPcm16Wav } from "../../src/speech/index.js";

const FFMPEG = findFfmpeg();

function tone(hz: number, seconds: number, rate: number, channels = 1): Int16Array {
  const frames = Math.round(seconds * rate);
  const out = new Int16Array(frames * channels);
  for (let i = 0; i < frames; i++) for (let c = 0; c < channels; c++) out[i * channels + c] = Math.round((c === 0 ? 10_000 : 4_000) * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}

function zeroCrossings(samples: Int16Array): number {
  let n = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1] < 0 !== samples[i] < 0) n++;
  return n;
}

const opts = { model: "test-model", timeoutMs: 30_000 };

describe("toMonoPcm16Wav", () => {
  const savedPath = process.env.FFMPEG_PATH;
  afterEach(() => {
    if (savedPath === undefined) delete process.env.FFMPEG_PATH;
    else process.env.FFMPEG_PATH = savedPath;
  });

  it("a WAV at the target rate is downmixed here, without ffmpeg; another rate then needs ffmpeg (TOOL_MISSING with a hint)", async () => {
    process.env.FFMPEG_PATH = "/nonexistent/ffmpeg";
    const stereo = tone(440, 0.5, 16_000, 2);
    const { wav, frames } = await toMonoPcm16Wav(Audio.fromBytes(writeWavPcm16(stereo, 16_000, 2), "audio/wav"), 16_000, opts);
    const decoded = decodeAudio(wav);
    expect([decoded.sampleRate, decoded.channels, decoded.frames, frames]).toEqual([16_000, 1, 8000, 8000]);
    expect(decoded.samples[100]).toBe(Math.trunc((stereo[200] + stereo[201]) / 2));
    await expect(toMonoPcm16Wav(Audio.fromBytes(writeWavPcm16(tone(440, 0.5, 44_100), 44_100), "audio/wav"), 16_000, opts)).rejects.toMatchObject({
      code: "TOOL_MISSING",
      message: expect.stringMatching(/needs ffmpeg.*apt-get install ffmpeg/),
    });
  });

  it.skipIf(!FFMPEG)("another rate goes through ffmpeg: length and pitch are kept", async () => {
    const { wav, frames } = await toMonoPcm16Wav(Audio.fromBytes(writeWavPcm16(tone(300, 2, 44_100, 2), 44_100, 2), "audio/wav"), 16_000, opts);
    const decoded = decodeAudio(wav);
    expect([decoded.sampleRate, decoded.channels]).toEqual([16_000, 1]);
    expect(Math.abs(frames - 32_000)).toBeLessThanOrEqual(16);
    // 300 Hz for 2 s: 1200 zero crossings, whatever the rate.
    expect(Math.abs(zeroCrossings(decoded.samples) - 1200)).toBeLessThanOrEqual(4);
  });

  it("raw PCM (audio/pcm) is read at its sampleRate; without one it is refused", async () => {
    const samples = tone(200, 0.25, 16_000);
    const { wav } = await toMonoPcm16Wav(Audio.fromBytes(new Uint8Array(samples.buffer), "audio/pcm", { sampleRate: 16_000 }), 16_000, opts);
    expect(Array.from(decodeAudio(wav).samples)).toEqual(Array.from(samples));
    await expect(toMonoPcm16Wav(Audio.fromBytes(new Uint8Array(samples.buffer), "audio/pcm"), 16_000, opts)).rejects.toMatchObject({ code: "INVALID_AUDIO", message: expect.stringMatching(/needs its sampleRate/) });
  });

  it("undecodable bytes are INVALID_AUDIO (a broken WAV) or DECODE_ERROR (ffmpeg's reason) naming the model, not a crash", async () => {
    const junkWav = Audio.fromBytes(new TextEncoder().encode("RIFF....WAVEjunkjunkjunk"), "audio/wav");
    await expect(toMonoPcm16Wav(junkWav, 16_000, opts)).rejects.toMatchObject({ code: "INVALID_AUDIO", message: expect.stringMatching(/^test-model: unreadable WAV/) });
    if (!FFMPEG) return;
    const junk = Audio.fromBytes(new TextEncoder().encode("not audio at all"), "audio/mpeg");
    await expect(toMonoPcm16Wav(junk, 16_000, opts)).rejects.toMatchObject({ code: "DECODE_ERROR", message: expect.stringMatching(/^test-model \(ffmpeg\): .*exited with status 1: .*Invalid data/) });
  });
});

describe("appendSilence (truncatedAudioPadSeconds)", () => {
  it("appends exactly round(seconds · rate) zero frames and keeps the samples, channels and start_time", () => {
    const samples = tone(500, 1, 24_000, 2);
    const audio = Audio.fromBytes(writeWavPcm16(samples, 24_000, 2), "audio/wav", { start_time: 3.25 });
    const padded = appendSilence(audio, 0.3);
    const decoded = decodeAudio(padded.getBytes());
    expect([decoded.sampleRate, decoded.channels, decoded.frames]).toEqual([24_000, 2, 24_000 + 7200]);
    expect(Array.from(decoded.samples.subarray(0, samples.length))).toEqual(Array.from(samples));
    expect(decoded.samples.subarray(samples.length).every((s) => s === 0)).toBe(true);
    expect(padded.start_time).toBe(3.25);
    expect(padded.duration).toBeCloseTo(1.3, 12);
    expect(() => appendSilence(audio, -1)).toThrow(RangeError);
  });
});
