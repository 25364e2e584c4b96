// Caller scripts for `voxmetrics call`: turns as text or WAV files, each with an optional pause and barge-in; JSON, an array, or JSONL (one per line).
import { isAbsolute, resolve } from "node:path";
import { VoxError } from "../model/errors.js";
import { readRecordFile } from "./record-file.js";

/** One caller turn. */
export interface ScriptTurn {
  /** Words to speak through the TTS (exactly one of text and audio). */
  text: string | null;
  /** Absolute path of a clip to play. */
  audio: string | null;
  /** Seconds to wait after the agent's previous turn ended (or the call connected) before speaking. */
  pauseBefore: number;
  /** Start speaking this many seconds into the agent's reply (a barge-in; duplex calls), or null. */
  bargeInAfter: number | null;
}

/** A caller script: its name and turns (text or audio, pauses, barge-ins). */
export interface CallScript {
  name: string;
  turns: ScriptTurn[];
  /** Wait for the agent's greeting before the first turn. */
  agentSpeaksFirst: boolean;
  scenario: string | null;
  expectedOutcome: string | null;
  /** Where it was read (file, and line for JSONL). */
  origin: string;
}

/** Scripts read from one file, and the records that could not be read (each names its file, line and field). */
export interface ScriptFile {
  scripts: CallScript[];
  errors: VoxError[];
}

const TURN_KEYS = new Set(["text", "audio", "pause_before", "barge_in_after"]);
const SCRIPT_KEYS = new Set(["name", "turns", "agent_speaks_first", "scenario", "expected_outcome"]);

/** Validate one script record; paths are resolved against `baseDir`. */
export function parseScript(value: unknown, baseDir: string, origin: string, fallbackName: string): CallScript {
  const bad = (field: string, message: string): never => {
    throw new VoxError("INVALID_SCRIPT", message, { file: origin, field });
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) bad("(script)", "a script must be a JSON object with a \"turns\" list");
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!SCRIPT_KEYS.has(k)) bad(k, `unknown key (expected ${[...SCRIPT_KEYS].join(", ")})`);
  if (o.name !== undefined && (typeof o.name !== "string" || o.name.trim() === "")) bad("name", "must be a non-empty string");
  if (!Array.isArray(o.turns) || o.turns.length === 0) bad("turns", "must be a non-empty list of caller turns");
  const optString = (k: string): string | null => {
    if (o[k] === undefined || o[k] === null) return null;
    if (typeof o[k] !== "string") bad(k, "must be a string");
    return o[k] as string;
  };
  if (o.agent_speaks_first !== undefined && typeof o.agent_speaks_first !== "boolean") bad("agent_speaks_first", "must be true or false");
  const turns = (o.turns as unknown[]).map((t, i): ScriptTurn => {
    const f = (k: string) => `turns[${i}].${k}`;
    if (t === null || typeof t !== "object" || Array.isArray(t)) bad(`turns[${i}]`, "must be an object with \"text\" or \"audio\"");
    const turn = t as Record<string, unknown>;
    for (const k of Object.keys(turn)) if (!TURN_KEYS.has(k)) bad(f(k), `unknown key (expected ${[...TURN_KEYS].join(", ")})`);
    const hasText = turn.text !== undefined && turn.text !== null;
    const hasAudio = turn.audio !== undefined && turn.audio !== null;
    if (hasText === hasAudio) bad(`turns[${i}]`, "give exactly one of \"text\" and \"audio\"");
    if (hasText && (typeof turn.text !== "string" || turn.text.trim() === "")) bad(f("text"), "must be a non-empty string");
    if (hasAudio && (typeof turn.audio !== "string" || turn.audio === "")) bad(f("audio"), "must be a path to an audio file");
    const num = (k: string, allowNull: boolean): number | null => {
      const v = turn[k];
      if (v === undefined || (allowNull && v === null)) return null;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 3600) bad(f(k), `must be a number of seconds in [0, 3600], got ${JSON.stringify(v)}`);
      return v as number;
    };
    const bargeInAfter = num("barge_in_after", true);
    if (bargeInAfter !== null && i === 0 && o.agent_speaks_first !== true) bad(f("barge_in_after"), "the first turn has no agent reply to barge into (unless agent_speaks_first)");
    return {
      text: hasText ? (turn.text as string) : null,
      audio: hasAudio ? (isAbsolute(turn.audio as string) ? (turn.audio as string) : resolve(baseDir, turn.audio as string)) : null,
      pauseBefore: num("pause_before", false) ?? 0,
      bargeInAfter,
    };
  });
  return {
    name: typeof o.name === "string" ? o.name : fallbackName,
    turns,
    agentSpeaksFirst: o.agent_speaks_first === true,
    scenario: optString("scenario"),
    expectedOutcome: optString("expected_outcome"),
    origin,
  };
}

/** Read a script file: one object, an array of them, or JSONL. A bad record is an error; the others still load. */
export function readScriptFile(path: string): ScriptFile {
  const stem = path.replace(/^.*[\\/]/, "").replace(/\.[^.]+$/, "");
  const { records, errors } = readRecordFile(path, (value, at) => parseScript(value, at.baseDir, at.origin, at.ordinal === null ? stem : `${stem}-${at.ordinal}`), "INVALID_SCRIPT");
  return { scripts: records, errors };
}

/** Make names unique within a run (`name`, `name-2`, …). */
export function uniqueScriptNames(scripts: CallScript[]): CallScript[] {
  const seen = new Map<string, number>();
  return scripts.map((s) => {
    const n = (seen.get(s.name) ?? 0) + 1;
    seen.set(s.name, n);
    return n === 1 ? s : { ...s, name: `${s.name}-${n}` };
  });
}
