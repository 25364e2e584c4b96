// Caller audio of a dataset turn as the session's PCM: the harness's own WAV loader and linear resampler bit for bit (formats.md F3.8), or the engine decoder with a band-limited resampler.
import { decodeAudio } from "../audio/decode.js";
import { downmixTruncating } from "../audio/convert.js";
import { resamplePcm16 } from "../audio/resample.js";
import { VoxError } from "../model/errors.js";

/** How caller audio reaches the session rate: `band-limited` (proper filter, default) or `linear` (the harness, bit for bit). */
export type ReplayResampler = "band-limited" | "linear";
/** Resamplers of replayed audio: a band-limited filter (default) or `linear`, which reproduces the harness bit for bit. */
export const REPLAY_RESAMPLERS: readonly ReplayResampler[] = ["band-limited", "linear"];

/** Mono int16 PCM at a rate. */
export interface MonoPcm {
  pcm: Int16Array;
  sampleRate: number;
}

/** A WAV parsed the way the harness parses it (F3.8): int16 conversion by sample width, stereo pair mean truncated. */
export function decodeHarnessWav(bytes: Uint8Array, name: string): MonoPcm {
  const fail = (why: string): never => {
    throw new VoxError("INVALID_AUDIO", `${name}: ${why}`, { file: name });
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") fail("not a RIFF/WAVE file");
  let fmt: { format: number; channels: number; rate: number; bits: number } | null = null;
  let data: Uint8Array | null = null;
  // Chunks walked as the harness does: no pad byte after an odd-sized chunk.
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === "fmt ") fmt = { format: view.getUint16(body, true), channels: view.getUint16(body + 2, true), rate: view.getUint32(body + 4, true), bits: view.getUint16(body + 14, true) };
    else if (id === "data") data = bytes.subarray(body, Math.min(bytes.length, body + size));
    at = body + size;
  }
  if (!fmt) return fail("no fmt chunk");
  if (!data) return fail("no data chunk");
  const width = fmt.bits / 8;
  const total = Math.floor(data.length / width);
  const d = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const samples = new Int16Array(total);
  if (fmt.format === 3) {
    if (width !== 4) fail(`IEEE float WAV with ${fmt.bits}-bit samples is not supported by the harness loader`);
    // clip(x · 32767) then truncation toward zero.
    for (let i = 0; i < total; i++) samples[i] = Math.trunc(Math.max(-32768, Math.min(32767, d.getFloat32(i * 4, true) * 32767)));
  } else if (width === 2) {
    for (let i = 0; i < total; i++) samples[i] = d.getInt16(i * 2, true);
  } else if (width === 1) {
    // u8 × 256 without removing the 128 offset (int16 wrap, as numpy's astype does).
    for (let i = 0; i < total; i++) samples[i] = (data[i] * 256) << 16 >> 16;
  } else if (width === 4) {
    for (let i = 0; i < total; i++) samples[i] = d.getInt32(i * 4, true) >> 16;
  } else {
    fail(`${fmt.bits}-bit samples are not supported by the harness loader`);
  }
  if (fmt.channels === 2) {
    const frames = Math.floor(total / 2);
    const mono = new Int16Array(frames);
    for (let k = 0; k < frames; k++) mono[k] = Math.trunc((samples[2 * k] + samples[2 * k + 1]) / 2);
    return { pcm: mono, sampleRate: fmt.rate };
  }
  // More than two channels are not handled by the harness: the samples stay interleaved as if mono.
  return { pcm: samples, sampleRate: fmt.rate };
}

/**
 * The harness's resampler (F3.8): out_len = trunc(N / src · target); output i sits at
 * i·(N−1)/(out_len−1) (numpy linspace), linear interpolation, truncation to int16; no filter.
 */
export function resampleHarnessLinear(pcm: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate) return pcm.slice();
  const n = pcm.length;
  const outLen = Math.trunc((n / fromRate) * toRate);
  const out = new Int16Array(Math.max(0, outLen));
  if (outLen <= 0 || n === 0) return out;
  const step = outLen > 1 ? (n - 1) / (outLen - 1) : 0;
  for (let i = 0; i < outLen; i++) {
    // linspace computes start + i·step, with the last point exactly n − 1.
    const x = i === outLen - 1 && outLen > 1 ? n - 1 : i * step;
    const left = Math.min(Math.floor(x), n - 1);
    const right = Math.min(left + 1, n - 1);
    const frac = x - left;
    out[i] = Math.trunc(pcm[left] + (pcm[right] - pcm[left]) * frac);
  }
  return out;
}

/**
 * Caller audio at `sampleRate`. `linear`: the harness's loader and resampler (so a replay sends the
 * bytes the harness sends); `band-limited`: the engine decoder (any WAV, or anything ffmpeg reads),
 * truncating downmix and a windowed-sinc resampler.
 */
export function callerPcm(bytes: Uint8Array, name: string, sampleRate: number, resampler: ReplayResampler): MonoPcm {
  if (resampler === "linear") {
    const h = decodeHarnessWav(bytes, name);
    return { pcm: resampleHarnessLinear(h.pcm, h.sampleRate, sampleRate), sampleRate };
  }
  const d = decodeAudio(bytes, { name });
  const mono = d.channels === 1 ? d.samples : downmixTruncating(d.samples, d.channels);
  return { pcm: d.sampleRate === sampleRate ? mono : resamplePcm16(mono, d.sampleRate, sampleRate), sampleRate };
}
