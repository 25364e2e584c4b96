// A deterministic speech-like signal for the reference agent and tests: voiced syllables with moving formants, word pauses, a low noise floor.
import { Audio, writeWavPcm16, type SynthesisResult, type SynthesizeOptions, type TextToSpeech } from "../src/index.js";
import { seededRandom } from "../test/helpers/random.js";

export interface SyntheticSpeechOptions {
  /** Output rate in Hz. */
  sampleRate?: number;
  /** Mean fundamental frequency in Hz (declines across the utterance). */
  pitchHz?: number;
  /** Speaking rate in words per minute (sets the syllable length). */
  wordsPerMinute?: number;
  /** RMS level of voiced speech in dBFS. */
  levelDbfs?: number;
  /** Seed of the variation (same text and seed → same samples). */
  seed?: number;
}

function hashText(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Vowel formant pairs (Hz) the syllables cycle through. */
const VOWELS: Array<[number, number]> = [[730, 1090], [270, 2290], [530, 1840], [300, 870], [640, 1190], [490, 1350]];

/**
 * Speech-like PCM for `text`: each word is one or more voiced syllables (a harmonic source shaped by
 * two formants, with a raised-cosine envelope), words are separated by short pauses. Pitch glides
 * and jitters so no 250 ms window repeats (deepeval's loop detector stays quiet) and the clip ends
 * on a fade, not at full energy.
 */
export function synthesizeSpeech(text: string, options: SyntheticSpeechOptions = {}): Int16Array {
  const rate = options.sampleRate ?? 24000;
  const f0 = options.pitchHz ?? 150;
  const wpm = options.wordsPerMinute ?? 160;
  const level = Math.pow(10, (options.levelDbfs ?? -20) / 20) * 32768;
  const rnd = seededRandom(hashText(text) ^ (options.seed ?? 1));
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return new Int16Array(0);
  const syllables = words.map((w) => Math.max(1, Math.round(w.replace(/[^A-Za-z]/g, "").length / 3)));
  const totalSyllables = syllables.reduce((a, b) => a + b, 0);
  const pauseS = 0.07;
  // Syllable length so that words + pauses take 60/wpm s per word on average.
  const syllableS = Math.max(0.08, (words.length * (60 / wpm) - words.length * pauseS) / totalSyllables);
  const out: number[] = [];
  let phase = 0;
  let t = 0;
  const totalS = totalSyllables * syllableS + words.length * pauseS;
  for (let w = 0; w < words.length; w++) {
    for (let s = 0; s < syllables[w]; s++) {
      const n = Math.round(syllableS * (0.85 + 0.3 * rnd()) * rate);
      const [fa, fb] = VOWELS[Math.floor(rnd() * VOWELS.length)];
      const amp = level * (0.8 + 0.4 * rnd()) * Math.SQRT2;
      for (let i = 0; i < n; i++) {
        const progress = t / totalS;
        const pitch = f0 * (1.15 - 0.3 * progress) * (1 + 0.04 * Math.sin(2 * Math.PI * 5.3 * t) + 0.01 * (rnd() - 0.5));
        phase += (2 * Math.PI * pitch) / rate;
        let v = 0;
        for (let k = 1; k * pitch < Math.min(4000, rate / 2 - 200); k++) {
          const fk = k * pitch;
          const g = 1 / (1 + ((fk - fa) / 120) ** 2) + 0.6 / (1 + ((fk - fb) / 160) ** 2) + 0.05 / k;
          v += g * Math.sin(k * phase);
        }
        const env = Math.sin((Math.PI * i) / n) ** 0.6;
        out.push(v * env * amp * 0.35 + (rnd() - 0.5) * 8);
        t += 1 / rate;
      }
    }
    const gap = Math.round(pauseS * rate * (w === words.length - 1 ? 0.5 : 1));
    for (let i = 0; i < gap; i++) {
      out.push((rnd() - 0.5) * 8);
      t += 1 / rate;
    }
  }
  const pcm = new Int16Array(out.length);
  for (let i = 0; i < out.length; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(out[i])));
  return pcm;
}

/** The synthetic voice as a TextToSpeech (deterministic, instant, no install). */
export class SyntheticTts implements TextToSpeech {
  readonly modelName = "synthetic-speech";
  readonly sampleRate: number;
  constructor(private readonly options: SyntheticSpeechOptions = {}) {
    this.sampleRate = options.sampleRate ?? 24000;
  }
  async synthesize(text: string, _options?: SynthesizeOptions): Promise<SynthesisResult> {
    const pcm = synthesizeSpeech(text, { ...this.options, sampleRate: this.sampleRate });
    return { audio: Audio.fromBytes(writeWavPcm16(pcm, this.sampleRate), "audio/wav", { sampleRate: this.sampleRate, encoding: "wav", duration: pcm.length / this.sampleRate }), costUsd: 0 };
  }
}
