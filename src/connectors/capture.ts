// A captured call (what happened, on the host's monotonic clock) and its deepeval test case: sample-grid start times, §L8 latencies, end_reason.
import { resampleWith, type ResamplerKind } from "../audio/resample.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { detectSpeech } from "../analysis/acoustics.js";
import { percentile } from "../analysis/percentile.js";
import { Audio } from "../model/audio.js";
import { createTestCase, type ConversationalTestCase, type Turn } from "../model/test-case.js";
import type { VoiceProtocol } from "./protocol.js";
import type { TurnDetection } from "./turn-detection.js";
import type { TurnEndCause } from "./types.js";

/** end_reason values Agent Responsiveness recognises (voice-metrics.md §5.5). */
export type EndReason = "agent_hangup" | "error" | "idle_timeout";

/**
 * Why a simulated caller ended the call (not failures of the agent, so Agent Responsiveness does
 * not count them): it said its sign-off, used its turns, waited on hold too long, reached the
 * expected outcome, or its model (TTS, STT, chat) failed.
 */
export type SimulationEndReason = "caller_sign_off" | "max_turns" | "hold_timeout" | "expected_outcome" | "caller_model_error";

/** A caller turn as captured: its text, audio and timing on the call clock. */
export interface CallerTurnRecord {
  role: "user";
  /** The audio actually spoken, at `sampleRate`, without the trailing-silence pad. */
  pcm: Int16Array;
  sampleRate: number;
  /** Monotonic ms the first uplink frame was sent. */
  startedAt: number;
  /** Monotonic ms the paced uplink ended, pad included. */
  uplinkEndedAt: number;
  /** The words (script text), or null for a recorded clip without text. */
  text: string | null;
  /** Where the audio came from: `tts:<model>` or the clip's path. */
  source: string;
  pauseBeforeS: number;
  /** The caller started over the agent (a scripted barge-in). */
  bargeIn: boolean;
  /** For a barge-in: whether the agent stopped within the grace period. */
  bargeInHonoured?: boolean;
  trailingSilenceMs: number;
  frameLatenessMs: number[];
  /** The uplink was cut short by stopUplink(). */
  stopped?: boolean;
  /** More turn metadata (simulated callers: barge-in outcome, agent-side transcript). */
  metadata?: Record<string, unknown>;
}

/** An agent turn as captured: its audio, transcript, timing and latencies on the call clock. */
export interface AgentTurnRecord {
  role: "assistant";
  pcm: Int16Array;
  sampleRate: number;
  /** Monotonic ms the first speech frame arrived (null: no audio). */
  startedAt: number | null;
  /** Monotonic ms the engine read it. */
  readAt: number | null;
  transcript: string | null;
  /** latency_ms in the connector's §L8 meaning. */
  latencyMs: number | null;
  endedBy: TurnEndCause;
  /** Cut by a successful barge-in. */
  interrupted: boolean;
  /** The agent announced an interruption (realtime speech_started/truncated, ElevenLabs interruption). */
  interruptionSignalled?: boolean;
  /** The turn's content when it is not the connector transcript (STT of the audio, or what the caller heard). */
  content?: string | null;
  /** More turn metadata (simulated callers: intended_content, stt_transcript). */
  metadata?: Record<string, unknown>;
}

/** One captured turn, caller or agent. */
export type CapturedTurn = CallerTurnRecord | AgentTurnRecord;

/** Everything `voxmetrics call` knows about one call. */
export interface CallRecord {
  name: string;
  protocol: VoiceProtocol;
  /** Connector kind and its non-secret settings (url without query, header names). */
  connector: Record<string, unknown>;
  mode: "half-duplex" | "duplex";
  turnDetection: TurnDetection;
  /** How the deepeval `latency_ms` of this connector is measured (§L8). */
  latencyMeaning: string;
  /** Monotonic ms: connect() called and returned. */
  connectStartedAt: number;
  connectedAt: number | null;
  endedAt: number;
  turns: CapturedTurn[];
  endReason: EndReason | SimulationEndReason | null;
  error: { code: string; message: string } | null;
  warnings: string[];
  /** The caller's words as the agent transcribed them, when it said. */
  callerTranscripts: string[];
  scenario?: string | null;
  expectedOutcome?: string | null;
  /** The simulated caller's persona characteristics (deepeval's user_description). */
  userDescription?: string | null;
  /** More call metadata (simulated callers: persona, policy, costs, floor events). */
  metadata?: Record<string, unknown>;
}

/** The engine's speech activity (acoustics VAD) on a clip: the end of its last speech segment, in seconds, or null. */
export function speechEndSeconds(pcm: Int16Array, sampleRate: number): number | null {
  if (pcm.length === 0) return null;
  const f = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) f[i] = pcm[i] / 32768;
  const segments = detectSpeech(f, sampleRate);
  return segments.length ? Math.min(segments[segments.length - 1][1], pcm.length / sampleRate) : null;
}

/** One clip of the built test case, at the capture rate, placed on the sample grid. */
export interface CapturedClip {
  turnIndex: number;
  role: "user" | "assistant";
  pcm: Int16Array;
  /** Offset from the call-clock origin in samples (start_time = startSample / rate). */
  startSample: number;
}

/** A call captured in memory: the deepeval test case and the rendered audio files, before writing. */
export interface BuiltCapture {
  testCase: ConversationalTestCase;
  /** Clips in turn order (turns without audio have none). */
  clips: CapturedClip[];
  sampleRate: number;
  /** Monotonic ms of call-clock zero. */
  originAt: number;
}

/** Options of buildCapture: where and how the captured call is rendered. */
export interface BuildCaptureOptions {
  /** Rate every stored clip shares (so the combined render holds each clip sample for sample). */
  sampleRate?: number;
  /**
   * Resampler for clips at another rate.
   * @defaultValue "band-limited"
   */
  resampler?: ResamplerKind;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The call as a deepeval test case. Call-clock zero is the first audio of the call (the first
 * uplink frame, or the agent's first audio if it spoke first), and every start_time is a whole
 * number of samples at the capture rate: the §F2.4 render drops time before its first clip and
 * places clips on that grid, so start times recovered from it equal these exactly.
 */
export function buildCapture(call: CallRecord, options: BuildCaptureOptions = {}): BuiltCapture {
  const rate = options.sampleRate ?? Math.max(...call.turns.map((t) => t.sampleRate), 8000);
  const resampler = options.resampler ?? "band-limited";
  const starts = call.turns.map((t) => (t.pcm.length > 0 ? t.startedAt : null)).filter((s): s is number => s !== null);
  const originAt = starts.length ? Math.min(...starts) : (call.connectedAt ?? call.connectStartedAt);
  const turns: Turn[] = [];
  const clips: CapturedClip[] = [];
  let lastUser: CallerTurnRecord | null = null;
  let lastUserSpeechEndAt: number | null = null;
  call.turns.forEach((t, i) => {
    const pcm = t.sampleRate === rate ? t.pcm : resampleWith(resampler, t.pcm, t.sampleRate, rate);
    let audio: Audio | null = null;
    if (pcm.length > 0 && t.startedAt !== null) {
      const startSample = Math.max(0, Math.round(((t.startedAt - originAt) * rate) / 1000));
      audio = Audio.fromBytes(writeWavPcm16(pcm, rate), "audio/wav", { sampleRate: rate, encoding: "wav", duration: pcm.length / rate, start_time: startSample / rate });
      clips.push({ turnIndex: i, role: t.role, pcm, startSample });
    }
    if (t.role === "user") {
      const speechEnd = speechEndSeconds(t.pcm, t.sampleRate);
      lastUser = t;
      lastUserSpeechEndAt = speechEnd === null ? null : t.startedAt + speechEnd * 1000;
      turns.push({
        role: "user",
        content: t.text ?? "",
        audio,
        metadata: {
          source: t.source,
          first_frame_at_s: round3((t.startedAt - originAt) / 1000),
          speech_end_s: speechEnd === null ? null : round3(speechEnd),
          pause_before_s: t.pauseBeforeS,
          trailing_silence_ms: t.trailingSilenceMs,
          uplink_frames: t.frameLatenessMs.length,
          uplink_frame_lateness_p99_ms: round3(percentile([...t.frameLatenessMs].sort((a, b) => a - b), 99) ?? 0),
          ...(t.bargeIn ? { barge_in: true, barge_in_honoured: t.bargeInHonoured ?? false } : {}),
          ...(t.stopped ? { uplink_stopped: true } : {}),
          ...t.metadata,
        },
      });
    } else {
      const u = lastUser as CallerTurnRecord | null;
      const perceived = t.startedAt !== null && lastUserSpeechEndAt !== null ? round3(t.startedAt - lastUserSpeechEndAt) : null;
      turns.push({
        role: "assistant",
        content: t.content ?? t.transcript ?? "",
        audio,
        latency_ms: t.latencyMs === null ? null : round3(t.latencyMs),
        interrupted: t.interrupted ? true : null,
        metadata: {
          user_perceived_latency_ms: perceived,
          first_audio_arrival_s: t.startedAt === null ? null : round3((t.startedAt - originAt) / 1000),
          first_audio_read_s: t.readAt === null ? null : round3((t.readAt - originAt) / 1000),
          latency_from_caller_clip_end_ms: t.startedAt !== null && u ? round3(t.startedAt - (u.startedAt + (u.pcm.length / u.sampleRate) * 1000)) : null,
          end_of_turn: t.endedBy,
          transcript_source: t.transcript !== null ? "connector" : null,
          ...(t.interruptionSignalled ? { interruption_signalled: true } : {}),
          ...t.metadata,
        },
      });
    }
  });
  const metadata: Record<string, unknown> = {
    source_format: "voxmetrics-call",
    protocol: call.protocol,
    connector: call.connector,
    mode: call.mode,
    turn_detection: call.turnDetection,
    latency_ms_meaning: call.latencyMeaning,
    call_clock: "start_time 0 = the call's first audio (first uplink frame or first agent audio), on the sample grid of the clips",
    connect_ms: call.connectedAt === null ? null : round3(call.connectedAt - call.connectStartedAt),
    connected_to_first_audio_ms: call.connectedAt === null ? null : round3(originAt - call.connectedAt),
    duration_s: round3((call.endedAt - originAt) / 1000),
  };
  if (call.endReason) metadata.end_reason = call.endReason;
  if (call.error) metadata.error = call.error;
  if (call.warnings.length) metadata.warnings = call.warnings;
  if (call.callerTranscripts.length) metadata.caller_transcripts = call.callerTranscripts;
  if (call.metadata) Object.assign(metadata, call.metadata);
  const testCase = createTestCase({ name: call.name, turns, metadata, scenario: call.scenario ?? null, expected_outcome: call.expectedOutcome ?? null, user_description: call.userDescription ?? null });
  return { testCase, clips, sampleRate: rate, originAt };
}
