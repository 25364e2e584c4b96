// Clip duration for the call timeline as deepeval computes it (voice-metrics.md §4.3): WAV length, metadata as fallback.
import { readCompatWav } from "./wav-compat.js";

/**
 * deepeval's `audio_duration` on WAV bytes: (data bytes / 2 / channels) / rate for a 16-bit PCM WAV
 * Python's `wave` opens (odd byte counts are fine here); null when it cannot (the caller then uses metadata).
 */
export function compatWavDuration(bytes: Uint8Array): number | null {
  try {
    const wav = readCompatWav(bytes);
    if (wav.sampleWidth !== 2 || wav.sampleRate === 0) return null;
    return wav.data.length / 2 / Math.max(wav.channels, 1) / wav.sampleRate;
  } catch {
    return null;
  }
}
