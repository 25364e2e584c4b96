// The generic WebSocket connector (§L7): JSON frames with base64 PCM under dotted keys or binary frames, paced 20 ms uplink, turn engine downlink.
import { WebSocket, type RawData } from "ws";
import { mulawDecode, mulawEncode } from "../audio/mulaw.js";
import { Audio } from "../model/audio.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { BaseConnector, type BaseConnectorOptions } from "./base.js";
import { monotonicMs } from "./clock.js";
import { ConnectorError, excerpt } from "./errors.js";
import { bytesToPcm16, pcm16ToBytes } from "./frames.js";
import { VoiceProtocol } from "./protocol.js";
import { AsyncQueue } from "./queue.js";
import { collectAgentTurn } from "./turn-engine.js";
import type { AgentEvent, AudioFormat, ConnectorTurn, Pcm, UplinkOptions, UplinkResult } from "./types.js";

/** Options of the generic WebSocket connector (deepeval's `WebSocketConnector` parameters). */
export interface WebSocketConnectorOptions extends BaseConnectorOptions {
  /** ws:// or wss:// URL of the agent. */
  url: string;
  /**
   * Handshake headers. `${NAME}` in a value is replaced by the environment variable NAME, so secrets
   * stay out of scripts and command lines; values are never logged or written to the output.
   */
  headers?: Record<string, string>;
  /**
   * PCM rate sent to the agent, in Hz.
   * @defaultValue 24000
   */
  sampleRate?: number;
  /** PCM rate the agent sends, in Hz (default: `sampleRate`). */
  recvSampleRate?: number;
  /**
   * Sample encoding on the wire, both ways.
   * @defaultValue "pcm16"
   */
  encoding?: "pcm16" | "mulaw";
  /**
   * Dotted key of the base64 audio in outbound JSON frames.
   * @defaultValue "audio"
   */
  sendKey?: string;
  /**
   * Send raw binary frames instead of JSON.
   * @defaultValue false
   */
  binaryOutbound?: boolean;
  /**
   * Dotted key of the base64 audio in inbound JSON frames.
   * @defaultValue "audio"
   */
  receiveAudioKey?: string;
  /**
   * Take binary inbound frames as raw audio.
   * @defaultValue false
   */
  binaryInbound?: boolean;
  /** Dotted key of the agent's transcript in inbound frames (null = none). */
  receiveTranscriptKey?: string | null;
  /** Inbound message type that ends the agent's turn (null = the agent does not signal it). */
  turnCompleteType?: string | null;
  /**
   * Dotted key of the message type.
   * @defaultValue "type"
   */
  typeKey?: string;
  /** JSON messages sent right after the connection opens. */
  initMessages?: readonly unknown[];
  /**
   * Ready when the socket opens, or when the first message (or one of type `readyMessageType`) arrives.
   * @defaultValue "connect"
   */
  readyOn?: "connect" | "message";
  /** With readyOn "message": the message type that means ready (null = any message). */
  readyMessageType?: string | null;
  /**
   * Connection timeout, in seconds.
   * @defaultValue 15
   */
  connectTimeoutS?: number;
  /**
   * Zeros appended to every caller turn so the agent's VAD fires, in ms.
   * @defaultValue 1500
   */
  trailingSilenceMs?: number;
  /**
   * Largest inbound frame accepted, in bytes; a larger one is a protocol error.
   * @defaultValue 4194304
   */
  maxFrameBytes?: number;
}

type Resolved = Required<Omit<WebSocketConnectorOptions, keyof BaseConnectorOptions | "recvSampleRate" | "receiveTranscriptKey" | "turnCompleteType" | "readyMessageType">> & {
  recvSampleRate: number;
  receiveTranscriptKey: string | null;
  turnCompleteType: string | null;
  readyMessageType: string | null;
};

/** Defaults of the generic WebSocket connector. */
export const DEFAULT_WEBSOCKET_CONNECTOR_OPTIONS = Object.freeze({
  headers: Object.freeze({}) as Record<string, string>,
  sampleRate: 24000,
  encoding: "pcm16" as const,
  sendKey: "audio",
  binaryOutbound: false,
  receiveAudioKey: "audio",
  binaryInbound: false,
  receiveTranscriptKey: null,
  turnCompleteType: null,
  typeKey: "type",
  initMessages: Object.freeze([]) as readonly unknown[],
  readyOn: "connect" as const,
  readyMessageType: null,
  connectTimeoutS: 15,
  trailingSilenceMs: 1500,
  maxFrameBytes: 4 * 1024 * 1024,
});

/** WebSocket connector options overlaid on their defaults and validated. */
export function resolveWebSocketConnectorOptions(o: WebSocketConnectorOptions): Resolved {
  const d = DEFAULT_WEBSOCKET_CONNECTOR_OPTIONS;
  if (typeof o.url !== "string" || !/^wss?:\/\//.test(o.url)) throw new ConnectorError("INVALID_OPTION", `url must start with ws:// or wss://, got ${JSON.stringify(o.url)}`, { frame: "url" });
  const r: Resolved = {
    url: o.url,
    headers: o.headers ?? d.headers,
    sampleRate: o.sampleRate ?? d.sampleRate,
    recvSampleRate: o.recvSampleRate ?? o.sampleRate ?? d.sampleRate,
    encoding: o.encoding ?? d.encoding,
    sendKey: o.sendKey ?? d.sendKey,
    binaryOutbound: o.binaryOutbound ?? d.binaryOutbound,
    receiveAudioKey: o.receiveAudioKey ?? d.receiveAudioKey,
    binaryInbound: o.binaryInbound ?? d.binaryInbound,
    receiveTranscriptKey: o.receiveTranscriptKey ?? d.receiveTranscriptKey,
    turnCompleteType: o.turnCompleteType ?? d.turnCompleteType,
    typeKey: o.typeKey ?? d.typeKey,
    initMessages: o.initMessages ?? d.initMessages,
    readyOn: o.readyOn ?? d.readyOn,
    readyMessageType: o.readyMessageType ?? d.readyMessageType,
    connectTimeoutS: o.connectTimeoutS ?? d.connectTimeoutS,
    trailingSilenceMs: o.trailingSilenceMs ?? d.trailingSilenceMs,
    maxFrameBytes: o.maxFrameBytes ?? d.maxFrameBytes,
  };
  for (const k of ["sampleRate", "recvSampleRate"] as const) {
    if (!Number.isInteger(r[k]) || r[k] < 4000 || r[k] > 192000) throw new ConnectorError("INVALID_OPTION", `must be an integer rate in [4000, 192000] Hz, got ${r[k]}`, { frame: k });
  }
  if (r.encoding !== "pcm16" && r.encoding !== "mulaw") throw new ConnectorError("INVALID_OPTION", `must be "pcm16" or "mulaw", got ${String(r.encoding)}`, { frame: "encoding" });
  if (r.readyOn !== "connect" && r.readyOn !== "message") throw new ConnectorError("INVALID_OPTION", `must be "connect" or "message", got ${String(r.readyOn)}`, { frame: "readyOn" });
  for (const k of ["connectTimeoutS", "maxFrameBytes"] as const) {
    if (!(r[k] > 0)) throw new ConnectorError("INVALID_OPTION", `must be positive, got ${r[k]}`, { frame: k });
  }
  if (!(r.trailingSilenceMs >= 0)) throw new ConnectorError("INVALID_OPTION", `must be ≥ 0, got ${r.trailingSilenceMs}`, { frame: "trailingSilenceMs" });
  return r;
}

/** Read a dotted path (`a.b.0.c`) from a JSON value. */
export function getPath(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Build an object with `value` at a dotted path. */
export function setPath(path: string, value: unknown): Record<string, unknown> {
  const parts = path.split(".");
  let out: unknown = value;
  for (let i = parts.length - 1; i >= 0; i--) out = { [parts[i]]: out };
  return out as Record<string, unknown>;
}

/** Expand `${NAME}` from the environment; a missing variable is an error naming the header and variable, never a value. */
export function expandHeaders(headers: Record<string, string>, env: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = String(value).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, v: string) => {
      const got = env[v];
      if (got === undefined) throw new ConnectorError("INVALID_OPTION", `header ${name} refers to environment variable ${v}, which is not set`, { frame: `headers.${name}` });
      return got;
    });
  }
  return out;
}

/** What one inbound message means. */
export interface InboundMessage {
  audio?: Int16Array;
  transcript?: string;
  turnComplete?: boolean;
  interruption?: boolean;
  ready?: boolean;
  /** Messages to send back at once (e.g. pong). */
  replies?: unknown[];
  /** The caller's words as the agent heard them. */
  callerTranscript?: string;
  /** A non-fatal error the agent reported. */
  agentError?: string;
}

/**
 * The generic WebSocket connector. Subclasses (the realtime-API and ElevenLabs presets) override
 * the message hooks: `openMessages`, `encodeFrame`, `endOfCallerTurnMessages`, `decodeJson`.
 */
export class WebSocketConnector extends BaseConnector {
  get protocol(): VoiceProtocol {
    return VoiceProtocol.WEBSOCKET;
  }
  protected readonly options: Resolved;
  /** @internal The open socket (a `ws` WebSocket; left out of the published types, which need no `ws` or Node typings). */
  protected ws: WebSocket | null = null;
  protected sendRate: number;
  protected recvRate: number;
  private frameCount = 0;
  private exchanges = 0;
  private closing = false;
  /** Transcripts of the caller as the agent heard them, in order. */
  readonly callerTranscripts: string[] = [];
  /** Non-fatal errors the agent reported. */
  readonly agentErrors: string[] = [];

  constructor(options: WebSocketConnectorOptions) {
    super(options);
    this.options = resolveWebSocketConnectorOptions(options);
    this.sendRate = this.options.sampleRate;
    this.recvRate = this.options.recvSampleRate;
  }

  get audioFormat(): AudioFormat {
    return { sampleRate: this.sendRate, encoding: this.options.encoding };
  }
  get recvSampleRate(): number {
    return this.recvRate;
  }
  override get signalsTurnComplete(): boolean {
    return this.options.turnCompleteType !== null;
  }
  override get supportsDuplex(): boolean {
    return true;
  }
  override get trailingSilenceMs(): number {
    return this.options.trailingSilenceMs;
  }
  /** The URL without query string or credentials (for logs and output). */
  get displayUrl(): string {
    try {
      const u = new URL(this.options.url);
      return `${u.protocol}//${u.host}${u.pathname}`;
    } catch {
      return "(invalid url)";
    }
  }
  /** Header names only: values may be secrets. */
  get headerNames(): string[] {
    return Object.keys(this.options.headers);
  }

  /** Messages sent when the socket opens. */
  protected openMessages(): readonly unknown[] {
    return this.options.initMessages;
  }

  /** Messages that end a caller turn (e.g. a push-to-talk commit); none by default. */
  protected endOfCallerTurnMessages(): unknown[] {
    return [];
  }

  /** One uplink frame on the wire. */
  protected encodeFrame(frame: Int16Array): string | Uint8Array {
    const bytes = this.options.encoding === "mulaw" ? mulawEncode(frame) : pcm16ToBytes(frame);
    if (this.options.binaryOutbound) return bytes;
    return JSON.stringify(setPath(this.options.sendKey, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")));
  }

  /** Audio bytes of the wire encoding as PCM16. */
  protected decodeAudioBytes(bytes: Uint8Array): Int16Array {
    return this.options.encoding === "mulaw" ? mulawDecode(bytes) : bytesToPcm16(bytes);
  }

  /** Base64 text to PCM16, strictly (garbage is an error). */
  protected decodeBase64Audio(text: unknown, key: string): Int16Array {
    if (typeof text !== "string") throw new Error(`"${key}" is not a base64 string`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw new Error(`"${key}" is not valid base64`);
    const bytes = Buffer.from(text, "base64");
    if (this.options.encoding === "pcm16" && bytes.length % 2 === 1) throw new Error(`"${key}" holds an odd number of bytes (${bytes.length}), not 16-bit PCM`);
    return this.decodeAudioBytes(bytes);
  }

  /** Interpret one inbound JSON message (generic: audio, transcript and completion under the configured keys). */
  protected decodeJson(msg: Record<string, unknown>): InboundMessage {
    const o = this.options;
    const out: InboundMessage = { ready: o.readyMessageType === null || getPath(msg, o.typeKey) === o.readyMessageType };
    const audio = getPath(msg, o.receiveAudioKey);
    if (audio !== undefined && audio !== null) out.audio = this.decodeBase64Audio(audio, o.receiveAudioKey);
    if (o.receiveTranscriptKey) {
      const t = getPath(msg, o.receiveTranscriptKey);
      if (typeof t === "string") out.transcript = t;
    }
    if (o.turnCompleteType !== null && getPath(msg, o.typeKey) === o.turnCompleteType) out.turnComplete = true;
    return out;
  }

  protected sendJson(value: unknown): void {
    this.ws?.send(JSON.stringify(value));
  }

  async connect(): Promise<void> {
    if (this.ws) throw new ConnectorError("CONNECT_FAILED", "already connected");
    const o = this.options;
    const headers = expandHeaders(o.headers);
    this.downlink = new AsyncQueue<AgentEvent>();
    this.closing = false;
    this.frameCount = 0;
    this.exchanges = 0;
    const ws = new WebSocket(o.url, { headers, maxPayload: o.maxFrameBytes, handshakeTimeout: o.connectTimeoutS * 1000 });
    this.ws = ws;
    let readyResolve!: () => void;
    let readyReject!: (e: Error) => void;
    const ready = new Promise<void>((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    let isReady = false;
    const timer = setTimeout(() => readyReject(new ConnectorError("CONNECT_FAILED", `${this.displayUrl}: not ready within ${o.connectTimeoutS} s`)), o.connectTimeoutS * 1000);
    ws.on("open", () => {
      for (const m of this.openMessages()) this.sendJson(m);
      if (o.readyOn === "connect") {
        isReady = true;
        readyResolve();
      }
    });
    ws.on("message", (data: RawData, isBinary: boolean) => {
      const receivedAt = monotonicMs();
      const n = ++this.frameCount;
      if (this.closing) return;
      let inbound: InboundMessage;
      try {
        inbound = this.decodeFrame(data, isBinary);
      } catch (e) {
        const bytes = toBytes(data);
        this.fail(
          new ConnectorError("PROTOCOL_ERROR", `${(e as Error).message} (${isBinary ? excerpt(bytes) : excerpt(Buffer.from(bytes).toString("utf8"))})`, {
            frame: `agent frame ${n} (${isBinary ? "binary" : "text"}, ${bytes.length} bytes)`,
          }),
        );
        return;
      }
      for (const r of inbound.replies ?? []) this.sendJson(r);
      if (inbound.callerTranscript !== undefined) this.callerTranscripts.push(inbound.callerTranscript);
      if (inbound.agentError !== undefined) this.agentErrors.push(inbound.agentError);
      if (!isReady && inbound.ready) {
        isReady = true;
        readyResolve();
      }
      if (inbound.audio || inbound.transcript !== undefined || inbound.turnComplete || inbound.interruption) {
        this.downlink.push({
          audio: inbound.audio ?? null,
          transcript: inbound.transcript ?? null,
          turnComplete: inbound.turnComplete ?? false,
          interruption: inbound.interruption ?? false,
          receivedAt,
        });
      }
    });
    ws.on("error", (err: Error) => {
      const tooBig = /max payload|too big/i.test(err.message);
      const e = new ConnectorError(
        tooBig ? "PROTOCOL_ERROR" : "CONNECT_FAILED",
        tooBig ? `an agent frame exceeded maxFrameBytes (${o.maxFrameBytes} bytes): ${err.message}` : `${this.displayUrl}: ${err.message}`,
        tooBig ? { frame: `agent frame ${this.frameCount + 1}` } : {},
      );
      if (!isReady) readyReject(e);
      this.fail(e);
    });
    ws.on("close", (code: number, reason: Buffer) => {
      const e = new ConnectorError("AGENT_HANGUP", `the agent closed the connection (code ${code}${reason.length ? `, ${reason.toString("utf8").slice(0, 120)}` : ""})`);
      if (!isReady) readyReject(e);
      this.downlink.close(this.closing ? null : e);
    });
    try {
      await ready;
    } catch (e) {
      ws.terminate();
      this.ws = null;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  private decodeFrame(data: RawData, isBinary: boolean): InboundMessage {
    const bytes = toBytes(data);
    if (isBinary) {
      if (!this.options.binaryInbound) throw new Error("binary frame, but binaryInbound is off");
      if (this.options.encoding === "pcm16" && bytes.length % 2 === 1) throw new Error(`binary frame of ${bytes.length} bytes is not 16-bit PCM`);
      return { audio: this.decodeAudioBytes(bytes), ready: true };
    }
    let msg: unknown;
    try {
      msg = JSON.parse(Buffer.from(bytes).toString("utf8"));
    } catch (e) {
      throw new Error(`not valid JSON: ${(e as Error).message}`);
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) throw new Error("not a JSON object");
    return this.decodeJson(msg as Record<string, unknown>);
  }

  /** End the connection on a protocol error: the downlink closes with it, so the turn in progress ends. */
  protected fail(error: Error): void {
    if (this.closing) return;
    this.closing = true;
    this.downlink.close(error);
    this.ws?.terminate();
  }

  async disconnect(): Promise<void> {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.closing = true;
    await this.stopUplink();
    if (ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1000);
      ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, "done");
    });
    this.downlink.close(null);
  }

  /** @internal The open socket, or a ConnectorError when the call is not connected. */
  protected requireOpen(): WebSocket {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) throw new ConnectorError("AGENT_HANGUP", "the connection is not open");
    return ws;
  }

  override async streamUplink(audio: Audio | Pcm, options: UplinkOptions = {}): Promise<UplinkResult> {
    const ws = this.requireOpen();
    const pcm = this.uplinkPcm(audio);
    const pad = options.trailingSilence === false ? 0 : this.trailingSilenceMs;
    const result = await this.paceUplink(pcm, pad, (frame) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(this.encodeFrame(frame));
    }, options);
    if (!result.stopped && ws.readyState === WebSocket.OPEN) for (const m of this.endOfCallerTurnMessages()) this.sendJson(m);
    return result;
  }

  /**
   * Half-duplex (§L7/§L8): drain stale audio (after the first exchange), send the caller's clip and the trailing silence in real
   * time, then read the agent's turn. `latency_ms` keeps deepeval's meaning (end of the padded uplink
   * → first speech frame read, so ≈ 0 when the agent started during the pad); the arrival instant is
   * `audio_started_at`.
   */
  async exchangeTurn(audio: Audio | Pcm): Promise<ConnectorTurn> {
    // Audio queued before the first exchange is the agent's greeting, not a stale reply.
    if (this.exchanges++ > 0) this.drainDownlink();
    const up = await this.streamUplink(audio, { trailingSilence: true });
    const turn = await collectAgentTurn(this.downlink, { sampleRate: this.recvRate, detection: this.turnDetection, startedAt: up.endedAt });
    return connectorTurnFrom(turn, up);
  }
}

/** The ConnectorTurn of a streamed exchange (shared by every transport connector). */
export function connectorTurnFrom(turn: Awaited<ReturnType<typeof collectAgentTurn>>, up: UplinkResult): ConnectorTurn {
  return {
    audio: Audio.fromBytes(writeWavPcm16(turn.pcm, turn.sampleRate), "audio/wav", { sampleRate: turn.sampleRate, encoding: "wav", duration: turn.pcm.length / turn.sampleRate }),
    transcript: turn.transcript,
    // Read at the end of the padded uplink at the earliest: deepeval's meaning, timed by the frame's
    // arrival rather than by when this event loop got round to it (first_audio_read_s keeps that).
    latency_ms: turn.firstAudioAt === null ? null : Math.max(turn.firstAudioAt, up.endedAt) - up.endedAt,
    interrupted: false,
    input_audio_started_at: up.firstFrameAt,
    input_audio_ended_at: up.clipEndedAt,
    audio_started_at: turn.firstAudioAt,
    capture: { endedBy: turn.endedBy, firstAudioReadAt: turn.firstAudioReadAt, uplinkEndedAt: up.endedAt, error: turn.error, uplinkFrameLatenessMs: up.frameLatenessMs },
  };
}

function toBytes(data: RawData): Uint8Array {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return new Uint8Array(data as ArrayBuffer);
}
