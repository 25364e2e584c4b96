// Voice Live evaluation harness outputs (formats.md F4): per-turn records grouped into one test case per conversation.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { Audio, audioInit } from "../../model/audio.js";
import { VoxError } from "../../model/errors.js";
import { createTestCase, type Turn } from "../../model/test-case.js";
import { displayPathOf, isFile, isInside, localFileReader } from "../files.js";
import type { Candidate, CandidateContext, CallRef, ConversationRef, IngestOptions, InputFormat, LoadedCall } from "../types.js";
import { discoverConversations, readConversationRecords, type LineRecord } from "./conversations.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** An output file (F0.2 order 3): the first record has `query` and `response` arrays. */
export function detect(c: Candidate): InputFormat | null {
  return c.kind === "json" && isVoiceLiveOutputRecord(c.first.value) ? "voicelive-output" : null;
}

/** One call per conversation (F4.9; legacy records without an id share one). */
export function discover(c: Candidate, context: CandidateContext): CallRef[] {
  return discoverConversations(c, context, outputConversationIdOf);
}

/** One conversation's turns, ordered by turn number (F4.9). */
export function load(ref: ConversationRef, _options: IngestOptions): LoadedCall {
  return loadVoiceLiveOutputConversation(ref.path, ref.conversationId, readConversationRecords(ref));
}

/** True when a record has the output shape of F0.2 (order 3): `query` and `response` arrays. */
function isVoiceLiveOutputRecord(o: unknown): boolean {
  return isObject(o) && Array.isArray(o.query) && Array.isArray(o.response);
}

/** Grouping key of an output record; legacy records (F4.7) carry none and share one conversation. */
function outputConversationIdOf(o: Json): string {
  const v = o.conversation_id;
  if (v === undefined || v === null || v === "") return "default";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Latency keys, current name first, then the legacy spelling (F4.5, typo included). */
const LATENCY_KEYS = {
  audio_response_latency_seconds: "turn-audio-resonse-latency-in-seconds",
  text_response_latency_seconds: "turn-text-resonse-latency-in-seconds",
  transcription_latency_seconds: "turn-audio-transcription-latency-in-seconds",
} as const;

const NO_RESPONSE_PLACEHOLDER = /^\[No response — .*\]$/;

/** Text of a message's content: a string, or the `text` / `input_text` parts joined with a space. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (typeof p === "string" ? p : isObject(p) && (p.type === "text" || p.type === "input_text") && typeof p.text === "string" ? p.text : ""))
    .filter((t) => t !== "")
    .join(" ");
}

/** The user text of a record (F4.9): the last user text in `query`, else `transcript`. */
function userTextOf(o: Json): string {
  const query = Array.isArray(o.query) ? o.query : [];
  for (let i = query.length - 1; i >= 0; i--) {
    const m = query[i];
    if (isObject(m) && m.role === "user") {
      const t = textOf(m.content);
      if (t) return t;
    }
  }
  return typeof o.transcript === "string" ? o.transcript : "";
}

function assistantTextOf(o: Json): string {
  const first = Array.isArray(o.response) ? o.response[0] : undefined;
  const text = isObject(first) ? textOf(first.content) : "";
  return NO_RESPONSE_PLACEHOLDER.test(text) ? "" : text;
}

/** Latencies of a record under their current names (seconds), read from either spelling. */
function latenciesOf(o: Json): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isObject(o.metrics)) return out;
  for (const [current, legacy] of Object.entries(LATENCY_KEYS)) {
    const v = o.metrics[current] ?? o.metrics[legacy];
    if (typeof v === "number" && Number.isFinite(v)) out[current] = v;
  }
  return out;
}

function turnNumberOf(o: Json, fallback: number): number {
  if (typeof o.turn_number === "number") return o.turn_number;
  if (isObject(o.metrics) && typeof o.metrics.logical_turn_number === "number") return o.metrics.logical_turn_number;
  return fallback;
}

/** The response WAV of a turn (F4.1): `<dir>/<conv>/turn_<NN>_response.wav`, else the older `<conv>_turn_<NN>_response.wav`. */
function responseAudioPath(outputDir: string, conversationId: string, turnNumber: number): string | null {
  const nn = String(turnNumber).padStart(2, "0");
  for (const name of [`turn_${nn}_response.wav`, `${conversationId}_turn_${nn}_response.wav`]) {
    const p = join(outputDir, conversationId, name);
    if (isFile(p)) return p;
  }
  return null;
}

function audioFromFile(path: string, startTime: number | null = null): Audio {
  const file = localFileReader(path);
  return new Audio(audioInit({ url: path, start_time: startTime !== null && startTime >= 0 ? startTime : null }), () => file);
}

/**
 * The timing sidecar `voxmetrics replay` writes beside an output file (`<name>.timing.jsonl`): one
 * record per turn with its instants on the call clock, keyed by conversation and turn number.
 */
function readTimingSidecar(outputFile: string, conversationId: string): Map<number, Json> {
  const out = new Map<number, Json>();
  let text: string;
  try {
    text = readFileSync(outputFile.replace(/\.jsonl?$/i, "") + ".timing.jsonl", "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const t = JSON.parse(line) as unknown;
      if (isObject(t) && outputConversationIdOf(t) === conversationId && typeof t.turn_number === "number") out.set(t.turn_number, t);
    } catch {
      // a damaged sidecar line: that turn keeps the harness-only reading
    }
  }
  return out;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** One conversation of an output file as a test case (F4.9), records ordered by turn number. */
function loadVoiceLiveOutputConversation(outputFile: string, conversationId: string, records: LineRecord[]): LoadedCall {
  const warnings: string[] = [];
  const outputDir = dirname(outputFile);
  const rows = records.map(({ value, line }, i) => {
    if (!isObject(value)) throw new VoxError("INVALID_JSON", "an output record must be a JSON object", { file: displayPathOf(outputFile), field: `line ${line}` });
    return { o: value, line, turnNumber: turnNumberOf(value, i + 1) };
  });
  rows.sort((a, b) => a.turnNumber - b.turnNumber || a.line - b.line);

  const timings = readTimingSidecar(outputFile, conversationId);
  const turns: Turn[] = [];
  for (const { o, line, turnNumber } of rows) {
    const harnessError = typeof o.error === "string" ? o.error : null;
    const timing = timings.get(turnNumber) ?? null;
    let userAudio: Audio | null = null;
    // A replay's sent clip (at the session rate, placed on the call clock) is the user turn's audio.
    const sentClip = timing && typeof timing.input_audio === "string" ? resolve(outputDir, timing.input_audio) : null;
    if (sentClip && isInside(sentClip, outputDir) && isFile(sentClip)) {
      userAudio = audioFromFile(sentClip, num(timing!.send_start_s));
    } else if (typeof o.source_file === "string" && o.source_file !== "(media)") {
      const p = isAbsolute(o.source_file) ? o.source_file : resolve(outputDir, o.source_file);
      if (isFile(p)) userAudio = audioFromFile(p);
      else warnings.push(`line ${line}: user audio ${p} not found; the user turn has no audio`);
    }
    turns.push({
      role: "user",
      content: harnessError ? "" : userTextOf(o),
      audio: userAudio,
      metadata: {
        turn_number: turnNumber,
        output_line: line,
        ...(harnessError ? { harness_error: harnessError } : {}),
        // A replay's reference text (the dataset question) and the agent's transcription: scoring reports their WER.
        ...(timing && !harnessError && typeof timing.question === "string" && typeof o.transcript === "string" ? { reference_text: timing.question, asr_transcript: o.transcript } : {}),
      },
    });
    if (harnessError) continue;

    const latencies = latenciesOf(o);
    // A replay names its response WAV in the timing (its folder name is made safe); the harness's layout otherwise.
    const timedResponse = timing && typeof timing.response_audio === "string" ? resolve(outputDir, timing.response_audio) : null;
    const responsePath = timedResponse && isInside(timedResponse, outputDir) && isFile(timedResponse) ? timedResponse : responseAudioPath(outputDir, conversationId, turnNumber);
    const audioLatency = latencies.audio_response_latency_seconds;
    // With a replay's timings: the user-perceived latency (true end of the caller's speech → first
    // agent audio) and the reply placed where its first audio arrived, on the same clock.
    const perceived = timing ? num(timing.user_perceived_latency_ms) : null;
    const replyStart = timing ? num(timing.first_audio_s) : null;
    turns.push({
      role: "assistant",
      content: assistantTextOf(o),
      audio: responsePath ? audioFromFile(responsePath, replyStart) : null,
      latency_ms: perceived ?? (audioLatency === undefined ? null : audioLatency * 1000),
      interrupted: o.was_truncated === true ? true : null,
      metadata: {
        turn_number: turnNumber,
        ...latencies,
        ...(perceived !== null ? { latency_anchor: "caller_speech_end" } : audioLatency === undefined ? {} : { latency_anchor: timing?.harness_anchor ?? "speech_stopped_receipt" }),
        audio_response_received: isObject(o.metrics) ? o.metrics.audio_response_received ?? null : null,
        ground_truth: o.ground_truth ?? null,
        ...(timing
          ? {
              replay_timing: {
                caller_speech_end_s: timing.caller_speech_end_s ?? null,
                speech_stopped_s: timing.speech_stopped_s ?? null,
                first_audio_s: timing.first_audio_s ?? null,
                response_end_s: timing.response_end_s ?? null,
                vad_split: timing.vad_split ?? null,
                harness_anchor: timing.harness_anchor ?? null,
                user_wer: timing.user_wer ?? null,
              },
            }
          : {}),
      },
    });
  }
  const testCase = createTestCase({
    name: conversationId,
    turns,
    metadata: { source_format: "voicelive-output", conversation_id: conversationId },
  });
  return { testCase, warnings };
}
