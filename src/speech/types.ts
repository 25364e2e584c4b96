// The speech-model interfaces of voice-metrics.md §L9 (deepeval's DeepEvalBaseTTS / DeepEvalBaseSTT), as TypeScript contracts.
import type { Audio } from "../model/audio.js";

/** What a text-to-speech model returns for one utterance. */
export interface SynthesisResult {
  /** The spoken text as audio (a PCM WAV unless the model says otherwise in `Audio.mimeType`). */
  audio: Audio;
  /** What this call cost in US dollars, when the model knows its price; null otherwise. */
  costUsd: number | null;
}

/** Options of one synthesis call. */
export interface SynthesizeOptions {
  /** Model-specific voice (a persona's `voice`); null or absent = the model's default voice. */
  voice?: string | null;
  /** Aborts the call (a hung-up caller, a cancelled run). */
  signal?: AbortSignal;
}

/** A text-to-speech model (§L9 `DeepEvalBaseTTS`). */
export interface TextToSpeech {
  /** Model name as reported in run metadata (deepeval's `get_model_name()`). */
  readonly modelName: string;
  /** Sample rate of the audio it produces, in Hz (deepeval's class default is 24000). */
  readonly sampleRate: number;
  synthesize(text: string, options?: SynthesizeOptions): Promise<SynthesisResult>;
}

/** What a speech-to-text model returns for one clip. */
export interface TranscriptionResult {
  text: string;
  /** What this call cost in US dollars, when the model knows its price; null otherwise. */
  costUsd: number | null;
}

/** Options of one transcription call. */
export interface TranscribeOptions {
  /** Language code; `"auto"` asks for per-utterance detection (a persona's `multilingual_stt`). */
  language?: string;
  signal?: AbortSignal;
}

/** A speech-to-text model (§L9 `DeepEvalBaseSTT`). */
export interface SpeechToText {
  readonly modelName: string;
  /** Seconds of silence appended to interrupted audio before transcribing it (deepeval's `truncated_audio_pad_seconds`). */
  readonly truncatedAudioPadSeconds: number;
  transcribe(audio: Audio, options?: TranscribeOptions): Promise<TranscriptionResult>;
}
