// The replay session config: the Voice Live harness's flat keys, their defaults, the precedence defaults < config file < command line, and the realtime session.update they make.
import { readFileSync } from "node:fs";
import { VoxError } from "../model/errors.js";

/** The harness's session settings (flat keys of its `--config` file). */
export interface ReplaySessionConfig {
  /** Model name (also sent as the `model` query parameter when the URL has none). */
  model: string;
  /** Voice name. */
  voice: string;
  /** `azure-standard` (Azure TTS voice object) or `preset` (a plain voice name such as `alloy`). */
  voice_type: string;
  /** PCM rate sent and requested, in Hz (16000 or 24000). */
  sample_rate: number;
  /** Input noise reduction type, `none` = off. */
  noise_reduction: string;
  /** Input echo cancellation type, `none` = off. */
  echo_cancellation: string;
  /** Turn detection type: server_vad, azure_semantic_vad, azure_semantic_vad_multilingual. */
  vad_type: string;
  /** VAD threshold (null = the service default). */
  vad_threshold: number | null;
  /** Silence that ends speech, in ms (null = the service default, 500). */
  silence_duration_ms: number | null;
  /** Audio kept before detected speech, in ms (null = the service default). */
  prefix_padding_ms: number | null;
  /** Semantic end-of-utterance detection. */
  use_eou_detection: boolean;
  /** End-of-utterance model. */
  eou_model: string;
  /** Push-to-talk: the client commits and asks for the response; server VAD stays configured. */
  push_to_talk: boolean;
  /** Barge-in: the service interrupts and auto-truncates its response when the caller speaks. */
  enable_barge_in: boolean;
  /** Input transcription model (null = gpt-4o-transcribe for realtime models, azure-speech otherwise). */
  transcription_model: string | null;
}

/** The harness's session defaults (model, voice, VAD, noise reduction, echo cancellation, turn-detection thresholds), overridden by `--config` and flags. */
export const DEFAULT_REPLAY_SESSION_CONFIG: Readonly<ReplaySessionConfig> = Object.freeze({
  model: "gpt-realtime",
  voice: "en-US-Ava:DragonHDLatestNeural",
  voice_type: "azure-standard",
  sample_rate: 24000,
  noise_reduction: "azure_deep_noise_suppression",
  echo_cancellation: "server_echo_cancellation",
  vad_type: "azure_semantic_vad_multilingual",
  vad_threshold: null,
  silence_duration_ms: null,
  prefix_padding_ms: null,
  use_eou_detection: true,
  eou_model: "semantic_detection_v1_multilingual",
  push_to_talk: false,
  enable_barge_in: true,
  transcription_model: null,
});

/** The flat session-config keys `--config` accepts, in the harness's order. */
export const REPLAY_SESSION_KEYS = Object.keys(DEFAULT_REPLAY_SESSION_CONFIG) as (keyof ReplaySessionConfig)[];

/** Default instructions when a conversation has no system prompt (formats.md F4.2). */
export const DEFAULT_INSTRUCTIONS = "You are a helpful agent assisting users with their questions.";
/** Appended to the instructions sent to the service when the conversation declares tools. */
export const TOOLS_INSTRUCTIONS_SUFFIX = " Use available tools when appropriate.";

type Kind = "string" | "int" | "number" | "boolean";
const KINDS: Record<keyof ReplaySessionConfig, { kind: Kind; nullable?: boolean }> = {
  model: { kind: "string" },
  voice: { kind: "string" },
  voice_type: { kind: "string" },
  sample_rate: { kind: "int" },
  noise_reduction: { kind: "string" },
  echo_cancellation: { kind: "string" },
  vad_type: { kind: "string" },
  vad_threshold: { kind: "number", nullable: true },
  silence_duration_ms: { kind: "int", nullable: true },
  prefix_padding_ms: { kind: "int", nullable: true },
  use_eou_detection: { kind: "boolean" },
  eou_model: { kind: "string" },
  push_to_talk: { kind: "boolean" },
  enable_barge_in: { kind: "boolean" },
  transcription_model: { kind: "string", nullable: true },
};

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Check one value against its key's type; the error names the source and the key. */
function checked(key: keyof ReplaySessionConfig, value: unknown, source: string): unknown {
  const { kind, nullable } = KINDS[key];
  const bad = (what: string): never => {
    throw new VoxError("INVALID_OPTION", `${key} must be ${what}${nullable ? " or null" : ""}, got ${JSON.stringify(value)}`, { file: source, field: key });
  };
  if (value === null) return nullable ? null : bad(kind === "boolean" ? "true or false" : `a ${kind}`);
  if (kind === "string" && typeof value !== "string") bad("a string");
  if (kind === "boolean" && typeof value !== "boolean") bad("true or false");
  if ((kind === "int" || kind === "number") && (typeof value !== "number" || !Number.isFinite(value) || value < 0)) bad("a number ≥ 0");
  if (kind === "int" && !Number.isInteger(value)) bad("an integer");
  if (key === "sample_rate" && value !== 16000 && value !== 24000) bad("16000 or 24000");
  return value;
}

/**
 * The settings of a config file: flat keys, or the nested shape of a realtime session (`voice`
 * object, `turn_detection`, `input_audio_noise_reduction`, …). Unknown keys are errors, so a typo
 * never silently falls back to a default.
 */
export function parseSessionConfig(value: unknown, source: string): Partial<ReplaySessionConfig> {
  if (!isObject(value)) throw new VoxError("INVALID_OPTION", "a session config must be a JSON object", { file: source });
  const flat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "voice" && isObject(v)) {
      if (v.name !== undefined) flat.voice = v.name;
      if (v.type !== undefined) flat.voice_type = v.type;
    } else if (k === "turn_detection" && isObject(v)) {
      if (v.type !== undefined) flat.vad_type = v.type;
      if (v.threshold !== undefined) flat.vad_threshold = v.threshold;
      if (v.silence_duration_ms !== undefined) flat.silence_duration_ms = v.silence_duration_ms;
      if (v.prefix_padding_ms !== undefined) flat.prefix_padding_ms = v.prefix_padding_ms;
      if (isObject(v.end_of_utterance_detection)) {
        flat.use_eou_detection = true;
        if (v.end_of_utterance_detection.model !== undefined) flat.eou_model = v.end_of_utterance_detection.model;
      }
    } else if (k === "input_audio_noise_reduction") flat.noise_reduction = isObject(v) ? v.type : "none";
    else if (k === "input_audio_echo_cancellation") flat.echo_cancellation = isObject(v) ? v.type : "none";
    else if (k === "input_audio_transcription") flat.transcription_model = isObject(v) ? v.model : null;
    else flat[k] = v;
  }
  const out: Partial<ReplaySessionConfig> = {};
  for (const [k, v] of Object.entries(flat)) {
    if (!(k in KINDS)) throw new VoxError("INVALID_OPTION", `unknown session config key "${k}" (known: ${REPLAY_SESSION_KEYS.join(", ")})`, { file: source, field: k });
    (out as Record<string, unknown>)[k] = checked(k as keyof ReplaySessionConfig, v, source);
  }
  return out;
}

/** Read a `--config` JSON file. */
export function readSessionConfigFile(path: string): Partial<ReplaySessionConfig> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new VoxError("IO_ERROR", `cannot read the session config: ${(e as Error).message}`, { file: path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new VoxError("INVALID_JSON", `the session config is not valid JSON: ${(e as Error).message}`, { file: path });
  }
  return parseSessionConfig(value, path);
}

/** Where each resolved value came from. */
export type ConfigSource = "default" | "config" | "cli";

export interface ResolvedSessionConfig {
  config: ReplaySessionConfig;
  sources: Record<keyof ReplaySessionConfig, ConfigSource>;
}

/** The harness's precedence: defaults, overlaid by the config file, overlaid by command-line values (undefined = not given). */
export function resolveSessionConfig(file: Partial<ReplaySessionConfig> = {}, cli: Partial<ReplaySessionConfig> = {}): ResolvedSessionConfig {
  const config = { ...DEFAULT_REPLAY_SESSION_CONFIG } as ReplaySessionConfig;
  const sources = {} as Record<keyof ReplaySessionConfig, ConfigSource>;
  for (const key of REPLAY_SESSION_KEYS) {
    sources[key] = "default";
    if (file[key] !== undefined) {
      (config as unknown as Record<string, unknown>)[key] = file[key];
      sources[key] = "config";
    }
    if (cli[key] !== undefined) {
      (config as unknown as Record<string, unknown>)[key] = checked(key, cli[key], "command line");
      sources[key] = "cli";
    }
  }
  return { config, sources };
}

/** The input transcription model: the configured one, else gpt-4o-transcribe for realtime models and azure-speech for cascaded ones. */
export function transcriptionModelOf(c: ReplaySessionConfig): string {
  if (c.transcription_model) return c.transcription_model;
  return /realtime|gpt-4o/.test(c.model) ? "gpt-4o-transcribe" : "azure-speech";
}

/**
 * The `session` of the session.update sent once per conversation: instructions (with the tools
 * suffix when tools exist), voice, audio formats and rate, turn detection with its thresholds and
 * end-of-utterance model, noise reduction, echo cancellation, input transcription, tools.
 */
export function sessionUpdateOf(c: ReplaySessionConfig, instructions: string, tools: readonly unknown[]): Record<string, unknown> {
  const turnDetection: Record<string, unknown> = { type: c.vad_type };
  if (c.vad_threshold !== null) turnDetection.threshold = c.vad_threshold;
  if (c.silence_duration_ms !== null) turnDetection.silence_duration_ms = c.silence_duration_ms;
  if (c.prefix_padding_ms !== null) turnDetection.prefix_padding_ms = c.prefix_padding_ms;
  if (c.use_eou_detection) turnDetection.end_of_utterance_detection = { model: c.eou_model };
  turnDetection.create_response = !c.push_to_talk;
  turnDetection.interrupt_response = c.enable_barge_in;
  turnDetection.auto_truncate = c.enable_barge_in;
  const session: Record<string, unknown> = {
    modalities: ["text", "audio"],
    instructions: tools.length ? instructions + TOOLS_INSTRUCTIONS_SUFFIX : instructions,
    voice: c.voice_type === "preset" ? c.voice : { name: c.voice, type: c.voice_type },
    input_audio_format: "pcm16",
    output_audio_format: "pcm16",
    input_audio_sampling_rate: c.sample_rate,
    turn_detection: turnDetection,
    input_audio_noise_reduction: c.noise_reduction === "none" ? null : { type: c.noise_reduction },
    input_audio_echo_cancellation: c.echo_cancellation === "none" ? null : { type: c.echo_cancellation },
    input_audio_transcription: { model: transcriptionModelOf(c) },
  };
  if (tools.length) {
    session.tools = tools;
    session.tool_choice = "auto";
  }
  return session;
}

/** The same settings in the GA event shape (`session.type`, `audio.input` / `audio.output`). */
export function sessionUpdateOfGa(c: ReplaySessionConfig, instructions: string, tools: readonly unknown[]): Record<string, unknown> {
  const beta = sessionUpdateOf(c, instructions, tools);
  const format = { type: "audio/pcm", rate: c.sample_rate };
  const session: Record<string, unknown> = {
    type: "realtime",
    model: c.model,
    instructions: beta.instructions,
    output_modalities: ["audio"],
    audio: {
      input: {
        format,
        turn_detection: beta.turn_detection,
        noise_reduction: beta.input_audio_noise_reduction,
        echo_cancellation: beta.input_audio_echo_cancellation,
        transcription: beta.input_audio_transcription,
      },
      output: { format, voice: beta.voice },
    },
  };
  if (tools.length) {
    session.tools = tools;
    session.tool_choice = "auto";
  }
  return session;
}
