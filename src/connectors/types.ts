// Transport records of voice-metrics.md §L4 (ConnectorTurn, AgentEvent) and the connector contract of §L3.
import type { Audio } from "../model/audio.js";
import type { ResamplerKind } from "../audio/resample.js";
import type { VoiceProtocol } from "./protocol.js";
import type { AsyncQueue } from "./queue.js";
import type { TurnDetection } from "./turn-detection.js";

/** What a connector returns for one half-duplex exchange (not a test-case Turn). */
export interface ConnectorTurn {
  /** The agent's reply. */
  audio: Audio;
  /** When set it becomes the turn's content and no STT runs. */
  transcript?: string | null;
  /** User audio sent → first agent audio, in the connector's meaning (§L8). */
  latency_ms?: number | null;
  /** True when the caller barged in (duplex only). */
  interrupted?: boolean;
  /** Monotonic ms: first uplink frame sent. */
  input_audio_started_at?: number | null;
  /** Monotonic ms: end of the caller's clip (without the trailing-silence pad). */
  input_audio_ended_at?: number | null;
  /** Monotonic ms: first non-silent agent audio received. */
  audio_started_at?: number | null;
  /** How the engine ended the agent's turn, and other capture facts (kept in turn metadata). */
  capture?: AgentTurnCapture;
}

/** Capture facts of an agent turn beyond §L4. */
export interface AgentTurnCapture {
  endedBy: TurnEndCause;
  /** Monotonic ms when the engine read the first speech frame (deepeval's latency end point). */
  firstAudioReadAt: number | null;
  /** Monotonic ms when the paced uplink including its trailing silence ended. */
  uplinkEndedAt: number | null;
  /** The error that closed the downlink, if any. */
  error?: Error | null;
  /** Lateness of each uplink frame against its absolute schedule, in ms. */
  uplinkFrameLatenessMs?: number[];
}

/** One thing the agent sent, as the turn engine reads it. */
export interface AgentEvent {
  /** PCM16 mono samples at the connector's `recvSampleRate`, or null. */
  audio: Int16Array | null;
  /** Latest partial or full transcript of the agent's current turn (not a delta), or null. */
  transcript: string | null;
  /** The transport says the agent's turn is over. */
  turnComplete: boolean;
  /** Monotonic ms when it was received. */
  receivedAt: number;
  /** The agent reports it stopped because the caller interrupted it (realtime `speech_started`, ElevenLabs `interruption`). */
  interruption?: boolean;
}

/** Why the turn engine ended an agent turn. */
export type TurnEndCause = "silence" | "frame_gap" | "turn_complete" | "max_turn_timeout" | "closed" | "cancelled";

/** The result of streaming one caller clip. */
export interface UplinkResult {
  /** The PCM actually sent, at the connector's send rate, without the trailing-silence pad. */
  pcm: Int16Array;
  sampleRate: number;
  /** Monotonic ms the first frame was sent. */
  firstFrameAt: number;
  /** Monotonic ms the paced clip ended (first frame + clip duration), pad excluded. */
  clipEndedAt: number;
  /** Monotonic ms the paced uplink ended, pad included. */
  endedAt: number;
  /** True when stopUplink() cut it short. */
  stopped: boolean;
  /** Lateness of each frame against its absolute schedule, in ms. */
  frameLatenessMs: number[];
}

/** PCM audio at a known rate: what connectors accept besides an Audio record. */
export interface Pcm {
  pcm: Int16Array;
  sampleRate: number;
}

/** The audio a connector sends (§L3 `audio_format`). */
export interface AudioFormat {
  sampleRate: number;
  encoding: "pcm16" | "mulaw";
}

/** Options of sending caller audio to the agent (pacing, trailing silence, cancellation). */
export interface UplinkOptions {
  /**
   * Append the connector's trailing silence so the agent's VAD fires.
   * @defaultValue true
   */
  trailingSilence?: boolean;
  /** Called with the monotonic ms of the first frame, as soon as it is sent. */
  onFirstFrame?: (atMs: number) => void;
}

/** The connector contract (§L3): half-duplex `exchangeTurn`, duplex `streamUplink` + `agentEvents`. */
export interface VoiceConnector extends AsyncDisposable {
  readonly protocol: VoiceProtocol;
  readonly audioFormat: AudioFormat;
  /** Rate of the agent's PCM in `AgentEvent.audio`. */
  readonly recvSampleRate: number;
  /** True when the transport reports the end of the agent's turn. */
  readonly signalsTurnComplete: boolean;
  readonly turnDetection: TurnDetection;
  /** Zeros appended to each caller turn so a server VAD fires, in ms (0 = none). */
  readonly trailingSilenceMs: number;
  /** The resampler that converts to and from the connector's rates. */
  readonly resampler: ResamplerKind;
  connect(): Promise<void>;
  /** Half-duplex: play the caller's audio, wait for the reply, measure timing. */
  exchangeTurn(audio: Audio | Pcm): Promise<ConnectorTurn>;
  disconnect(): Promise<void>;
  readonly supportsDuplex: boolean;
  /** Duplex: stream the caller's audio in paced 20 ms frames. */
  streamUplink(audio: Audio | Pcm, options?: UplinkOptions): Promise<UplinkResult>;
  /** Duplex: cut the uplink in progress. */
  stopUplink(): Promise<void>;
  /**
   * The agent's events as they arrive (iterable, or read with deadlines); closed when the connection
   * ends, with the error that ended it (null when we disconnected).
   */
  agentEvents(): AsyncQueue<AgentEvent>;
  /** Discard agent audio already queued. */
  drainDownlink(): void;
  /** The caller's words as the agent transcribed them, when its protocol says (realtime, ElevenLabs). */
  readonly callerTranscripts?: readonly string[];
  /** Non-fatal errors the agent reported (realtime `error` events, unusable audio formats). */
  readonly agentErrors?: readonly string[];
}
