// Speech-to-text through an OpenAI-compatible `POST /audio/transcriptions` multipart upload (voice-metrics.md §L9 prices), implementing SpeechToText.
import { decodeAudio } from "../audio/decode.js";
import type { Audio } from "../model/audio.js";
import { audioFileBytes, toMonoPcm16Wav } from "./audio-input.js";
import { OpenAIClient, type OpenAIClientHooks, type OpenAIClientOptions } from "./openai-client.js";
import { overlayOptions } from "./options.js";
import type { SpeechToText, TranscribeOptions, TranscriptionResult } from "./types.js";

/** A transcription price: per 1 million input (audio) and output (text) tokens, or per minute of audio, in US dollars. */
export type TranscriptionPrice = { inputPerMillionTokensUsd: number; outputPerMillionTokensUsd: number } | { perMinuteUsd: number };

/** OpenAI's transcription prices (§L9). */
export const OPENAI_STT_PRICES: Readonly<Record<string, TranscriptionPrice>> = Object.freeze({
  "gpt-4o-transcribe": { inputPerMillionTokensUsd: 6, outputPerMillionTokensUsd: 10 },
  "gpt-4o-mini-transcribe": { inputPerMillionTokensUsd: 3, outputPerMillionTokensUsd: 5 },
  "whisper-1": { perMinuteUsd: 0.006 },
});

/** Options of the OpenAI-compatible STT model. */
export interface OpenAISpeechToTextOptions {
  /**
   * Model name; null = $VOXMETRICS_STT_MODEL, else deepeval's default.
   * @defaultValue null ("gpt-4o-transcribe")
   */
  model: string | null;
  /**
   * Language (ISO-639-1) when a call gives none; null or "auto" lets the service detect it per clip.
   * @defaultValue null
   */
  language: string | null;
  /**
   * Text that guides the recogniser (names, spelling); null sends none.
   * @defaultValue null
   */
  prompt: string | null;
  /**
   * Silence appended to interrupted audio before transcription (s), deepeval's value for OpenAI STT.
   * @defaultValue 0.3
   */
  truncatedAudioPadSeconds: number;
  /**
   * Price; undefined = OpenAI's price of `model` when listed, null = unknown (cost null).
   * @defaultValue undefined
   */
  price?: TranscriptionPrice | null;
  /**
   * Limit on converting audio the service does not take (ms).
   * @defaultValue 60000
   */
  conversionTimeoutMs: number;
  /**
   * Connection options (base URL, key, timeout, retries).
   * @defaultValue DEFAULT_OPENAI_CLIENT_OPTIONS
   */
  client: Partial<OpenAIClientOptions>;
}

export const DEFAULT_OPENAI_STT_MODEL = "gpt-4o-transcribe";

/** Defaults of the OpenAI-compatible speech-to-text. */
export const DEFAULT_OPENAI_STT_OPTIONS: Readonly<OpenAISpeechToTextOptions> = Object.freeze({
  model: null,
  language: null,
  prompt: null,
  truncatedAudioPadSeconds: 0.3,
  price: undefined,
  conversionTimeoutMs: 60_000,
  client: Object.freeze({}),
});

/** Defaults overlaid with `partial` and $VOXMETRICS_STT_MODEL; throws a RangeError naming a bad field. */
export function resolveOpenAISpeechToTextOptions(
  partial: Partial<OpenAISpeechToTextOptions> = {},
  env: Record<string, string | undefined> = process.env,
): OpenAISpeechToTextOptions & { model: string; price: TranscriptionPrice | null } {
  const o = overlayOptions(DEFAULT_OPENAI_STT_OPTIONS, partial, "OpenAI STT");
  const model = o.model ?? env.VOXMETRICS_STT_MODEL ?? DEFAULT_OPENAI_STT_MODEL;
  if (typeof model !== "string" || model === "") throw new RangeError("OpenAI STT option model must be a non-empty string");
  if (o.language !== null && (typeof o.language !== "string" || !/^(auto|[a-z]{2,3}(-[A-Za-z0-9]+)*)$/.test(o.language))) {
    throw new RangeError(`OpenAI STT option language must be a language code, "auto" or null, got ${String(o.language)}`);
  }
  if (!(o.truncatedAudioPadSeconds >= 0 && o.truncatedAudioPadSeconds <= 10)) throw new RangeError(`OpenAI STT option truncatedAudioPadSeconds must be in [0, 10], got ${String(o.truncatedAudioPadSeconds)}`);
  if (!Number.isInteger(o.conversionTimeoutMs) || o.conversionTimeoutMs < 100) throw new RangeError(`OpenAI STT option conversionTimeoutMs must be an integer ≥ 100, got ${String(o.conversionTimeoutMs)}`);
  const price = o.price === undefined ? (OPENAI_STT_PRICES[model] ?? null) : o.price;
  if (price !== null && !Object.values(price).every((v) => typeof v === "number" && v >= 0 && Number.isFinite(v))) throw new RangeError("OpenAI STT option price must hold non-negative numbers");
  return { ...o, model, price };
}

/** File name extension the service recognises for each MIME type it takes; other types are converted to WAV first. */
const UPLOAD_EXTENSIONS: Readonly<Record<string, string>> = Object.freeze({
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/ogg": "ogg",
  "audio/flac": "flac",
  "audio/webm": "webm",
  "audio/mp4": "m4a",
  "audio/m4a": "m4a",
});

/** Sample rate audio is converted to when the service does not take its format (what speech recognisers use). */
const CONVERSION_SAMPLE_RATE = 16_000;

interface TranscriptionUsage {
  type?: string;
  input_tokens?: number;
  output_tokens?: number;
  seconds?: number;
}

/** Transcripts from an OpenAI-compatible `/audio/transcriptions` endpoint. */
export class OpenAISpeechToText implements SpeechToText {
  readonly modelName: string;
  readonly truncatedAudioPadSeconds: number;
  readonly options: Readonly<ReturnType<typeof resolveOpenAISpeechToTextOptions>>;
  readonly client: OpenAIClient;

  constructor(options: Partial<OpenAISpeechToTextOptions> = {}, extra: OpenAIClientHooks = {}) {
    this.options = Object.freeze(resolveOpenAISpeechToTextOptions(options, extra.env));
    this.client = new OpenAIClient(this.options.client, extra);
    this.modelName = this.options.model;
    this.truncatedAudioPadSeconds = this.options.truncatedAudioPadSeconds;
  }

  async transcribe(audio: Audio, options: TranscribeOptions = {}): Promise<TranscriptionResult> {
    const { bytes, mimeType, extension } = await this.upload(audio, options.signal);
    const form = new FormData();
    form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }), `audio.${extension}`);
    form.append("model", this.modelName);
    form.append("response_format", "json");
    // "auto" (a persona's multilingual_stt) and no language both leave detection to the service.
    const language = options.language ?? this.options.language;
    if (language && language !== "auto") form.append("language", language);
    if (this.options.prompt !== null) form.append("prompt", this.options.prompt);

    const body = await this.client.postJson({ path: "/audio/transcriptions", form, model: this.modelName, signal: options.signal });
    if (typeof body !== "object" || body === null || typeof (body as { text?: unknown }).text !== "string") {
      throw this.client.badResponse(this.modelName, "/audio/transcriptions", 'the JSON response has no "text" string');
    }
    const { text, usage } = body as { text: string; usage?: TranscriptionUsage };
    return { text: text.trim(), costUsd: this.cost(usage, audio, bytes, mimeType) };
  }

  /** The file to upload: the audio's own bytes when the service reads its format, else a 16 kHz mono WAV. */
  private async upload(audio: Audio, signal?: AbortSignal): Promise<{ bytes: Uint8Array; mimeType: string; extension: string }> {
    const file = audioFileBytes(audio, this.modelName);
    const extension = UPLOAD_EXTENSIONS[file.mimeType];
    if (extension) return { ...file, extension };
    const { wav } = await toMonoPcm16Wav(audio, CONVERSION_SAMPLE_RATE, { model: this.modelName, signal, timeoutMs: this.options.conversionTimeoutMs });
    return { bytes: wav, mimeType: "audio/wav", extension: "wav" };
  }

  /** Token prices apply to the reported usage; a per-minute price to the reported seconds, else the clip's own duration. */
  private cost(usage: TranscriptionUsage | undefined, audio: Audio, bytes: Uint8Array, mimeType: string): number | null {
    const price = this.options.price;
    if (price === null) return null;
    if ("perMinuteUsd" in price) {
      const seconds = typeof usage?.seconds === "number" ? usage.seconds : (audio.duration ?? durationOf(bytes, mimeType));
      return seconds === null ? null : (seconds / 60) * price.perMinuteUsd;
    }
    if (typeof usage?.input_tokens !== "number" || typeof usage.output_tokens !== "number") return null;
    return (usage.input_tokens * price.inputPerMillionTokensUsd + usage.output_tokens * price.outputPerMillionTokensUsd) / 1e6;
  }
}

function durationOf(bytes: Uint8Array, mimeType: string): number | null {
  try {
    const d = decodeAudio(bytes, { name: mimeType });
    return d.frames / d.sampleRate;
  } catch {
    return null;
  }
}
