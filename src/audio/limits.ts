// Bounds on what one input may cost to decode: the sample rates any measurement handles, and the decoded-size budget (--max-audio-seconds, --max-channels) checked before and during decoding.
import { VoxError } from "../model/errors.js";

/** The highest sample rate any kernel accepts (a signed 32-bit integer); WAV headers can declare up to 2³² − 1. */
export const MAX_SAMPLE_RATE_HZ = 0x7fffffff;

/** Every bound on one input's decoded audio; defaults in DEFAULT_AUDIO_LIMITS. */
export interface AudioLimits {
  /**
   * Longest audio decoded from one file or clip (seconds); a file declaring or decoding to more is an error record.
   * 24 hours: far above any call recording, far below what would exhaust memory at common rates.
   * @defaultValue 86400
   */
  maxAudioSeconds: number;
  /**
   * Most channels in one file or clip; a header declaring more is an error record, refused before decoding.
   * @defaultValue 32
   */
  maxChannels: number;
  /**
   * A compressed container (decoded through ffmpeg) may decode to at most this many times the
   * duration its header declares, plus `expansionSlackSeconds`: a tiny file that declares seconds
   * and expands to hours is a decompression bomb, not a recording.
   * @defaultValue 4
   */
  maxExpansion: number;
  /**
   * Seconds allowed beyond `maxExpansion` × the declared duration (headers round, and short clips have padding).
   * @defaultValue 10
   */
  expansionSlackSeconds: number;
  /**
   * Longest one ffmpeg decode may run (seconds) before it is killed and the input becomes an error record.
   * @defaultValue 300
   */
  decodeTimeoutSeconds: number;
}

/** The default decoded-size budget of one file or clip (`--max-audio-seconds`, `--max-channels`, expansion rule), generous enough for any real call. */
export const DEFAULT_AUDIO_LIMITS: Readonly<AudioLimits> = Object.freeze({
  maxAudioSeconds: 86_400,
  maxChannels: 32,
  maxExpansion: 4,
  expansionSlackSeconds: 10,
  decodeTimeoutSeconds: 300,
});

/** Defaults overlaid with `partial`; a bound that is not a positive number is an INVALID_OPTION naming it. */
export function resolveAudioLimits(partial: Partial<AudioLimits> = {}): AudioLimits {
  const o: AudioLimits = { ...DEFAULT_AUDIO_LIMITS };
  for (const key of Object.keys(DEFAULT_AUDIO_LIMITS) as Array<keyof AudioLimits>) {
    const v = partial[key];
    if (v === undefined) continue;
    const integer = key === "maxChannels";
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
      throw new VoxError("INVALID_OPTION", `must be a positive ${integer ? "integer" : "number"}, got ${String(v)}`, { field: key });
    }
    o[key] = v;
  }
  return o;
}

/** What a WAV header declares, read without decoding anything; null fields when the header does not say. */
export interface DeclaredWav {
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Average bytes per second of the fmt chunk (what compressed formats use to declare their length). */
  byteRate: number;
  /** Declared size of the data chunk (bytes), null when there is none before the end of the bytes given. */
  dataBytes: number | null;
}

const FOURCC = (b: Uint8Array, at: number) => String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);

/** The fmt chunk (and data chunk size) of a RIFF/WAVE file's first bytes; null when there is no readable fmt chunk. */
export function readDeclaredWav(b: Uint8Array): DeclaredWav | null {
  if (b.length < 12 || FOURCC(b, 0) !== "RIFF" || FOURCC(b, 8) !== "WAVE") return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let fmt: Omit<DeclaredWav, "dataBytes"> | null = null;
  let dataBytes: number | null = null;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = FOURCC(b, at);
    const size = v.getUint32(at + 4, true);
    if (id === "fmt " && at + 24 <= b.length && !fmt) {
      fmt = {
        formatTag: v.getUint16(at + 8, true),
        channels: v.getUint16(at + 10, true),
        sampleRate: v.getUint32(at + 12, true),
        byteRate: v.getUint32(at + 16, true),
        bitsPerSample: v.getUint16(at + 22, true),
      };
      if (fmt.formatTag === 0xfffe && size >= 40 && at + 34 <= b.length) fmt.formatTag = v.getUint16(at + 32, true);
    } else if (id === "data" && dataBytes === null) {
      dataBytes = size;
    }
    if (fmt && dataBytes !== null) break;
    at += 8 + size + (size & 1);
  }
  return fmt ? { ...fmt, dataBytes } : null;
}

/** Why a decoded (or declared) rate cannot be measured at all, or null (noun phrases: "the header declares …"). */
export function sampleRateProblem(sampleRate: number): string | null {
  if (sampleRate > MAX_SAMPLE_RATE_HZ) return `a sample rate of ${sampleRate} Hz, above ${MAX_SAMPLE_RATE_HZ} Hz (the most any measurement handles)`;
  return null;
}

/** Why `channels` breaks the budget, or null. */
export function channelsProblem(channels: number, limits: AudioLimits): string | null {
  return channels > limits.maxChannels ? `${channels} channels, more than the limit of ${limits.maxChannels} (--max-channels)` : null;
}

/** Why `seconds` of audio break the budget, or null. */
export function durationProblem(seconds: number, limits: AudioLimits): string | null {
  return seconds > limits.maxAudioSeconds ? `${formatSeconds(seconds)} of audio, more than the limit of ${limits.maxAudioSeconds} s (--max-audio-seconds)` : null;
}

/** Longest duration an ffmpeg decode may produce for a file declaring `declaredSeconds` (null: not declared). */
export function decodeBudgetSeconds(declaredSeconds: number | null, limits: AudioLimits): number {
  if (declaredSeconds === null || !Number.isFinite(declaredSeconds)) return limits.maxAudioSeconds;
  return Math.min(limits.maxAudioSeconds, declaredSeconds * limits.maxExpansion + limits.expansionSlackSeconds);
}

export function formatSeconds(s: number): string {
  return `${Number.isInteger(s) ? s : s.toFixed(2)} s`;
}
