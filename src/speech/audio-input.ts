// Turns any Audio into what a speech model takes: its file bytes, or 16-bit mono PCM WAV at a given rate (through ffmpeg when the rate differs).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { downmixTruncating } from "../audio/convert.js";
import { decodeAudio } from "../audio/decode.js";
import { DECODE_MESSAGES, DecodeError } from "../audio/errors.js";
import { findFfmpeg } from "../audio/ffmpeg.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { Audio } from "../model/audio.js";
import { VoxError } from "../model/errors.js";
import { SpeechModelError } from "./errors.js";
import { runTool, withTempDir } from "./run-tool.js";

/** MIME types of raw, headerless PCM: 16-bit little-endian mono samples at `Audio.sampleRate`. */
const RAW_PCM = new Set(["audio/pcm", "audio/l16", "audio/x-raw"]);

const FFMPEG_INSTALL_HINT = "Install ffmpeg (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg) or set $FFMPEG_PATH.";

/** The bytes of `audio` as a file a model can read: inline or local bytes as they are, raw PCM wrapped in a WAV header. */
export function audioFileBytes(audio: Audio, model: string): { bytes: Uint8Array; mimeType: string } {
  if (!audio.hasBytes) {
    throw new SpeechModelError("INVALID_AUDIO", `${model}: the audio is a remote URL (${audio.url}); voxmetrics never fetches audio, give it bytes or a local file`, { model });
  }
  const bytes = audio.getBytes();
  const mimeType = (audio.mimeType ?? "audio/wav").toLowerCase();
  if (!RAW_PCM.has(mimeType)) return { bytes, mimeType };
  if (!audio.sampleRate) throw new SpeechModelError("INVALID_AUDIO", `${model}: raw PCM audio (${mimeType}) needs its sampleRate`, { model });
  const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
  return { bytes: writeWavPcm16(samples, audio.sampleRate), mimeType: "audio/wav" };
}

export interface MonoPcm16Options {
  model: string;
  signal?: AbortSignal;
  /** Bound on the ffmpeg run (ms). */
  timeoutMs: number;
}

/**
 * `audio` as a 16-bit mono PCM WAV at `sampleRate` Hz. A WAV already at that rate is decoded and
 * downmixed here; anything else (another rate, MP3, Ogg, …) goes through ffmpeg, run asynchronously
 * so a live call's event loop keeps its pace.
 */
export async function toMonoPcm16Wav(audio: Audio, sampleRate: number, options: MonoPcm16Options): Promise<{ wav: Uint8Array; frames: number }> {
  const { bytes, mimeType } = audioFileBytes(audio, options.model);
  const isWav = mimeType.includes("wav") || (bytes.length >= 12 && String.fromCharCode(...bytes.subarray(0, 4)) === "RIFF");
  if (isWav) {
    let decoded;
    try {
      decoded = decodeAudio(bytes, { name: options.model });
    } catch (e) {
      // A header without samples (§L8's ≤ 44-byte clip) says nothing: no audio rather than an error.
      if (e instanceof DecodeError && e.metricMessage === DECODE_MESSAGES.noSamples) return { wav: writeWavPcm16(new Int16Array(0), sampleRate), frames: 0 };
      throw e instanceof VoxError ? new SpeechModelError("INVALID_AUDIO", `${options.model}: ${e.detail}`, { model: options.model }) : e;
    }
    if (decoded.sampleRate === sampleRate) {
      const mono = downmixTruncating(decoded.samples, decoded.channels);
      return { wav: writeWavPcm16(mono, sampleRate), frames: mono.length };
    }
  }
  const ffmpeg = findFfmpeg();
  if (!ffmpeg) {
    throw new SpeechModelError("TOOL_MISSING", `${options.model}: converting ${mimeType} audio to ${sampleRate} Hz mono needs ffmpeg, which was not found. ${FFMPEG_INSTALL_HINT}`, { model: options.model });
  }
  const run = await withTempDir(async (dir) => {
    // A file, not a pipe: some containers (MP4/M4A) need a seekable input.
    const input = join(dir, "input");
    await writeFile(input, bytes);
    const args = ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", input, "-map", "0:a:0", "-ac", "1", "-ar", String(sampleRate), "-c:a", "pcm_s16le", "-f", "s16le", "pipe:1"];
    return runTool(ffmpeg, args, { model: `${options.model} (ffmpeg)`, timeoutMs: options.timeoutMs, signal: options.signal, installHint: FFMPEG_INSTALL_HINT });
  }).catch((e: unknown) => {
    if (e instanceof SpeechModelError && e.code === "MODEL_FAILED") throw new SpeechModelError("DECODE_ERROR", e.detail, { model: options.model });
    throw e;
  });
  const out = run.stdout;
  const samples = new Int16Array(out.buffer.slice(out.byteOffset, out.byteOffset + (out.byteLength & ~1)));
  return { wav: writeWavPcm16(samples, sampleRate), frames: samples.length };
}

/**
 * `audio` with `seconds` of digital silence appended, as a 16-bit PCM WAV at its own rate and channel
 * count: what §L6.2 transcribes for an interrupted agent turn (STT `truncatedAudioPadSeconds`).
 */
export function appendSilence(audio: Audio, seconds: number): Audio {
  if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError(`appendSilence: seconds must be a finite number ≥ 0, got ${seconds}`);
  const { bytes } = audioFileBytes(audio, "appendSilence");
  const decoded = decodeAudio(bytes, { name: audio.filename ?? "audio" });
  const padFrames = Math.round(seconds * decoded.sampleRate);
  const samples = new Int16Array((decoded.frames + padFrames) * decoded.channels);
  samples.set(decoded.samples.subarray(0, decoded.frames * decoded.channels));
  const wav = writeWavPcm16(samples, decoded.sampleRate, decoded.channels);
  return Audio.fromBytes(wav, "audio/wav", { sampleRate: decoded.sampleRate, duration: (decoded.frames + padFrames) / decoded.sampleRate, start_time: audio.start_time });
}
