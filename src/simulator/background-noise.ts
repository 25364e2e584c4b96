// A persona's background noise (voice-metrics.md §L6.1): the bed decoded, resampled to the speech rate, looped under the caller's speech as speech + trunc(bed × volume), clamped to int16.
import { readFileSync } from "node:fs";
import { downmixTruncating } from "../audio/convert.js";
import { decodeAudio } from "../audio/decode.js";
import { resamplePcm16 } from "../audio/resample.js";
import type { BackgroundNoiseSettings } from "./golden.js";

/** A decoded bed, cached per rate. */
export class BackgroundNoise {
  private readonly byRate = new Map<number, Int16Array>();

  private constructor(
    readonly settings: BackgroundNoiseSettings,
    private readonly pcm: Int16Array,
    private readonly rate: number,
  ) {}

  /**
   * Load the bed; a missing or undecodable file gives null and a warning (deepeval only logs one),
   * so the call goes on without noise.
   */
  static load(settings: BackgroundNoiseSettings, warn: (message: string) => void): BackgroundNoise | null {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(settings.audio);
    } catch (e) {
      warn(`background_noise ${settings.audio} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the caller speaks without it`);
      return null;
    }
    try {
      const d = decodeAudio(bytes, { name: settings.audio });
      const mono = d.channels === 1 ? d.samples : downmixTruncating(d.samples, d.channels);
      if (mono.length === 0) {
        warn(`background_noise ${settings.audio} holds no samples; the caller speaks without it`);
        return null;
      }
      return new BackgroundNoise(settings, mono, d.sampleRate);
    } catch (e) {
      warn(`background_noise ${settings.audio} cannot be decoded (${(e as Error).message}); the caller speaks without it`);
      return null;
    }
  }

  /** The bed at `sampleRate`. */
  bedAt(sampleRate: number): Int16Array {
    let bed = this.byRate.get(sampleRate);
    if (!bed) {
      bed = sampleRate === this.rate ? this.pcm : resamplePcm16(this.pcm, this.rate, sampleRate);
      if (bed.length === 0) bed = new Int16Array(1);
      this.byRate.set(sampleRate, bed);
    }
    return bed;
  }

  /** `speech` with the bed looped under it from the bed's start: speech + trunc(bed × volume), clamped to int16. */
  mix(speech: Int16Array, sampleRate: number): Int16Array {
    return mixBackground(speech, this.bedAt(sampleRate), this.settings.volume);
  }
}

/** out[i] = clamp(speech[i] + trunc(bed[i mod |bed|] × volume)) to [−32768, 32767]. */
export function mixBackground(speech: Int16Array, bed: Int16Array, volume: number): Int16Array {
  const out = new Int16Array(speech.length);
  const n = bed.length;
  for (let i = 0; i < speech.length; i++) {
    const v = speech[i] + Math.trunc(bed[i % n] * volume);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
