// The in-process callback connector (§L7 CallbackVoiceConnector): an agent function taking an Audio and returning an Audio or a ConnectorTurn.
import { decodeAudio } from "../audio/decode.js";
import { downmixTruncating } from "../audio/convert.js";
import { resampleWith } from "../audio/resample.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { Audio } from "../model/audio.js";
import type { SpeechToText, TextToSpeech } from "../speech/types.js";
import { BaseConnector, type BaseConnectorOptions } from "./base.js";
import { AbortedError, monotonicMs, sleepUntil } from "./clock.js";
import { ConnectorError } from "./errors.js";
import { frameSamples } from "./frames.js";
import { VoiceProtocol } from "./protocol.js";
import type { AudioFormat, ConnectorTurn, Pcm, UplinkOptions, UplinkResult } from "./types.js";

/** An in-process voice agent: the caller's audio in, the reply out, synchronously or as a promise. */
export type VoiceAgentFunction = (audio: Audio) => Audio | ConnectorTurn | Promise<Audio | ConnectorTurn>;

/** A text agent: the caller's words in, the reply's words out. */
export type TextAgentFunction = (text: string) => string | Promise<string>;

/** Options of the CallbackConnector (an agent given as a function). */
export interface CallbackConnectorOptions extends BaseConnectorOptions {
  /**
   * Rate of the audio handed to the agent and of the reply as recorded, in Hz.
   * @defaultValue 24000
   */
  sampleRate?: number;
}

/** Defaults of the CallbackConnector. */
export const DEFAULT_CALLBACK_CONNECTOR_OPTIONS = Object.freeze({ sampleRate: 24000 });

function isConnectorTurn(v: unknown): v is ConnectorTurn {
  return v !== null && typeof v === "object" && !(v instanceof Audio) && "audio" in v;
}

/**
 * Calls an agent function in process. The caller's audio is delivered on the call clock as a
 * transport would (the agent is invoked when the clip has been spoken), so the reply starts when
 * the function returns; latency = wall time around the call unless the agent reports its own.
 */
export class CallbackConnector extends BaseConnector {
  get protocol(): VoiceProtocol {
    return VoiceProtocol.CALLBACK;
  }
  readonly agent: VoiceAgentFunction;
  private readonly rate: number;
  private connected = false;
  private replyAbort: AbortController | null = null;
  private stopCurrent: (() => void) | null = null;

  constructor(agent: VoiceAgentFunction, options: CallbackConnectorOptions = {}) {
    super(options);
    if (typeof agent !== "function") throw new ConnectorError("INVALID_OPTION", "the agent must be a function", { frame: "agent" });
    this.agent = agent;
    this.rate = options.sampleRate ?? DEFAULT_CALLBACK_CONNECTOR_OPTIONS.sampleRate;
    if (!Number.isInteger(this.rate) || this.rate < 4000) throw new ConnectorError("INVALID_OPTION", `must be an integer rate ≥ 4000 Hz, got ${this.rate}`, { frame: "sampleRate" });
  }

  /** Wrap a text agent as a voice agent: STT → agent → TTS (deepeval's `from_text_agent`). */
  static fromTextAgent(textAgent: TextAgentFunction, speech: { tts: TextToSpeech; stt: SpeechToText; voice?: string | null }, options: CallbackConnectorOptions = {}): CallbackConnector {
    const agent: VoiceAgentFunction = async (audio) => {
      const heard = await speech.stt.transcribe(audio);
      const reply = await textAgent(heard.text);
      const spoken = await speech.tts.synthesize(reply, { voice: speech.voice ?? null });
      return { audio: spoken.audio, transcript: reply };
    };
    return new CallbackConnector(agent, options);
  }

  get audioFormat(): AudioFormat {
    return { sampleRate: this.rate, encoding: "pcm16" };
  }
  get recvSampleRate(): number {
    return this.rate;
  }
  override get signalsTurnComplete(): boolean {
    return true;
  }
  override get supportsDuplex(): boolean {
    return true;
  }

  async connect(): Promise<void> {
    this.connected = true;
  }

  async disconnect(): Promise<void> {
    this.connected = false;
    this.replyAbort?.abort();
    await this.stopUplink();
    this.downlink.close(null);
  }

  private requireConnected(): void {
    if (!this.connected) throw new ConnectorError("AGENT_HANGUP", "the callback connector is not connected");
  }

  /** Invoke the agent; the reply as PCM at the connector rate plus what the agent said about it. */
  private async invoke(pcm: Int16Array): Promise<{ pcm: Int16Array; transcript: string | null; latencyMs: number | null; invokedAt: number; returnedAt: number }> {
    const input = Audio.fromBytes(writeWavPcm16(pcm, this.rate), "audio/wav", { sampleRate: this.rate, encoding: "wav", duration: pcm.length / this.rate });
    const invokedAt = monotonicMs();
    const result = await this.agent(input);
    const returnedAt = monotonicMs();
    const turn = isConnectorTurn(result) ? result : { audio: result as Audio };
    if (!(turn.audio instanceof Audio)) throw new ConnectorError("PROTOCOL_ERROR", "the agent returned neither an Audio nor a ConnectorTurn with one", { frame: "agent reply" });
    const d = decodeAudio(turn.audio.getBytes(), { name: "agent reply" });
    const mono = d.channels === 1 ? d.samples : downmixTruncating(d.samples, d.channels);
    const reply = d.sampleRate === this.rate ? mono : resampleWith(this.resampler, mono, d.sampleRate, this.rate);
    return { pcm: reply, transcript: turn.transcript ?? null, latencyMs: turn.latency_ms ?? null, invokedAt, returnedAt };
  }

  /** Half-duplex: the clip is spoken on the call clock, then the agent is called and its reply is whole. */
  async exchangeTurn(audio: Audio | Pcm): Promise<ConnectorTurn> {
    this.requireConnected();
    const pcm = this.uplinkPcm(audio);
    const startedAt = monotonicMs();
    const endedAt = startedAt + (pcm.length / this.rate) * 1000;
    await sleepUntil(endedAt);
    const r = await this.invoke(pcm);
    return {
      audio: Audio.fromBytes(writeWavPcm16(r.pcm, this.rate), "audio/wav", { sampleRate: this.rate, encoding: "wav", duration: r.pcm.length / this.rate }),
      transcript: r.transcript,
      latency_ms: r.latencyMs ?? r.returnedAt - r.invokedAt,
      interrupted: false,
      input_audio_started_at: startedAt,
      input_audio_ended_at: endedAt,
      audio_started_at: Math.max(r.returnedAt, endedAt),
      capture: { endedBy: "turn_complete", firstAudioReadAt: r.returnedAt, uplinkEndedAt: endedAt, error: null },
    };
  }

  /**
   * Duplex: the clip takes its duration on the call clock, then the agent is called and its reply
   * is paced into the agent events in 20 ms frames, closed with turn_complete. A new uplink
   * abandons a reply still playing (barge-in), which then ends with turn_complete too.
   */
  override async streamUplink(audio: Audio | Pcm, options: UplinkOptions = {}): Promise<UplinkResult> {
    this.requireConnected();
    this.replyAbort?.abort();
    const pcm = this.uplinkPcm(audio);
    // Nothing travels anywhere: the clip is "spoken" from now to now + its duration, and the agent
    // gets it at the instant it ends (a transport would deliver the last frame then).
    const abort = new AbortController();
    const t0 = monotonicMs();
    options.onFirstFrame?.(t0);
    const endAt = t0 + (pcm.length / this.rate) * 1000;
    let stopped = false;
    const stop = () => abort.abort();
    this.stopCurrent = stop;
    try {
      await sleepUntil(endAt, abort.signal);
    } catch (e) {
      if (!(e instanceof AbortedError)) throw e;
      stopped = true;
    } finally {
      if (this.stopCurrent === stop) this.stopCurrent = null;
    }
    const endedAt = monotonicMs();
    const spoken = stopped ? pcm.subarray(0, Math.min(pcm.length, Math.round(((endedAt - t0) / 1000) * this.rate))) : pcm;
    if (!stopped) void this.playReply(spoken);
    return { pcm: spoken, sampleRate: this.rate, firstFrameAt: t0, clipEndedAt: stopped ? endedAt : endAt, endedAt: stopped ? endedAt : endAt, stopped, frameLatenessMs: [endedAt - endAt] };
  }

  override async stopUplink(): Promise<void> {
    this.stopCurrent?.();
  }

  private async playReply(pcm: Int16Array): Promise<void> {
    const abort = new AbortController();
    this.replyAbort = abort;
    let r;
    try {
      r = await this.invoke(pcm);
    } catch (e) {
      this.downlink.close(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const n = frameSamples(this.rate);
    const frameMs = (n / this.rate) * 1000;
    const t0 = monotonicMs();
    try {
      for (let k = 0; k * n < r.pcm.length; k++) {
        await sleepUntil(t0 + k * frameMs, abort.signal);
        this.downlink.push({ audio: r.pcm.slice(k * n, (k + 1) * n), transcript: k === 0 ? r.transcript : null, turnComplete: false, receivedAt: monotonicMs() });
      }
      this.downlink.push({ audio: null, transcript: r.transcript, turnComplete: true, receivedAt: monotonicMs() });
    } catch (e) {
      if (!(e instanceof AbortedError)) throw e;
      this.downlink.push({ audio: null, transcript: null, turnComplete: true, interruption: true, receivedAt: monotonicMs() });
    } finally {
      if (this.replyAbort === abort) this.replyAbort = null;
    }
  }
}
