// ElevenLabs' conversational-AI protocol (§L7): initiation data, user_audio_chunk frames, audio_event, agent_response, ping → pong, interruption.
import { ConnectorError } from "./errors.js";
import type { InboundMessage, WebSocketConnectorOptions } from "./websocket.js";
import { WebSocketConnector } from "./websocket.js";

/** Options of the ElevenLabs conversational-agent connector. */
export interface ElevenLabsConnectorOptions extends Omit<WebSocketConnectorOptions, "url" | "sendKey" | "binaryOutbound" | "receiveAudioKey" | "binaryInbound" | "receiveTranscriptKey" | "turnCompleteType" | "typeKey" | "readyOn" | "readyMessageType" | "encoding" | "initMessages"> {
  /** The agent id (required unless `url` is given). */
  agentId?: string;
  /** API key (default: env ELEVENLABS_API_KEY); with a key the connection uses a signed URL. */
  apiKey?: string | null;
  /** Region sub-domain (`api.<region>.elevenlabs.io`), null = the global endpoint. */
  region?: string | null;
  /** Connect here instead of ElevenLabs (a local agent speaking the same protocol). */
  url?: string;
  /**
   * Base of the REST API that hands out signed URLs.
   * @defaultValue "https://api.elevenlabs.io"
   */
  apiBaseUrl?: string;
  /** Extra fields of `conversation_initiation_client_data` (overrides, dynamic variables). */
  initiationData?: Record<string, unknown>;
}

const PCM_FORMAT = /^pcm_(\d+)$/;

/** Where to connect: the given URL, a signed URL (with a key) or the public agent URL. */
export async function elevenLabsUrl(o: ElevenLabsConnectorOptions, env: Readonly<Record<string, string | undefined>> = process.env): Promise<string> {
  if (o.url) return o.url;
  if (!o.agentId) throw new ConnectorError("INVALID_OPTION", "agentId is required (or url for a local agent)", { frame: "agentId" });
  const host = o.apiBaseUrl ?? (o.region ? `https://api.${o.region}.elevenlabs.io` : "https://api.elevenlabs.io");
  const key = o.apiKey ?? env.ELEVENLABS_API_KEY ?? null;
  if (!key) return `${host.replace(/^http/, "ws")}/v1/convai/conversation?agent_id=${encodeURIComponent(o.agentId)}`;
  const res = await fetch(`${host}/v1/convai/conversation/get-signed-url?agent_id=${encodeURIComponent(o.agentId)}`, { headers: { "xi-api-key": key } });
  if (!res.ok) throw new ConnectorError("CONNECT_FAILED", `signed URL request failed: HTTP ${res.status}`);
  const body = (await res.json()) as { signed_url?: unknown };
  if (typeof body.signed_url !== "string") throw new ConnectorError("CONNECT_FAILED", "signed URL response has no signed_url string");
  return body.signed_url;
}

/** ElevenLabs Conversational AI (`--connector elevenlabs`). Build with `ElevenLabsConnector.create` when a signed URL is needed. */
export class ElevenLabsConnector extends WebSocketConnector {
  private readonly initiationData: Record<string, unknown>;

  constructor(options: ElevenLabsConnectorOptions & { url: string }) {
    super({
      ...options,
      url: options.url,
      sendKey: "user_audio_chunk",
      receiveAudioKey: "audio_event.audio_base_64",
      typeKey: "type",
      turnCompleteType: "agent_response_complete",
      readyOn: "message",
      readyMessageType: "conversation_initiation_metadata",
      encoding: "pcm16",
      sampleRate: options.sampleRate ?? 16000,
    });
    this.initiationData = options.initiationData ?? {};
  }

  /** Resolve the URL (signed when a key is set) and build the connector. */
  static async create(options: ElevenLabsConnectorOptions): Promise<ElevenLabsConnector> {
    return new ElevenLabsConnector({ ...options, url: await elevenLabsUrl(options) });
  }

  override get signalsTurnComplete(): boolean {
    return true;
  }

  protected override openMessages(): readonly unknown[] {
    return [{ type: "conversation_initiation_client_data", ...this.initiationData }];
  }

  protected override decodeJson(msg: Record<string, unknown>): InboundMessage {
    const type = msg.type;
    if (typeof type !== "string") throw new Error('no "type" string');
    const out: InboundMessage = {};
    switch (type) {
      case "conversation_initiation_metadata": {
        const ev = (msg.conversation_initiation_metadata_event ?? {}) as Record<string, unknown>;
        const outFmt = PCM_FORMAT.exec(String(ev.agent_output_audio_format ?? ""));
        const inFmt = PCM_FORMAT.exec(String(ev.user_input_audio_format ?? ""));
        if (outFmt) this.recvRate = Number(outFmt[1]);
        else if (ev.agent_output_audio_format !== undefined) this.agentErrors.push(`agent_output_audio_format ${String(ev.agent_output_audio_format)} is not PCM; audio is read as PCM at ${this.recvRate} Hz`);
        if (inFmt) this.sendRate = Number(inFmt[1]);
        out.ready = true;
        break;
      }
      case "audio": {
        const ev = (msg.audio_event ?? {}) as Record<string, unknown>;
        out.audio = this.decodeBase64Audio(ev.audio_base_64, "audio_event.audio_base_64");
        break;
      }
      case "agent_response": {
        const ev = (msg.agent_response_event ?? {}) as Record<string, unknown>;
        if (typeof ev.agent_response === "string") out.transcript = ev.agent_response;
        break;
      }
      case "agent_response_complete":
        out.turnComplete = true;
        break;
      case "user_transcript": {
        const ev = (msg.user_transcription_event ?? {}) as Record<string, unknown>;
        if (typeof ev.user_transcript === "string") out.callerTranscript = ev.user_transcript;
        break;
      }
      case "ping": {
        const ev = (msg.ping_event ?? {}) as Record<string, unknown>;
        out.replies = [{ type: "pong", event_id: ev.event_id }];
        break;
      }
      case "interruption":
        out.interruption = true;
        break;
    }
    return out;
  }
}
