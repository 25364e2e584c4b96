// The harness's outputs from replay observations: per-turn records (formats.md F4.2–F4.5, keys in order), error records (F4.4), the operational summary (F4.6), and the timing sidecar with the honest timings.
import { wordErrorRate, type ErrorRate } from "../text/error-rate.js";
import type { ReplayConversation, ReplayEntry } from "./dataset.js";
import type { TurnObservation } from "./session.js";

/** F4.3 sanitising: typographic quotes and dashes to ASCII, control characters and U+FFFD deleted, whitespace collapsed. */
export function sanitizeText(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2013\u2014\u2015]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/\u00A0/g, " ")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001F\u007F-\u009F\uFFFD]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

export const NO_RESPONSE_TRUNCATED = "[No response — barge-in truncated before response]";
export const NO_RESPONSE = "[No response — no response received]";

/** Current metric names and their legacy spellings (F4.5, typo included). */
export const LEGACY_METRIC_NAMES: Readonly<Record<string, string>> = Object.freeze({
  transcription_latency_seconds: "turn-audio-transcription-latency-in-seconds",
  text_response_latency_seconds: "turn-text-resonse-latency-in-seconds",
  audio_response_latency_seconds: "turn-audio-resonse-latency-in-seconds",
});

/** The F4.2 keys in emission order. */
export const TURN_RECORD_KEYS = [
  "query",
  "response",
  "transcript",
  "ground_truth_query_used",
  "barge_in",
  "was_truncated",
  "response_full",
  "metrics",
  "tool_calls",
  "tool_definitions",
  "ground_truth",
  "conversation_id",
  "source_file",
  "turn_number",
] as const;
export const ERROR_RECORD_KEYS = ["conversation_id", "source_file", "error", "turn_number"] as const;

type Message = Record<string, unknown>;

/** Seconds with microsecond resolution (the harness's resolution). */
function seconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}

function toolMessages(obs: TurnObservation): Message[] {
  const out: Message[] = [];
  for (const call of obs.toolCalls) {
    let args: unknown = {};
    try {
      const parsed = JSON.parse(call.arguments);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) args = parsed;
    } catch {
      // unparsable arguments: the message keeps an empty object, the raw string stays in tool_calls
    }
    out.push({ role: "assistant", content: [{ type: "tool_call", tool_call_id: call.call_id, name: call.name, arguments: args }] });
    const result = obs.toolResults.find((r) => r.call_id === call.call_id);
    if (result) out.push({ role: "tool", tool_call_id: call.call_id, content: [{ type: "tool_result", tool_result: result.output }] });
  }
  return out;
}

const userMessage = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

/** Builds one conversation's records turn by turn, keeping the history later turns' `query` repeats (F4.3). */
export class ConversationRecordBuilder {
  private history: Message[] = [];
  constructor(
    private readonly conversation: ReplayConversation,
    private readonly options: { legacyNames: boolean },
  ) {}

  sourceFileOf(entry: ReplayEntry): string {
    return entry.audio.kind === "file" ? entry.audio.path : "(media)";
  }

  /** The record of a turn: F4.4 when it failed, else F4.2. */
  record(index: number, obs: TurnObservation): Record<string, unknown> {
    const entry = this.conversation.entries[index];
    const turnNumber = this.conversation.turnNumbers[index];
    if (obs.error !== null) return { conversation_id: entry.conversationId, source_file: this.sourceFileOf(entry), error: obs.error, turn_number: turnNumber };
    const transcript = sanitizeText(obs.transcript);
    const question = sanitizeText(entry.question);
    const userText = question || transcript;
    const responseText = sanitizeText(obs.responseText);
    const tools = toolMessages(obs);
    const query: Message[] = [{ role: "system", content: this.conversation.instructions }, ...this.history];
    if (userText) query.push(userMessage(userText));
    query.push(...tools);
    // Later turns see the service's transcription of this turn, never the dataset question.
    if (transcript) this.history.push(userMessage(transcript));
    this.history.push(...tools);
    if (responseText) this.history.push({ role: "assistant", content: responseText });
    return {
      query,
      response: [{ role: "assistant", content: responseText || (obs.wasTruncated ? NO_RESPONSE_TRUNCATED : NO_RESPONSE) }],
      transcript,
      ground_truth_query_used: question !== "",
      barge_in: entry.bargeIn,
      was_truncated: obs.wasTruncated,
      response_full: obs.wasTruncated ? sanitizeText(obs.responseFull) : "",
      metrics: this.metrics(obs, turnNumber),
      tool_calls: obs.toolCalls.map((c) => ({ call_id: c.call_id, name: c.name, arguments: c.arguments })),
      tool_definitions: entry.toolDefinitions ?? this.conversation.tools,
      ground_truth: entry.groundTruth,
      conversation_id: entry.conversationId,
      source_file: this.sourceFileOf(entry),
      turn_number: turnNumber,
    };
  }

  /** F4.5 with the harness's anchors: each latency only when both instants exist. */
  private metrics(obs: TurnObservation, turnNumber: number): Record<string, unknown> {
    const m: Record<string, unknown> = {};
    const name = (k: string) => (this.options.legacyNames ? LEGACY_METRIC_NAMES[k] : k);
    const anchor = obs.anchorAt;
    if (anchor !== null && obs.transcriptionDoneAt !== null) m[name("transcription_latency_seconds")] = seconds(obs.transcriptionDoneAt - anchor);
    if (anchor !== null && obs.firstTextAt !== null) m[name("text_response_latency_seconds")] = seconds(obs.firstTextAt - anchor);
    if (anchor !== null && obs.firstAudioAt !== null) m[name("audio_response_latency_seconds")] = seconds(obs.firstAudioAt - anchor);
    m.logical_turn_number = turnNumber;
    m.audio_response_received = obs.firstAudioAt !== null;
    return m;
  }
}

/** Word error counts of the agent's transcription against the dataset question (null without a question or on an error turn). */
export function userWer(entry: ReplayEntry, obs: TurnObservation): ErrorRate | null {
  const reference = sanitizeText(entry.question);
  if (obs.error !== null || reference === "") return null;
  return wordErrorRate(reference, sanitizeText(obs.transcript));
}

const relPrecise = (at: number | null, origin: number | null) => (at === null || origin === null ? null : Math.round((at - origin) * 1000) / 1e6);

/** The timing sidecar record of a turn: every instant in seconds on the call clock (0 = connected), one monotonic clock. */
export function timingRecord(conversation: ReplayConversation, index: number, obs: TurnObservation, originAt: number | null, files: { input: string | null; response: string | null }): Record<string, unknown> {
  const entry = conversation.entries[index];
  const at = (t: number | null) => relPrecise(t, originAt);
  const speechEndAt = obs.sendStartAt !== null && obs.speechEndInClipS !== null ? obs.sendStartAt + obs.speechEndInClipS * 1000 : null;
  // The first agent audio after the caller's true end of speech (audio before it overlapped the caller).
  const firstAudioAfter = speechEndAt === null ? obs.firstAudioAt : obs.responseFirstAudioAt.find((t) => t >= speechEndAt) ?? null;
  const wer = userWer(entry, obs);
  const lastStopped = obs.speechStoppedAt.length ? obs.speechStoppedAt[obs.speechStoppedAt.length - 1] : null;
  return {
    conversation_id: entry.conversationId,
    turn_number: conversation.turnNumbers[index],
    dataset_line: entry.line,
    error: obs.error,
    clock: "monotonic",
    sample_rate: obs.sampleRate,
    input_audio: files.input,
    response_audio: files.response,
    send_start_s: at(obs.sendStartAt),
    send_end_s: at(obs.sendEndAt),
    uplink_end_s: at(obs.uplinkEndAt),
    clip_duration_s: Math.round(obs.clipDurationS * 1e6) / 1e6,
    clip_sent_s: Math.round(obs.clipSentS * 1e6) / 1e6,
    caller_speech_end_s: at(speechEndAt),
    speech_stopped_s: obs.speechStoppedAt.map((t) => at(t)),
    speech_stopped_audio_end_ms: obs.speechStoppedAudioEndMs,
    transcription_done_s: at(obs.transcriptionDoneAt),
    first_text_s: at(obs.firstTextAt),
    first_audio_s: at(obs.firstAudioAt),
    first_audio_after_speech_end_s: at(firstAudioAfter),
    response_end_s: at(obs.responseEndAt),
    response_audio_duration_s: Math.round((obs.responseAudio.length / obs.sampleRate) * 1e6) / 1e6,
    responses: obs.responses,
    truncated_s: at(obs.truncatedAt),
    vad_split: obs.vadSplit,
    vad_split_s: at(obs.vadSplitAt),
    rest_of_clip_dropped: obs.clipSentS < obs.clipDurationS,
    user_perceived_latency_ms: speechEndAt !== null && firstAudioAfter !== null ? Math.round((firstAudioAfter - speechEndAt) * 1000) / 1000 : null,
    harness_anchor: obs.anchorAt === null ? null : lastStopped !== null && obs.anchorAt === lastStopped ? "speech_stopped_receipt" : "send_end",
    harness_anchor_s: at(obs.anchorAt),
    timed_out: obs.timedOut,
    agent_errors: obs.agentErrors,
    max_frame_lateness_ms: Math.round(obs.maxFrameLatenessMs * 1000) / 1000,
    question: sanitizeText(entry.question),
    user_wer: wer && { reference_words: wer.referenceLength, correct: wer.correct, substitutions: wer.substitutions, deletions: wer.deletions, insertions: wer.insertions, wer: wer.rate },
  };
}

/** Counts of F4.6 over records (error records included in `actual`). */
export function operationalSummary(records: readonly Record<string, unknown>[], expected: number, sessionId: string, suffix: string, writtenAt: Date): Record<string, unknown> {
  const actual = records.length;
  const metricsOf = (r: Record<string, unknown>) => (r.metrics && typeof r.metrics === "object" ? (r.metrics as Record<string, unknown>) : null);
  const audio = records.filter((r) => metricsOf(r)?.audio_response_received === true).length;
  const textOnly = records.filter((r) => !("error" in r) && metricsOf(r)?.audio_response_received !== true && Array.isArray(r.response) && r.response.length > 0).length;
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return {
    operational_metrics: {
      turns_processed: `${actual}/${expected}`,
      expected_turns: expected,
      actual_turns: actual,
      vad_splitting_detected: actual > expected,
      turn_expansion_factor: expected === 0 ? 0 : round2(actual / expected),
      turns_with_audio_response: audio,
      turns_with_text_only_response: textOnly,
      audio_response_rate: actual === 0 ? 0 : round2(audio / actual),
    },
    session_info: {
      timestamp: localStamp(writtenAt, " ", ":"),
      evaluation_mode: "enabled",
      session_id: sessionId,
      session_suffix: suffix,
    },
  };
}

/** Local time as `YYYY-MM-DD<sep>HH<tsep>MM<tsep>SS`. */
export function localStamp(d: Date, sep: string, tsep: string): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}${sep}${p(d.getHours())}${tsep}${p(d.getMinutes())}${tsep}${p(d.getSeconds())}`;
}
