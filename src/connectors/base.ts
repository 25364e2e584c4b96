// The connector base class: protocol declaration check, option resolution, the downlink queue, absolute-schedule uplink pacing, async disposal.
import type { ResamplerKind } from "../audio/resample.js";
import type { Audio } from "../model/audio.js";
import { monotonicMs, sleepUntil, AbortedError } from "./clock.js";
import { ConnectorError } from "./errors.js";
import { FRAME_MS, frameSamples } from "./frames.js";
import { pcmAt } from "./pcm-input.js";
import { isVoiceProtocol, type VoiceProtocol } from "./protocol.js";
import { AsyncQueue } from "./queue.js";
import { resolveTurnDetection, type TurnDetection, type TurnDetectionOptions, type TurnDetectionPreset } from "./turn-detection.js";
import type { AgentEvent, AudioFormat, ConnectorTurn, Pcm, UplinkOptions, UplinkResult, VoiceConnector } from "./types.js";

/** Options every connector takes. */
export interface BaseConnectorOptions {
  /**
   * Turn detection preset or overrides (§L5).
   * @defaultValue "balanced"
   */
  turnDetection?: TurnDetectionPreset | TurnDetectionOptions;
  /**
   * Resampler between the caller audio's rate and the connector's: deepeval's linear one (§L10) or band-limited.
   * @defaultValue "linear"
   */
  resampler?: ResamplerKind;
}

/** Defaults shared by every connector. */
export const DEFAULT_BASE_CONNECTOR_OPTIONS: Readonly<Required<BaseConnectorOptions>> = Object.freeze({
  turnDetection: "balanced",
  resampler: "linear",
});

/** Base of the connectors: connection lifecycle, the uplink/downlink queues and `await using` support; transports implement the wire. */
export abstract class BaseConnector implements VoiceConnector {
  /** The protocol family (§L1); every concrete connector must declare it. */
  abstract get protocol(): VoiceProtocol;
  abstract get audioFormat(): AudioFormat;
  abstract get recvSampleRate(): number;
  abstract connect(): Promise<void>;
  abstract disconnect(): Promise<void>;
  abstract exchangeTurn(audio: Audio | Pcm): Promise<ConnectorTurn>;

  readonly turnDetection: TurnDetection;
  readonly resampler: ResamplerKind;
  protected downlink = new AsyncQueue<AgentEvent>();
  private uplinkAbort: AbortController | null = null;

  constructor(options: BaseConnectorOptions = {}) {
    // The protocol getter lives on the subclass prototype, so it is readable here (deepeval rejects
    // a connector class without one when it is defined; we do it when one is built).
    const declared = (this as VoiceConnector).protocol;
    if (!isVoiceProtocol(declared)) {
      throw new TypeError(`${new.target.name} must declare its VoiceProtocol (webrtc, websocket, sip or callback), got ${String(declared)}`);
    }
    this.turnDetection = resolveTurnDetection(options.turnDetection ?? DEFAULT_BASE_CONNECTOR_OPTIONS.turnDetection);
    this.resampler = options.resampler ?? DEFAULT_BASE_CONNECTOR_OPTIONS.resampler;
    if (this.resampler !== "linear" && this.resampler !== "band-limited") {
      throw new ConnectorError("INVALID_OPTION", `resampler must be "linear" or "band-limited", got ${String(this.resampler)}`);
    }
  }

  get signalsTurnComplete(): boolean {
    return false;
  }

  get supportsDuplex(): boolean {
    return false;
  }

  /** Trailing silence appended to each caller turn so a server VAD fires, in ms (0 = none). */
  get trailingSilenceMs(): number {
    return 0;
  }

  agentEvents(): AsyncQueue<AgentEvent> {
    return this.downlink;
  }

  drainDownlink(): void {
    this.downlink.drain();
  }

  streamUplink(_audio: Audio | Pcm, _options?: UplinkOptions): Promise<UplinkResult> {
    return Promise.reject(new ConnectorError("NOT_SUPPORTED", `${this.constructor.name} has no duplex uplink`));
  }

  async stopUplink(): Promise<void> {
    this.uplinkAbort?.abort();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /** Caller audio as mono int16 at the send rate. */
  protected uplinkPcm(audio: Audio | Pcm): Int16Array {
    return pcmAt(audio, this.audioFormat.sampleRate, this.resampler);
  }

  /**
   * Send `pcm` (then `padMs` of zeros) in 20 ms frames, frame k at t0 + k·20 ms on the monotonic
   * clock, where t0 is when the first frame goes out. `send` must not block.
   */
  protected async paceUplink(pcm: Int16Array, padMs: number, send: (frame: Int16Array) => void, options: UplinkOptions = {}): Promise<UplinkResult> {
    const rate = this.audioFormat.sampleRate;
    const n = frameSamples(rate);
    const clipFrames = Math.ceil(pcm.length / n);
    const padFrames = Math.round(padMs / FRAME_MS);
    const frameMs = (n / rate) * 1000;
    const abort = new AbortController();
    this.uplinkAbort = abort;
    const lateness: number[] = [];
    const zero = new Int16Array(n);
    const t0 = monotonicMs();
    let sent = 0;
    let stopped = false;
    try {
      for (let k = 0; k < clipFrames + padFrames; k++) {
        const due = t0 + k * frameMs;
        if (k > 0) await sleepUntil(due, abort.signal);
        lateness.push(monotonicMs() - due);
        let frame: Int16Array;
        if (k < clipFrames) {
          frame = pcm.subarray(k * n, (k + 1) * n);
          if (frame.length < n) {
            const last = new Int16Array(n);
            last.set(frame);
            frame = last;
          }
        } else frame = zero;
        send(frame);
        sent = k + 1;
        if (k === 0) options.onFirstFrame?.(t0);
      }
      // The uplink ends when its last frame has played out, on the same schedule.
      await sleepUntil(t0 + (clipFrames + padFrames) * frameMs, abort.signal);
    } catch (e) {
      if (!(e instanceof AbortedError)) throw e;
      stopped = true;
    } finally {
      if (this.uplinkAbort === abort) this.uplinkAbort = null;
    }
    const sentClip = Math.min(sent, clipFrames);
    return {
      pcm: stopped ? pcm.subarray(0, Math.min(pcm.length, sentClip * n)) : pcm,
      sampleRate: rate,
      firstFrameAt: t0,
      clipEndedAt: t0 + (stopped ? sentClip * frameMs : (pcm.length / rate) * 1000),
      endedAt: stopped ? monotonicMs() : t0 + (clipFrames + padFrames) * frameMs,
      stopped,
      frameLatenessMs: lateness,
    };
  }
}
