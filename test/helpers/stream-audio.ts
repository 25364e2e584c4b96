// Generated speech-like recordings for the streaming property tests and benchmarks: voiced bursts with syllable modulation, pauses over noise, optional clipping and DC.
import type { DecodedAudio } from "../../src/audio/types.js";
import { seededRandom } from "./random.js";

export interface StreamAudioOptions {
  /** Keep the exact float samples (a float WAV); otherwise int16 only. */
  float?: boolean;
  /** Drive some bursts into clipping (full scale). */
  clip?: boolean;
  /** DC offset added to every sample. */
  dc?: number;
  /** Noise amplitude in the pauses (0 = digital silence). */
  noise?: number;
}

/**
 * `seconds` of `channels` channels at `sampleRate`: each channel alternates voiced bursts (a
 * harmonic tone at a gliding F0 of 90–260 Hz, amplitude-modulated at ≈ 4–6 syllables per second) and
 * pauses; the channels take turns like two parties. Deterministic from `seed`.
 */
export function speechLikeAudio(seconds: number, sampleRate: number, channels: number, seed: number, options: StreamAudioOptions = {}): DecodedAudio {
  const random = seededRandom(seed);
  const frames = Math.round(seconds * sampleRate);
  const planar = Array.from({ length: channels }, () => new Float32Array(frames));
  const noise = options.noise ?? 0.002;
  const dc = options.dc ?? 0;
  for (let c = 0; c < channels; c++) {
    const x = planar[c];
    let i = Math.floor(random() * 0.5 * sampleRate);
    for (let j = 0; j < i && j < frames; j++) x[j] = noise * (random() * 2 - 1) + dc;
    let talking = (c & 1) === 0;
    let burst = 0;
    while (i < frames) {
      const length = Math.floor((talking ? 0.6 + 2.4 * random() : 0.15 + 1.2 * random()) * sampleRate);
      const end = Math.min(frames, i + length);
      if (talking) {
        const f0 = 90 + 170 * random();
        const glide = (random() - 0.5) * 60;
        const rate = 4 + 2 * random();
        const loud = options.clip && burst++ % 3 === 1 ? 1.6 : 0.1 + 0.4 * random();
        let phase = 0;
        for (let j = i; j < end; j++) {
          const t = (j - i) / sampleRate;
          const f = f0 + glide * (t / Math.max(1e-9, (end - i) / sampleRate));
          phase += (2 * Math.PI * f) / sampleRate;
          const envelope = Math.max(0, Math.sin(Math.PI * rate * t)) ** 1.5;
          let v = 0;
          for (let h = 1; h <= 6; h++) if (h * f < 0.45 * sampleRate) v += Math.sin(h * phase) / h;
          const s = loud * envelope * v * 0.6 + noise * (random() * 2 - 1) + dc;
          x[j] = Math.max(-1, Math.min(32767 / 32768, s));
        }
      } else {
        for (let j = i; j < end; j++) x[j] = noise * (random() * 2 - 1) + dc;
      }
      i = end;
      talking = !talking;
    }
  }
  const samples = new Int16Array(frames * channels);
  for (let f = 0; f < frames; f++) {
    for (let c = 0; c < channels; c++) samples[f * channels + c] = Math.max(-32768, Math.min(32767, Math.round(planar[c][f] * 32768)));
  }
  return {
    sampleRate,
    channels,
    frames,
    samples,
    floatChannels: options.float ? planar : undefined,
    format: options.float ? "wav/float32" : "wav/pcm16",
    warnings: [],
  };
}
