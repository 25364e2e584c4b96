// Text-to-speech through an OpenAI-compatible `POST /audio/speech` (voice-metrics.md §L9 prices), implementing TextToSpeech.
import { decodeAudio } from "../audio/decode.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { Audio } from "../model/audio.js";
import { VoxError } from "../model/errors.js";
import { SpeechModelError } from "./errors.js";
import { OpenAIClient, type OpenAIClientHooks, type OpenAIClientOptions } from "./openai-client.js";
import { overlayOptions } from "./options.js";
import type { SynthesisResult, SynthesizeOptions, TextToSpeech } from "./types.js";

/** OpenAI's TTS prices in US dollars per 1 million input characters (§L9). */
export const OPENAI_TTS_PRICES_PER_MILLION_CHARACTERS: Readonly<Record<string, number>> = Object.freeze({ "tts-1": 15, "tts-1-hd": 30, "gpt-4o-mini-tts": 12 });

/** Options of the OpenAI-compatible TTS model. */
export interface OpenAITextToSpeechOptions {
  /**
   * Model name; null = $VOXMETRICS_TTS_MODEL, else deepeval's default.
   * @defaultValue null ("gpt-4o-mini-tts")
   */
  model: string | null;
  /**
   * Voice used when a call gives none (a persona's `voice` overrides it).
   * @defaultValue "alloy"
   */
  voice: string;
  /**
   * Audio the service returns: a WAV, or raw 16-bit PCM at `sampleRate` that is wrapped in a WAV here.
   * @defaultValue "wav"
   */
  responseFormat: "wav" | "pcm";
  /**
   * Output sample rate of the service (Hz); OpenAI's is 24 kHz. A WAV response's own header wins.
   * @defaultValue 24000
   */
  sampleRate: number;
  /**
   * Speaking speed (0.25–4); null leaves the service default (1).
   * @defaultValue null
   */
  speed: number | null;
  /**
   * Delivery instructions (`gpt-4o-mini-tts` only); null sends none.
   * @defaultValue null
   */
  instructions: string | null;
  /**
   * Price in US dollars per 1 million characters; undefined = OpenAI's price of `model` when listed, else unknown (cost null).
   * @defaultValue undefined
   */
  pricePerMillionCharactersUsd?: number | null;
  /**
   * Connection options (base URL, key, timeout, retries).
   * @defaultValue DEFAULT_OPENAI_CLIENT_OPTIONS
   */
  client: Partial<OpenAIClientOptions>;
}

/** Defaults of the OpenAI-compatible text-to-speech. */
export const DEFAULT_OPENAI_TTS_OPTIONS: Readonly<OpenAITextToSpeechOptions> = Object.freeze({
  model: null,
  voice: "alloy",
  responseFormat: "wav",
  sampleRate: 24_000,
  speed: null,
  instructions: null,
  pricePerMillionCharactersUsd: undefined,
  client: Object.freeze({}),
});

export const DEFAULT_OPENAI_TTS_MODEL = "gpt-4o-mini-tts";

/** Defaults overlaid with `partial` and $VOXMETRICS_TTS_MODEL; throws a RangeError naming a bad field. */
export function resolveOpenAITextToSpeechOptions(
  partial: Partial<OpenAITextToSpeechOptions> = {},
  env: Record<string, string | undefined> = process.env,
): OpenAITextToSpeechOptions & { model: string; pricePerMillionCharactersUsd: number | null } {
  const o = overlayOptions(DEFAULT_OPENAI_TTS_OPTIONS, partial, "OpenAI TTS");
  const model = o.model ?? env.VOXMETRICS_TTS_MODEL ?? DEFAULT_OPENAI_TTS_MODEL;
  if (typeof model !== "string" || model === "") throw new RangeError("OpenAI TTS option model must be a non-empty string");
  if (typeof o.voice !== "string" || o.voice === "") throw new RangeError("OpenAI TTS option voice must be a non-empty string");
  if (o.responseFormat !== "wav" && o.responseFormat !== "pcm") throw new RangeError(`OpenAI TTS option responseFormat must be "wav" or "pcm", got ${String(o.responseFormat)}`);
  if (!Number.isInteger(o.sampleRate) || o.sampleRate < 8000 || o.sampleRate > 192_000) throw new RangeError(`OpenAI TTS option sampleRate must be an integer in [8000, 192000] Hz, got ${String(o.sampleRate)}`);
  if (o.speed !== null && !(o.speed >= 0.25 && o.speed <= 4)) throw new RangeError(`OpenAI TTS option speed must be in [0.25, 4] or null, got ${String(o.speed)}`);
  const price = o.pricePerMillionCharactersUsd === undefined ? (OPENAI_TTS_PRICES_PER_MILLION_CHARACTERS[model] ?? null) : o.pricePerMillionCharactersUsd;
  if (price !== null && !(price >= 0 && Number.isFinite(price))) throw new RangeError(`OpenAI TTS option pricePerMillionCharactersUsd must be ≥ 0 or null, got ${String(price)}`);
  return { ...o, model, pricePerMillionCharactersUsd: price };
}

/** Speech from an OpenAI-compatible `/audio/speech` endpoint; the result is always a 16-bit PCM WAV. */
export class OpenAITextToSpeech implements TextToSpeech {
  readonly modelName: string;
  readonly sampleRate: number;
  readonly options: Readonly<ReturnType<typeof resolveOpenAITextToSpeechOptions>>;
  readonly client: OpenAIClient;

  constructor(options: Partial<OpenAITextToSpeechOptions> = {}, extra: OpenAIClientHooks = {}) {
    this.options = Object.freeze(resolveOpenAITextToSpeechOptions(options, extra.env));
    this.client = new OpenAIClient(this.options.client, extra);
    this.modelName = this.options.model;
    this.sampleRate = this.options.sampleRate;
  }

  /** Cost of speaking `text` in US dollars, null when the price is unknown. */
  synthesisCost(text: string): number | null {
    const price = this.options.pricePerMillionCharactersUsd;
    return price === null ? null : ([...text].length * price) / 1e6;
  }

  async synthesize(text: string, options: SynthesizeOptions = {}): Promise<SynthesisResult> {
    if (typeof text !== "string" || text.trim() === "") throw new SpeechModelError("INVALID_OPTION", `${this.modelName}: nothing to synthesize (empty text)`, { model: this.modelName });
    const o = this.options;
    const json: Record<string, unknown> = { model: o.model, input: text, voice: options.voice ?? o.voice, response_format: o.responseFormat };
    if (o.speed !== null) json.speed = o.speed;
    if (o.instructions !== null) json.instructions = o.instructions;
    const response = await this.client.post({ path: "/audio/speech", json, model: this.modelName, signal: options.signal });
    const bad = (detail: string) => this.client.badResponse(this.modelName, "/audio/speech", detail, response.status);
    const type = response.contentType.split(";")[0].trim().toLowerCase();
    if (!(type.startsWith("audio/") || type === "application/octet-stream")) {
      throw bad(`expected audio, got content-type ${JSON.stringify(response.contentType || "(none)")}`);
    }
    if (response.body.length === 0) throw bad("the response holds no audio (empty body)");

    let wav: Uint8Array;
    let rate: number;
    let frames: number;
    if (o.responseFormat === "pcm") {
      if (response.body.length % 2 !== 0) throw bad(`raw PCM of ${response.body.length} bytes is not whole 16-bit samples`);
      const samples = new Int16Array(response.body.buffer.slice(response.body.byteOffset, response.body.byteOffset + response.body.byteLength));
      wav = writeWavPcm16(samples, o.sampleRate);
      rate = o.sampleRate;
      frames = samples.length;
    } else {
      // Streamed WAVs carry placeholder sizes; re-writing the decoded samples gives every reader a well-formed file.
      let decoded;
      try {
        decoded = decodeAudio(response.body, { name: this.modelName });
      } catch (e) {
        throw bad(`the audio is not a readable WAV: ${e instanceof VoxError ? e.detail : String(e)}`);
      }
      wav = writeWavPcm16(decoded.samples, decoded.sampleRate, decoded.channels);
      rate = decoded.sampleRate;
      frames = decoded.frames;
    }
    const audio = Audio.fromBytes(wav, "audio/wav", { sampleRate: rate, duration: frames / rate });
    return { audio, costUsd: this.synthesisCost(text) };
  }
}
