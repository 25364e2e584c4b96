// Generated test calls: espeak-ng utterances with pauses, mono or dual-channel, resampled by sox and cached on disk.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { resampleWav, scratchDir, speak, writeWav16 } from "./tools.js";
import { seededRandom } from "./signals.js";
import type { PlanarAudio } from "./wav.js";

/** Sentences of a plausible support call; their syllable counts are known (see SENTENCE_SYLLABLES). */
export const SENTENCES = [
  "Hello, thank you for calling the support line.",
  "I would like to change the address on my account.",
  "Of course. Could you tell me your full name, please?",
  "My name is Anna Miller, and I moved last month.",
  "Thank you. What is the new street address?",
  "It is twenty four Oak Street, in Springfield.",
  "Great, I have updated that for you.",
  "Is there anything else I can help you with today?",
  "Yes, when will my next bill arrive?",
  "Your next bill will arrive on the fifth of June.",
];

const ESPEAK_RATE = 22050;

export interface CallSpec {
  /** Words per minute given to espeak-ng. */
  wpm: number;
  /** 1 = all utterances in one channel; 2 = alternating caller (left) and agent (right) channels. */
  channels: 1 | 2;
  /** How many times the sentence list is cycled. */
  repeats: number;
  /** Pause range between utterances (s). */
  pauseMin: number;
  pauseMax: number;
  seed: number;
}

export const DEFAULT_CALL: CallSpec = { wpm: 170, channels: 1, repeats: 1, pauseMin: 0.35, pauseMax: 1.4, seed: 7 };

/** Build the call at 22 050 Hz; returns the audio and each utterance's [start, end] (s) and channel. */
export function buildCall(spec: CallSpec): { audio: PlanarAudio; utterances: Array<{ start: number; end: number; channel: number; text: string }> } {
  const random = seededRandom(spec.seed);
  const parts: Array<{ pcm: Float32Array; channel: number; text: string; pauseBefore: number }> = [];
  for (let r = 0; r < spec.repeats; r++) {
    SENTENCES.forEach((text, i) => {
      const voice = spec.channels === 2 && i % 2 === 1 ? "en-us+f3" : "en-us";
      parts.push({
        pcm: speak(text, spec.wpm, voice).channels[0],
        channel: spec.channels === 2 ? i % 2 : 0,
        text,
        pauseBefore: spec.pauseMin + (spec.pauseMax - spec.pauseMin) * random(),
      });
    });
  }
  const total = parts.reduce((s, p) => s + Math.round(p.pauseBefore * ESPEAK_RATE) + p.pcm.length, 0) + ESPEAK_RATE / 2;
  const channels = Array.from({ length: spec.channels }, () => new Float32Array(total));
  const utterances: Array<{ start: number; end: number; channel: number; text: string }> = [];
  let at = 0;
  for (const p of parts) {
    at += Math.round(p.pauseBefore * ESPEAK_RATE);
    channels[p.channel].set(p.pcm, at);
    utterances.push({ start: at / ESPEAK_RATE, end: (at + p.pcm.length) / ESPEAK_RATE, channel: p.channel, text: p.text });
    at += p.pcm.length;
  }
  return { audio: { sampleRate: ESPEAK_RATE, channels }, utterances };
}

/** Path of the call rendered at `sampleRate` Hz as 16-bit WAV (cached). */
export function callWav(spec: CallSpec, sampleRate: number): string {
  const name = `call-${spec.wpm}-${spec.channels}ch-${spec.repeats}x-${spec.pauseMin}-${spec.pauseMax}-${spec.seed}`;
  const base = join(scratchDir(), `${name}-${ESPEAK_RATE}.wav`);
  if (!existsSync(base)) writeWav16(base, buildCall(spec).audio);
  if (sampleRate === ESPEAK_RATE) return base;
  const out = join(scratchDir(), `${name}-${sampleRate}.wav`);
  return existsSync(out) ? out : resampleWav(base, sampleRate, out);
}
