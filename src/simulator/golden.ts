// deepeval's ConversationalGolden and Persona (voice-metrics.md §L6.1) with InterruptionBehavior (§L6.2): validation and JSON / JSONL loading with deepeval's field names and aliases.
import { isAbsolute, resolve } from "node:path";
import { VoxError } from "../model/errors.js";
import { readRecordFile } from "./record-file.js";

/** How often a persona barges in: rare, normal or frequent. */
export type InterruptionFrequency = "rare" | "normal" | "frequent";
/** How a persona holds the floor once it has barged in: yield, adaptive or insist. */
export type OverlapPreset = "yield" | "adaptive" | "insist";
/** The persona barge-in frequencies, least to most. */
export const INTERRUPTION_FREQUENCIES: readonly InterruptionFrequency[] = Object.freeze(["rare", "normal", "frequent"]);
/** The persona overlap presets: yield, adaptive, insist. */
export const OVERLAP_PRESETS: readonly OverlapPreset[] = Object.freeze(["yield", "adaptive", "insist"]);

/** How a persona barges in (§L6.2). */
export interface InterruptionBehavior {
  frequency: InterruptionFrequency;
  overlap: OverlapPreset;
}

/** A persona's barge-in behaviour when it gives none: normal frequency, adaptive overlap. */
export const DEFAULT_INTERRUPTION_BEHAVIOR: Readonly<InterruptionBehavior> = Object.freeze({ frequency: "normal", overlap: "adaptive" });

/** A noise bed looped under the caller's speech (§L6.1 `BackgroundNoiseSettings`). */
export interface BackgroundNoiseSettings {
  /** Absolute path of the bed (WAV, or anything ffmpeg reads). */
  audio: string;
  /** Gain of the bed, 0..1. */
  volume: number;
}

/** The volume a persona's background noise is mixed at when the golden gives none (linear gain on the noise). */
export const DEFAULT_BACKGROUND_NOISE_VOLUME = 0.3;

/** The simulated caller (§L6.1). */
export interface Persona {
  characteristics: string;
  name: string | null;
  interruptionBehavior: InterruptionBehavior | null;
  /** false: the agent greets first; the first recorded turn is its greeting (1.0 s silent probe). */
  speaksFirst: boolean;
  /** Every caller turn is empty text with 1.0 s of digital silence (plus background). */
  muted: boolean;
  /** Passed to the TTS as its voice. */
  voice: string | null;
  backgroundNoise: BackgroundNoiseSettings | null;
  /** STT called with language "auto". */
  multilingualStt: boolean;
  /** Seconds: hang up once consecutive silent agent exchanges have lasted this long. */
  holdTimeout: number | null;
}

/** A scenario to simulate (deepeval's `ConversationalGolden`). */
export interface ConversationalGolden {
  scenario: string;
  expectedOutcome: string | null;
  name: string | null;
  persona: Persona | null;
  /** The caller's lines (the golden's user turns, in order); empty when the golden has no script. */
  script: string[];
  context: string[] | null;
  metadata: Record<string, unknown> | null;
  /** Where it was read (file, and record or line). */
  origin: string;
}

/** The goldens read from one JSON or JSONL file, with one error per bad record (file, line, field). */
export interface GoldenFile {
  goldens: ConversationalGolden[];
  errors: VoxError[];
}

/** The first key of `keys` present in `o` (deepeval accepts each field under its Python name and its camelCase alias). */
function pick(o: Record<string, unknown>, ...keys: string[]): { key: string; value: unknown } | null {
  for (const k of keys) if (o[k] !== undefined) return { key: k, value: o[k] };
  return null;
}

function parseInterruption(value: unknown, field: string, bad: (f: string, m: string) => never): InterruptionBehavior | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) bad(field, "must be an object {frequency, overlap}");
  const o = value as Record<string, unknown>;
  const frequency = o.frequency ?? DEFAULT_INTERRUPTION_BEHAVIOR.frequency;
  const overlap = o.overlap ?? DEFAULT_INTERRUPTION_BEHAVIOR.overlap;
  if (!INTERRUPTION_FREQUENCIES.includes(frequency as InterruptionFrequency)) bad(`${field}.frequency`, `must be one of ${INTERRUPTION_FREQUENCIES.join(", ")}, got ${JSON.stringify(frequency)}`);
  if (!OVERLAP_PRESETS.includes(overlap as OverlapPreset)) bad(`${field}.overlap`, `must be one of ${OVERLAP_PRESETS.join(", ")}, got ${JSON.stringify(overlap)}`);
  return { frequency: frequency as InterruptionFrequency, overlap: overlap as OverlapPreset };
}

/** Validate a persona object; `baseDir` resolves a relative background-noise path. */
export function parsePersona(value: unknown, baseDir: string, origin: string, field = "persona"): Persona {
  const bad = (f: string, message: string): never => {
    throw new VoxError("INVALID_SCRIPT", message, { file: origin, field: f });
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) bad(field, "must be an object with \"characteristics\"");
  const o = value as Record<string, unknown>;
  const characteristics = o.characteristics;
  if (typeof characteristics !== "string" || characteristics.trim() === "") bad(`${field}.characteristics`, "is required: a non-empty string");
  const optString = (...keys: string[]): string | null => {
    const p = pick(o, ...keys);
    if (!p || p.value === null) return null;
    if (typeof p.value !== "string") bad(`${field}.${p.key}`, "must be a string");
    return p.value as string;
  };
  const optBool = (def: boolean, ...keys: string[]): boolean => {
    const p = pick(o, ...keys);
    if (!p || p.value === null) return def;
    if (typeof p.value !== "boolean") bad(`${field}.${p.key}`, "must be true or false");
    return p.value as boolean;
  };
  const ib = pick(o, "interruption_behavior", "interruptionBehavior");
  const hold = pick(o, "hold_timeout", "holdTimeout");
  let holdTimeout: number | null = null;
  if (hold && hold.value !== null) {
    if (typeof hold.value !== "number" || !Number.isFinite(hold.value) || hold.value <= 0) bad(`${field}.${hold.key}`, `must be a number of seconds > 0, got ${JSON.stringify(hold.value)}`);
    holdTimeout = hold.value as number;
  }
  const bn = pick(o, "background_noise", "backgroundNoise");
  let backgroundNoise: BackgroundNoiseSettings | null = null;
  if (bn && bn.value !== null) {
    const f = `${field}.${bn.key}`;
    if (typeof bn.value !== "object" || Array.isArray(bn.value)) bad(f, "must be an object {audio, volume}");
    const b = bn.value as Record<string, unknown>;
    if (typeof b.audio !== "string" || b.audio === "") bad(`${f}.audio`, "must be the path of an audio file");
    const volume = b.volume ?? DEFAULT_BACKGROUND_NOISE_VOLUME;
    if (typeof volume !== "number" || !(volume >= 0 && volume <= 1)) bad(`${f}.volume`, `must be a number in [0, 1], got ${JSON.stringify(volume)}`);
    const audio = b.audio as string;
    backgroundNoise = { audio: isAbsolute(audio) ? audio : resolve(baseDir, audio), volume: volume as number };
  }
  return {
    characteristics: characteristics as string,
    name: optString("name"),
    interruptionBehavior: parseInterruption(ib?.value, `${field}.${ib?.key ?? "interruption_behavior"}`, bad),
    speaksFirst: optBool(true, "speaks_first", "speaksFirst"),
    muted: optBool(false, "muted"),
    voice: optString("voice"),
    backgroundNoise,
    multilingualStt: optBool(false, "multilingual_stt", "multilingualStt"),
    holdTimeout,
  };
}

/**
 * Validate one golden record. Keys follow deepeval (`scenario`, `expected_outcome` / `expectedOutcome`,
 * `user_description` / `userDescription`, `additional_metadata` / `additionalMetadata`, `context`,
 * `name`, `turns`, `persona`); unknown keys are ignored as deepeval's models ignore them. A
 * `user_description` becomes `Persona(characteristics=…)`; giving both with different text is an error.
 */
export function parseGolden(value: unknown, baseDir: string, origin: string): ConversationalGolden {
  const bad = (field: string, message: string): never => {
    throw new VoxError("INVALID_SCRIPT", message, { file: origin, field });
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) bad("(golden)", "a golden must be a JSON object with a \"scenario\"");
  const o = value as Record<string, unknown>;
  if (typeof o.scenario !== "string" || o.scenario.trim() === "") bad("scenario", "is required: a non-empty string");
  const optString = (...keys: string[]): string | null => {
    const p = pick(o, ...keys);
    if (!p || p.value === null) return null;
    if (typeof p.value !== "string") bad(p.key, "must be a string");
    return p.value as string;
  };
  const expectedOutcome = optString("expected_outcome", "expectedOutcome");
  const name = optString("name");
  if (name !== null && name.trim() === "") bad("name", "must be a non-empty string");
  const userDescription = optString("user_description", "userDescription");
  let persona = o.persona === undefined || o.persona === null ? null : parsePersona(o.persona, baseDir, origin);
  if (userDescription !== null) {
    if (persona && persona.characteristics !== userDescription) bad("user_description", "differs from persona.characteristics: give one of them (user_description is deprecated)");
    persona ??= parsePersona({ characteristics: userDescription }, baseDir, origin);
  }
  const script: string[] = [];
  if (o.turns !== undefined && o.turns !== null) {
    if (!Array.isArray(o.turns)) bad("turns", "must be a list of turns {role, content}");
    (o.turns as unknown[]).forEach((t, i) => {
      if (t === null || typeof t !== "object" || Array.isArray(t)) bad(`turns[${i}]`, "must be an object {role, content}");
      const turn = t as Record<string, unknown>;
      if (turn.role !== "user" && turn.role !== "assistant") bad(`turns[${i}].role`, `must be "user" or "assistant", got ${JSON.stringify(turn.role)}`);
      if (typeof turn.content !== "string") bad(`turns[${i}].content`, "must be a string");
      if (turn.role === "user") {
        if ((turn.content as string).trim() === "") bad(`turns[${i}].content`, "a caller line must not be empty");
        script.push(turn.content as string);
      }
    });
  }
  let context: string[] | null = null;
  if (o.context !== undefined && o.context !== null) {
    if (!Array.isArray(o.context) || o.context.some((c) => typeof c !== "string")) bad("context", "must be a list of strings");
    context = o.context as string[];
  }
  const md = pick(o, "additional_metadata", "additionalMetadata", "metadata");
  if (md && md.value !== null && (typeof md.value !== "object" || Array.isArray(md.value))) bad(md.key, "must be an object");
  return {
    scenario: o.scenario as string,
    expectedOutcome,
    name,
    persona,
    script,
    context,
    metadata: md && md.value !== null ? (md.value as Record<string, unknown>) : null,
    origin,
  };
}

/** Read goldens: one object, an array of them, or JSONL (`.jsonl`). A bad record is an error; the others still load. */
export function readGoldenFile(path: string): GoldenFile {
  const { records, errors } = readRecordFile(path, (value, at) => parseGolden(value, at.baseDir, at.origin), "INVALID_JSON");
  return { goldens: records, errors };
}

/** Call names of a run (§L11): the golden's name, else `conversation-<i>`; repeated names get `-2`, `-3`, … */
export function goldenCallNames(goldens: readonly ConversationalGolden[]): string[] {
  const seen = new Map<string, number>();
  return goldens.map((g, i) => {
    const base = g.name ?? `conversation-${i}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}
