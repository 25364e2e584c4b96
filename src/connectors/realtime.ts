// The realtime-API preset (OpenAI Realtime, Azure Voice Live): session.update, input_audio_buffer.append/commit, beta and GA event names.
import { ConnectorError } from "./errors.js";
import type { InboundMessage, WebSocketConnectorOptions } from "./websocket.js";
import { WebSocketConnector } from "./websocket.js";

/** How a caller turn ends: server VAD hears the trailing silence, or the client commits (push-to-talk). */
export type RealtimeTurnMode = "server-vad" | "push-to-talk";

/** Options of the RealtimeConnector (OpenAI Realtime / Azure Voice Live events). */
export interface RealtimeConnectorOptions extends Omit<WebSocketConnectorOptions, "sendKey" | "binaryOutbound" | "receiveAudioKey" | "binaryInbound" | "receiveTranscriptKey" | "turnCompleteType" | "typeKey" | "readyOn" | "readyMessageType" | "encoding"> {
  /**
   * Server VAD with trailing silence, or push-to-talk (`input_audio_buffer.commit` + `response.create`, no pad).
   * @defaultValue "server-vad"
   */
  turnMode?: RealtimeTurnMode;
  /**
   * Event names of the session.update sent on connect: "ga" (`session.type`, `audio.input.format`) or "beta" (`input_audio_format`).
   * Inbound events of both are always understood.
   * @defaultValue "beta"
   */
  apiVersion?: "beta" | "ga";
  /** Extra `session` fields merged into the session.update (instructions, voice, …). */
  session?: Record<string, unknown>;
  /** Send no session.update at all (the agent's own configuration stands); ready on session.created. */
  skipSessionUpdate?: boolean;
}

/** Defaults of the RealtimeConnector (OpenAI Realtime / Azure Voice Live). */
export const DEFAULT_REALTIME_CONNECTOR_OPTIONS = Object.freeze({
  turnMode: "server-vad" as RealtimeTurnMode,
  apiVersion: "beta" as const,
  skipSessionUpdate: false,
});

/** Audio deltas of the beta and GA APIs. */
const AUDIO_DELTA = new Set(["response.audio.delta", "response.output_audio.delta"]);
const TRANSCRIPT_DELTA = new Set(["response.audio_transcript.delta", "response.output_audio_transcript.delta", "response.text.delta", "response.output_text.delta"]);
const TRANSCRIPT_DONE = new Set(["response.audio_transcript.done", "response.output_audio_transcript.done"]);

/** The realtime-API family (`--connector realtime`): works with a local agent and no key. */
export class RealtimeConnector extends WebSocketConnector {
  readonly turnMode: RealtimeTurnMode;
  readonly apiVersion: "beta" | "ga";
  private readonly sessionExtra: Record<string, unknown>;
  private readonly skipSessionUpdate: boolean;
  private transcript = "";
  private responseId: string | null = null;
  private itemId: string | null = null;
  private itemAudioSamples = 0;

  constructor(options: RealtimeConnectorOptions) {
    const turnMode = options.turnMode ?? DEFAULT_REALTIME_CONNECTOR_OPTIONS.turnMode;
    if (turnMode !== "server-vad" && turnMode !== "push-to-talk") throw new ConnectorError("INVALID_OPTION", `must be "server-vad" or "push-to-talk", got ${String(turnMode)}`, { frame: "turnMode" });
    const skip = options.skipSessionUpdate ?? DEFAULT_REALTIME_CONNECTOR_OPTIONS.skipSessionUpdate;
    super({
      ...options,
      sendKey: "audio",
      receiveAudioKey: "delta",
      typeKey: "type",
      turnCompleteType: "response.done",
      readyOn: "message",
      readyMessageType: skip ? "session.created" : "session.updated",
      encoding: "pcm16",
      trailingSilenceMs: turnMode === "push-to-talk" ? 0 : options.trailingSilenceMs,
    });
    this.turnMode = turnMode;
    this.apiVersion = options.apiVersion ?? DEFAULT_REALTIME_CONNECTOR_OPTIONS.apiVersion;
    if (this.apiVersion !== "beta" && this.apiVersion !== "ga") throw new ConnectorError("INVALID_OPTION", `must be "beta" or "ga", got ${String(this.apiVersion)}`, { frame: "apiVersion" });
    this.sessionExtra = options.session ?? {};
    this.skipSessionUpdate = skip;
  }

  protected override openMessages(): readonly unknown[] {
    if (this.skipSessionUpdate) return [];
    const vad = this.turnMode === "server-vad" ? { type: "server_vad" } : null;
    const session =
      this.apiVersion === "ga"
        ? {
            type: "realtime",
            audio: {
              input: { format: { type: "audio/pcm", rate: this.sendRate }, turn_detection: vad },
              output: { format: { type: "audio/pcm", rate: this.recvRate } },
            },
            ...this.sessionExtra,
          }
        : { modalities: ["audio", "text"], input_audio_format: "pcm16", output_audio_format: "pcm16", turn_detection: vad, ...this.sessionExtra };
    return [{ type: "session.update", session }];
  }

  protected override encodeFrame(frame: Int16Array): string {
    return JSON.stringify({ type: "input_audio_buffer.append", audio: Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString("base64") });
  }

  protected override endOfCallerTurnMessages(): unknown[] {
    return this.turnMode === "push-to-talk" ? [{ type: "input_audio_buffer.commit" }, { type: "response.create" }] : [];
  }

  protected override decodeJson(msg: Record<string, unknown>): InboundMessage {
    const type = msg.type;
    if (typeof type !== "string") throw new Error('no "type" string');
    const out: InboundMessage = { ready: type === (this.skipSessionUpdate ? "session.created" : "session.updated") };
    if (AUDIO_DELTA.has(type)) {
      const responseId = typeof msg.response_id === "string" ? msg.response_id : null;
      const itemId = typeof msg.item_id === "string" ? msg.item_id : null;
      if (responseId !== this.responseId) {
        this.responseId = responseId;
        this.transcript = "";
      }
      if (itemId !== this.itemId) {
        this.itemId = itemId;
        this.itemAudioSamples = 0;
      }
      out.audio = this.decodeBase64Audio(msg.delta, "delta");
      this.itemAudioSamples += out.audio.length;
    } else if (TRANSCRIPT_DELTA.has(type) && typeof msg.delta === "string") {
      this.transcript += msg.delta;
      out.transcript = this.transcript;
    } else if (TRANSCRIPT_DONE.has(type) && typeof msg.transcript === "string") {
      this.transcript = msg.transcript;
      out.transcript = this.transcript;
    } else if (type === "response.done") {
      out.turnComplete = true;
      this.transcript = "";
      this.itemId = null;
      this.itemAudioSamples = 0;
    } else if (type === "input_audio_buffer.speech_started") {
      // Server VAD heard the caller; while the agent is talking this is a barge-in: tell the server
      // how much of the reply was heard, as a client that plays audio on arrival would.
      if (this.itemId !== null && this.itemAudioSamples > 0) {
        out.interruption = true;
        out.replies = [{ type: "conversation.item.truncate", item_id: this.itemId, content_index: 0, audio_end_ms: Math.round((this.itemAudioSamples / this.recvRate) * 1000) }];
        this.itemId = null;
        this.itemAudioSamples = 0;
      }
    } else if (type === "conversation.item.truncated") {
      out.interruption = true;
    } else if (type === "conversation.item.input_audio_transcription.completed" && typeof msg.transcript === "string") {
      out.callerTranscript = msg.transcript;
    } else if (type === "error") {
      const err = msg.error as Record<string, unknown> | undefined;
      out.agentError = `${String(err?.code ?? err?.type ?? "error")}: ${String(err?.message ?? JSON.stringify(msg).slice(0, 200))}`;
    }
    return out;
  }
}
