// The reference voice agent: a local WebSocket agent (generic, realtime-API and ElevenLabs protocols) with server VAD, a configurable reply delay, barge-in and misbehaviours on request.
import { pathToFileURL } from "node:url";
import { WebSocketServer, type WebSocket, type RawData } from "ws";
import { EspeakTts, decodeAudio } from "../src/index.js";
import { frameRms, frameSamples, bytesToPcm16, pcm16ToBytes } from "../src/connectors/frames.js";
import { monotonicMs, sleepUntil } from "../src/connectors/clock.js";
import { synthesizeSpeech } from "./synthetic-speech.js";

export type AgentProtocol = "generic" | "realtime" | "elevenlabs";
export type Misbehaviour = "none" | "never-answer" | "hang-up-mid-reply" | "garbage" | "oversized" | "trickle" | "stall";
export const MISBEHAVIOURS: readonly Misbehaviour[] = ["none", "never-answer", "hang-up-mid-reply", "garbage", "oversized", "trickle", "stall"];

export interface ReferenceAgentOptions {
  /** Listen address (loopback only). */
  host?: "127.0.0.1" | "::1";
  /** Port; 0 = an ephemeral one. */
  port?: number;
  /** Protocol of connections whose path is not /generic, /realtime or /elevenlabs. */
  protocol?: AgentProtocol;
  /** Reply delay after the end of the caller's speech, in ms. */
  delayMs?: number;
  /** Server-VAD end-of-speech window: silence that ends a caller utterance, in ms. */
  vadSilenceMs?: number;
  /** Server-VAD frame threshold (RMS of a 20 ms frame, int16 units). */
  vadThresholdRms?: number;
  /** Caller speech (ms) during a reply that makes the agent stop (barge-in); 0 = never stop. */
  bargeInMs?: number;
  /** Agent PCM rate for generic and realtime connections, in Hz (ElevenLabs uses 16000). */
  sampleRate?: number;
  /** Reply voice: the deterministic synthetic signal, or espeak-ng. */
  voice?: "synthetic" | "espeak";
  /** Reply texts, used in turn (cycled). */
  replies?: readonly string[];
  /** Speak a greeting as soon as a call connects. */
  greeting?: string | null;
  /** Realtime protocol: what the agent "heard" of each caller utterance (cycled), sent as input_audio_transcription.completed; empty = none. */
  callerTranscripts?: readonly string[];
  /** Misbehave on request. */
  misbehave?: Misbehaviour;
  /** hang-up-mid-reply: audio sent before hanging up, in ms. */
  hangUpAfterMs?: number;
  /** trickle: interval between 20 ms frames, in ms. */
  trickleIntervalMs?: number;
  /** oversized: size of the oversized frame, in bytes. */
  oversizedBytes?: number;
  /** Realtime: transcribe each caller utterance (sent as `conversation.item.input_audio_transcription.completed`); null = no transcription events. */
  transcribe?: ((pcm: Int16Array, sampleRate: number, utterance: number) => string | Promise<string>) | null;
  /** Realtime: call a tool for an utterance (the session must declare tools); null = never. The follow-up reply comes after the client sends the output and `response.create`. */
  toolCall?: ((ctx: { utterance: number; transcript: string | null; tools: string[] }) => { name: string; arguments: string } | null) | null;
  /** Realtime: hang up (close code 4001) when the first reply of a session whose session.update matches is due: a dropped connection on request. */
  hangUpIf?: ((session: Record<string, unknown>) => boolean) | null;
}

export const DEFAULT_REFERENCE_AGENT_OPTIONS: Readonly<Required<ReferenceAgentOptions>> = Object.freeze({
  host: "127.0.0.1",
  port: 0,
  protocol: "generic",
  delayMs: 800,
  vadSilenceMs: 500,
  vadThresholdRms: 300,
  bargeInMs: 100,
  sampleRate: 24000,
  voice: "synthetic",
  replies: Object.freeze([
    "Sure, I can help with that. Could you tell me your order number please?",
    "Thank you. Your order shipped yesterday and should arrive on Friday.",
    "Of course. Is there anything else I can help you with today?",
  ]) as readonly string[],
  greeting: null,
  callerTranscripts: Object.freeze([]) as readonly string[],
  misbehave: "none",
  hangUpAfterMs: 400,
  trickleIntervalMs: 150,
  oversizedBytes: 6 * 1024 * 1024,
  transcribe: null,
  toolCall: null,
  hangUpIf: null,
});

/** What the agent did for one caller utterance, on the host's monotonic clock (ms). */
export interface ReplyRecord {
  connection: number;
  protocol: AgentProtocol;
  /** 0-based utterance number on the connection. */
  utterance: number;
  /** First frame of the caller's burst that held the utterance. */
  callerFirstFrameAt: number;
  /** End of the caller's last speech frame, placed by the burst's own sample clock. */
  callerSpeechEndAt: number;
  /** End of the caller's audio burst (speech + trailing silence), by its sample clock (updated while the burst lasts). */
  callerBurstEndAt: number;
  /** When the reply was due (speech end + delay). */
  replyDueAt: number;
  /** When its first audio frame was actually sent (null: never). */
  replyFirstFrameAt: number | null;
  replyText: string;
  replySamples: number;
  /** The caller barged in and the agent stopped. */
  interrupted: boolean;
}

export interface ReferenceAgent {
  /** ws://host:port (append /generic, /realtime or /elevenlabs to pick a protocol). */
  url: string;
  port: number;
  records: ReplyRecord[];
  /** Realtime: what each session.update asked for, by connection. */
  sessions: { connection: number; session: Record<string, unknown> }[];
  /** Realtime: tool outputs the client returned (`function_call_output` items), by connection. */
  toolOutputs: { connection: number; call_id: string; output: string }[];
  /** Pongs received (ElevenLabs), by connection. */
  pongs: number;
  /** Connections currently open. */
  openConnections(): number;
  close(): Promise<void>;
}

type Options = Required<ReferenceAgentOptions>;

/** Start the agent; resolves once it listens. */
export async function startReferenceAgent(options: ReferenceAgentOptions = {}): Promise<ReferenceAgent> {
  const o: Options = { ...DEFAULT_REFERENCE_AGENT_OPTIONS, ...options } as Options;
  if (!MISBEHAVIOURS.includes(o.misbehave)) throw new Error(`misbehave must be one of ${MISBEHAVIOURS.join(", ")}`);
  const tts = o.voice === "espeak" ? new EspeakTts({ sampleRate: o.sampleRate }) : null;
  const wss = new WebSocketServer({ host: o.host, port: o.port, maxPayload: 64 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
  const address = wss.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const records: ReplyRecord[] = [];
  const sessionUpdates: ReferenceAgent["sessions"] = [];
  const toolOutputs: ReferenceAgent["toolOutputs"] = [];
  const sessions = new Set<Session>();
  const voiceCache = new Map<string, Int16Array>();
  // Replies are synthesised before any call, so no reply stalls the event loop during another call.
  if (!tts) for (const text of [...o.replies, ...(o.greeting ? [o.greeting] : [])]) for (const rate of [o.sampleRate, 16000]) voiceCache.set(`${rate}:${text}`, synthesizeSpeech(text, { sampleRate: rate, pitchHz: 190, seed: 7 }));
  const state = { pongs: 0, connections: 0 };
  wss.on("connection", (ws: WebSocket, req) => {
    const path = (req.url ?? "/").split("?")[0];
    const protocol: AgentProtocol = path === "/realtime" ? "realtime" : path === "/elevenlabs" ? "elevenlabs" : path === "/generic" ? "generic" : o.protocol;
    const s = new Session(ws, protocol, o, ++state.connections, records, tts, () => state.pongs++, voiceCache, { sessionUpdates, toolOutputs });
    sessions.add(s);
    ws.on("close", () => {
      s.dispose();
      sessions.delete(s);
    });
  });
  return {
    url: `ws://${o.host === "::1" ? "[::1]" : o.host}:${port}`,
    port,
    records,
    sessions: sessionUpdates,
    toolOutputs,
    get pongs() {
      return state.pongs;
    },
    openConnections: () => sessions.size,
    close: async () => {
      for (const s of sessions) s.dispose();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** One call: the server VAD over the caller's audio, and the agent's replies. */
class Session {
  private readonly rate: number;
  private readonly frameN: number;
  private carry = new Int16Array(0);
  /** Burst clock: host time of the burst's first sample, samples received in it. */
  private burstAnchor = -Infinity;
  private burstSamples = 0;
  private inSpeech = false;
  private speechFrames = 0;
  private silenceMs = 0;
  private lastSpeechEndSample = 0;
  private utterance = 0;
  private replying: { record: ReplyRecord; stop: () => void } | null = null;
  /** The latest reply's record while the caller burst it answers goes on. */
  private burstRecord: ReplyRecord | null = null;
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;
  private seq = 0;
  private ga = false;
  private greeted = false;
  /** The session's end-of-speech window (session.update turn_detection.silence_duration_ms overrides the option). */
  private vadSilenceMs: number;
  /** Caller samples of the utterance in progress (for transcription). */
  private utterancePcm: Int16Array[] = [];
  private toolNames: string[] = [];
  /** A tool call waiting for the client's output and response.create. */
  private pendingTool: { text: string } | null = null;
  private hangUp = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly protocol: AgentProtocol,
    private readonly o: Options,
    private readonly id: number,
    private readonly records: ReplyRecord[],
    private readonly tts: EspeakTts | null,
    private readonly onPong: () => void,
    private readonly voiceCache: Map<string, Int16Array>,
    private readonly log: { sessionUpdates: ReferenceAgent["sessions"]; toolOutputs: ReferenceAgent["toolOutputs"] } = { sessionUpdates: [], toolOutputs: [] },
  ) {
    this.vadSilenceMs = o.vadSilenceMs;
    this.rate = protocol === "elevenlabs" ? 16000 : o.sampleRate;
    this.frameN = frameSamples(this.rate);
    ws.on("message", (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    if (protocol === "realtime") this.send({ type: "session.created", session: { id: `sess_${id}` } });
    if (protocol === "generic" && o.greeting) this.later(0, () => void this.reply(o.greeting!, monotonicMs(), true));
  }

  dispose(): void {
    this.closed = true;
    this.replying?.stop();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  private send(value: unknown): void {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(typeof value === "string" ? value : JSON.stringify(value));
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const at = monotonicMs();
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) return this.onAudio(bytesToPcm16(bytes), at);
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(bytes.toString("utf8"));
    } catch {
      return;
    }
    switch (this.protocol) {
      case "generic":
        if (typeof msg.audio === "string") this.onAudio(bytesToPcm16(Buffer.from(msg.audio, "base64")), at);
        return;
      case "realtime":
        if (msg.type === "session.update") {
          const session = (msg.session ?? {}) as Record<string, unknown>;
          this.ga = session.type === "realtime";
          this.log.sessionUpdates.push({ connection: this.id, session });
          const input = ((session.audio as Record<string, unknown> | undefined)?.input ?? {}) as Record<string, unknown>;
          const td = (session.turn_detection ?? input.turn_detection) as Record<string, unknown> | null | undefined;
          if (td && typeof td.silence_duration_ms === "number") this.vadSilenceMs = td.silence_duration_ms;
          if (this.o.hangUpIf?.(session)) this.hangUp = true;
          if (Array.isArray(session.tools)) this.toolNames = session.tools.map((t) => String((t as Record<string, unknown>)?.name ?? ""));
          this.send({ type: "session.updated", session });
          if (this.o.greeting && !this.greeted) {
            this.greeted = true;
            this.later(0, () => void this.reply(this.o.greeting!, monotonicMs(), true));
          }
        } else if (msg.type === "input_audio_buffer.append" && typeof msg.audio === "string") {
          this.onAudio(bytesToPcm16(Buffer.from(msg.audio, "base64")), at);
        } else if (msg.type === "input_audio_buffer.commit") {
          this.send({ type: "input_audio_buffer.committed" });
          if (this.inSpeech) this.endOfUtterance(true);
        } else if (msg.type === "conversation.item.create") {
          const item = (msg.item ?? {}) as Record<string, unknown>;
          if (item.type === "function_call_output") this.log.toolOutputs.push({ connection: this.id, call_id: String(item.call_id), output: String(item.output) });
          this.send({ type: "conversation.item.created", item });
        } else if (msg.type === "response.create") {
          const pending = this.pendingTool;
          this.pendingTool = null;
          if (pending) void this.reply(pending.text, monotonicMs(), false);
        } else if (msg.type === "conversation.item.truncate") {
          this.send({ type: "conversation.item.truncated", item_id: msg.item_id, content_index: 0, audio_end_ms: msg.audio_end_ms });
        }
        return;
      case "elevenlabs":
        if (msg.type === "conversation_initiation_client_data") {
          this.send({
            type: "conversation_initiation_metadata",
            conversation_initiation_metadata_event: { conversation_id: `conv_${this.id}`, agent_output_audio_format: "pcm_16000", user_input_audio_format: "pcm_16000" },
          });
          this.send({ type: "ping", ping_event: { event_id: ++this.seq, ping_ms: 0 } });
          if (this.o.greeting) this.later(0, () => void this.reply(this.o.greeting!, monotonicMs(), true));
        } else if (typeof msg.user_audio_chunk === "string") {
          this.onAudio(bytesToPcm16(Buffer.from(msg.user_audio_chunk, "base64")), at);
        } else if (msg.type === "pong") {
          this.onPong();
        }
        return;
    }
  }

  /** Server VAD: 20 ms frames placed on the burst's sample clock; an utterance ends after vadSilenceMs of silence. */
  private onAudio(pcm: Int16Array, at: number): void {
    // A new burst when audio arrives well after the previous burst's clock says it should have ended.
    if (at > this.burstAnchor + (this.burstSamples / this.rate) * 1000 + 100) {
      this.burstAnchor = at;
      this.burstSamples = 0;
      this.carry = new Int16Array(0);
      this.burstRecord = null;
    }
    // A frame can be handled late (a busy event loop) but never before it was sent: the burst's
    // sample clock is the lower envelope of arrival − (samples before the chunk) / rate.
    this.burstAnchor = Math.min(this.burstAnchor, at - ((this.burstSamples + this.carry.length) / this.rate) * 1000);
    let samples = pcm;
    if (this.carry.length) {
      samples = new Int16Array(this.carry.length + pcm.length);
      samples.set(this.carry);
      samples.set(pcm, this.carry.length);
    }
    const whole = samples.length - (samples.length % this.frameN);
    this.carry = samples.slice(whole);
    const frameMs = (this.frameN / this.rate) * 1000;
    for (let i = 0; i < whole; i += this.frameN) {
      const speech = frameRms(samples.subarray(i, i + this.frameN)) >= this.o.vadThresholdRms;
      this.burstSamples += this.frameN;
      if (this.inSpeech || speech) this.utterancePcm.push(samples.slice(i, i + this.frameN));
      if (speech) {
        this.speechFrames++;
        this.silenceMs = 0;
        this.lastSpeechEndSample = this.burstSamples;
        if (!this.inSpeech) {
          this.inSpeech = true;
          if (this.protocol === "realtime") this.send({ type: "input_audio_buffer.speech_started", audio_start_ms: Math.round(((this.burstSamples - this.frameN) / this.rate) * 1000) });
        }
        if (this.replying && this.o.bargeInMs > 0 && this.speechFrames * frameMs >= this.o.bargeInMs) this.bargeIn();
      } else if (this.inSpeech) {
        this.silenceMs += frameMs;
        if (this.silenceMs >= this.vadSilenceMs) this.endOfUtterance();
      } else {
        this.speechFrames = 0;
      }
    }
    if (this.burstRecord) this.burstRecord.callerBurstEndAt = this.burstAnchor + (this.burstSamples / this.rate) * 1000;
  }

  private bargeIn(): void {
    const r = this.replying;
    if (!r) return;
    r.record.interrupted = true;
    r.stop();
    if (this.protocol === "elevenlabs") this.send({ type: "interruption", interruption_event: { event_id: ++this.seq } });
    if (this.protocol === "generic") this.send({ type: "interruption" });
  }

  private endOfUtterance(byCommit = false): void {
    this.inSpeech = false;
    this.speechFrames = 0;
    this.silenceMs = 0;
    const speechEndAt = this.burstAnchor + (this.lastSpeechEndSample / this.rate) * 1000;
    const n = this.utterance++;
    const heard = this.utterancePcm;
    this.utterancePcm = [];
    if (this.protocol === "realtime") {
      const audioEndMs = Math.round((this.lastSpeechEndSample / this.rate) * 1000);
      // Paced frames arrive at their start: the window's last frame is in hand 20 ms before the window
      // has elapsed on the caller's audio clock. A realtime server decides on that clock, so the VAD
      // end (and what follows it) waits until speech end + window (not for a push-to-talk commit).
      const decideAt = byCommit ? monotonicMs() : speechEndAt + this.vadSilenceMs;
      this.later(Math.max(0, decideAt - monotonicMs()), () => {
        this.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: audioEndMs });
        this.answer(n, heard, speechEndAt);
      });
      return;
    }
    this.answer(n, heard, speechEndAt);
  }

  private answer(n: number, heard: Int16Array[], speechEndAt: number): void {
    if (this.protocol === "realtime" && this.o.callerTranscripts.length > 0) {
      this.send({ type: "conversation.item.input_audio_transcription.completed", item_id: `caller_${this.id}_${n}`, content_index: 0, transcript: this.o.callerTranscripts[n % this.o.callerTranscripts.length] });
    }
    if (this.o.misbehave === "never-answer") return;
    if (this.o.misbehave === "stall" && n > 0) return;
    const text = this.o.replies[n % this.o.replies.length];
    if (this.protocol === "realtime" && (this.o.transcribe || this.o.toolCall)) return void this.answerRealtime(n, heard, text, speechEndAt);
    void this.reply(text, speechEndAt, false);
  }

  /** Realtime: the caller's transcription, then a tool call or the reply. */
  private async answerRealtime(n: number, heard: Int16Array[], text: string, speechEndAt: number): Promise<void> {
    let transcript: string | null = null;
    if (this.o.transcribe) {
      let total = 0;
      for (const f of heard) total += f.length;
      const pcm = new Int16Array(total);
      let at = 0;
      for (const f of heard) {
        pcm.set(f, at);
        at += f.length;
      }
      const itemId = `item_in_${this.id}_${n}`;
      // The reply does not wait for the transcription (a realtime service runs them side by side).
      void Promise.resolve(this.o.transcribe(pcm, this.rate, n)).then((t) => {
        transcript = t;
        this.send({ type: "conversation.item.input_audio_transcription.completed", item_id: itemId, content_index: 0, transcript: t });
      });
    }
    const call = this.toolNames.length && this.o.toolCall ? this.o.toolCall({ utterance: n, transcript, tools: this.toolNames }) : null;
    if (!call) return void this.reply(text, speechEndAt, false);
    await sleepUntil(speechEndAt + this.o.delayMs);
    if (this.closed) return;
    const responseId = `resp_${this.id}_${this.seq++}`;
    const itemId = `item_${this.id}_${this.seq++}`;
    const callId = `call_${this.id}_${this.seq++}`;
    this.send({ type: "response.created", response: { id: responseId, status: "in_progress" } });
    this.send({ type: "response.output_item.added", response_id: responseId, item: { id: itemId, type: "function_call", call_id: callId, name: call.name } });
    this.send({ type: "conversation.item.created", item: { id: itemId, type: "function_call", call_id: callId, name: call.name } });
    this.send({ type: "response.function_call_arguments.done", response_id: responseId, item_id: itemId, call_id: callId, name: call.name, arguments: call.arguments });
    this.pendingTool = { text };
    this.send({ type: "response.done", response: { id: responseId, status: "completed" } });
  }

  /** The reply's PCM, synthesised once per text and rate (so a reply never stalls the event loop of other calls). */
  private async speak(text: string): Promise<Int16Array> {
    const key = `${this.rate}:${text}`;
    let pcm = this.voiceCache.get(key);
    if (!pcm) {
      pcm = this.tts ? decodeAudio((await this.tts.synthesize(text)).audio.getBytes()).samples : synthesizeSpeech(text, { sampleRate: this.rate, pitchHz: 190, seed: 7 });
      this.voiceCache.set(key, pcm);
    }
    return pcm;
  }

  /** Send a reply paced in real time from speechEndAt + delay (absolute), as the protocol frames it. */
  private async reply(text: string, speechEndAt: number, greeting: boolean): Promise<void> {
    this.replying?.stop();
    const pcm = await this.speak(text);
    const record: ReplyRecord = {
      connection: this.id,
      protocol: this.protocol,
      utterance: greeting ? -1 : this.utterance - 1,
      callerFirstFrameAt: this.burstAnchor,
      callerSpeechEndAt: speechEndAt,
      callerBurstEndAt: this.burstAnchor + (this.burstSamples / this.rate) * 1000,
      replyDueAt: greeting ? speechEndAt : speechEndAt + this.o.delayMs,
      replyFirstFrameAt: null,
      replyText: text,
      replySamples: 0,
      interrupted: false,
    };
    this.records.push(record);
    if (!greeting) this.burstRecord = record;
    let stopped = false;
    const abort = new AbortController();
    const handle = { record, stop: () => ((stopped = true), abort.abort()) };
    this.replying = handle;
    const responseId = `resp_${this.id}_${this.seq++}`;
    const itemId = `item_${this.id}_${this.seq++}`;
    const delta = this.ga ? "response.output_audio.delta" : "response.audio.delta";
    const tDelta = this.ga ? "response.output_audio_transcript.delta" : "response.audio_transcript.delta";
    try {
      await sleepUntil(record.replyDueAt, abort.signal);
      if (this.hangUp) {
        this.ws.close(4001, "agent dropped the call");
        return;
      }
      if (this.protocol === "realtime") {
        this.send({ type: "response.created", response: { id: responseId, status: "in_progress" } });
        this.send({ type: "response.output_item.added", response_id: responseId, item: { id: itemId, type: "message", role: "assistant" } });
      }
      if (this.protocol === "elevenlabs") this.send({ type: "agent_response", agent_response_event: { agent_response: text } });
      if (this.protocol === "generic") this.send({ type: "transcript", text });
      const words = text.split(" ");
      const trickle = this.o.misbehave === "trickle";
      const interval = trickle ? this.o.trickleIntervalMs : (this.frameN / this.rate) * 1000;
      const frames = Math.ceil(pcm.length / this.frameN);
      const t0 = monotonicMs();
      for (let k = 0; k < frames && !stopped; k++) {
        if (k > 0) await sleepUntil(t0 + k * interval, abort.signal);
        if (this.closed) return;
        if (this.o.misbehave === "hang-up-mid-reply" && k * 20 >= this.o.hangUpAfterMs) {
          this.ws.close(4000, "agent hung up");
          return;
        }
        if (this.o.misbehave === "garbage" && k === 3) {
          this.send("}{ this is not a JSON frame \u0000\u0001");
        }
        if (this.o.misbehave === "oversized" && k === 3) {
          this.send(JSON.stringify({ type: "audio", audio: "A".repeat(this.o.oversizedBytes) }));
        }
        const frame = pcm.subarray(k * this.frameN, (k + 1) * this.frameN);
        const b64 = Buffer.from(pcm16ToBytes(frame)).toString("base64");
        if (k === 0) record.replyFirstFrameAt = monotonicMs();
        if (this.protocol === "generic") this.send({ type: "audio", audio: b64 });
        else if (this.protocol === "realtime") {
          this.send({ type: delta, response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: b64 });
          const w = Math.floor((k / frames) * words.length);
          if (k % 10 === 0 && w < words.length) this.send({ type: tDelta, response_id: responseId, item_id: itemId, delta: (w === 0 ? "" : " ") + words.slice(w, Math.floor(((k + 10) / frames) * words.length)).join(" ") });
        } else this.send({ type: "audio", audio_event: { audio_base_64: b64, event_id: ++this.seq } });
        record.replySamples += frame.length;
        if (this.o.misbehave === "stall") {
          await new Promise<void>((resolve) => abort.signal.addEventListener("abort", () => resolve(), { once: true }));
          return;
        }
      }
    } catch {
      // aborted: barge-in or close
    } finally {
      if (this.replying === handle) this.replying = null;
    }
    if (this.closed) return;
    if (this.protocol === "realtime") {
      if (!record.interrupted) this.send({ type: this.ga ? "response.output_audio_transcript.done" : "response.audio_transcript.done", response_id: responseId, item_id: itemId, transcript: text });
      this.send({ type: "response.done", response: { id: responseId, status: record.interrupted ? "cancelled" : "completed" } });
    } else if (this.protocol === "elevenlabs") this.send({ type: "agent_response_complete" });
    else this.send({ type: "turn_complete" });
  }
}

/** Command line: `npx tsx examples/reference-agent.ts --port 0 --protocol realtime --delay-ms 800`. */
async function main(argv: string[]): Promise<void> {
  const { Command, Option } = await import("commander");
  const d = DEFAULT_REFERENCE_AGENT_OPTIONS;
  const program = new Command()
    .name("reference-agent")
    .description("a local voice agent on 127.0.0.1 for voxmetrics call (paths /generic, /realtime, /elevenlabs pick the protocol)")
    .option("--port <n>", "port (0 = ephemeral)", (v) => Number(v), d.port)
    .addOption(new Option("--protocol <p>", "protocol of other paths").choices(["generic", "realtime", "elevenlabs"]).default(d.protocol))
    .option("--delay-ms <n>", "reply delay after the caller's speech ends (ms)", (v) => Number(v), d.delayMs)
    .option("--vad-silence-ms <n>", "server-VAD end-of-speech window (ms)", (v) => Number(v), d.vadSilenceMs)
    .option("--barge-in-ms <n>", "caller speech that stops a reply (ms, 0 = never)", (v) => Number(v), d.bargeInMs)
    .addOption(new Option("--voice <v>", "reply voice").choices(["synthetic", "espeak"]).default(d.voice))
    .option("--greeting <text>", "speak first")
    .addOption(new Option("--misbehave <m>", "misbehave on request").choices([...MISBEHAVIOURS]).default(d.misbehave))
    .parse(argv);
  const f = program.opts();
  const agent = await startReferenceAgent({
    port: f.port,
    protocol: f.protocol,
    delayMs: f.delayMs,
    vadSilenceMs: f.vadSilenceMs,
    bargeInMs: f.bargeInMs,
    voice: f.voice,
    greeting: f.greeting ?? null,
    misbehave: f.misbehave,
  });
  process.stdout.write(`${agent.url}/${f.protocol}\n`);
  const stop = () => void agent.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv).catch((e) => {
    process.stderr.write(`reference-agent: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
