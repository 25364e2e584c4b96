// The turn engine of voice-metrics.md §L5: reads agent events until the agent's turn ends (silence, frame gap, completion event, hard cap).
import { concatPcm, frameRms, frameSamples } from "./frames.js";
import { monotonicMs } from "./clock.js";
import type { AsyncQueue } from "./queue.js";
import type { TurnDetection } from "./turn-detection.js";
import type { AgentEvent, TurnEndCause } from "./types.js";

/** Options of collectAgentTurn: turn detection, deadlines and cancellation. */
export interface CollectOptions {
  /** Rate of the agent's PCM. */
  sampleRate: number;
  detection: TurnDetection;
  /** Monotonic ms the wait started (the hard cap counts from here when `capFrom` is "start"). */
  startedAt?: number;
  /**
   * "start": the whole turn must end within the hard cap of `startedAt` (deepeval's half-duplex).
   * "speech": wait for speech without limit (until `signal`), then the turn must end within the cap
   * of its first audio (duplex, where the agent may rightly be silent while the caller thinks).
   * @defaultValue "start"
   */
  capFrom?: "start" | "speech";
  /**
   * End only on a completion event (or the hard cap, or the connection closing): pauses and frame
   * gaps do not end the turn. deepeval believes transports that signal completion in duplex runs.
   * @defaultValue false
   */
  believeTurnComplete?: boolean;
  /** Stops the wait; the turn ends as "cancelled" with what it has. */
  signal?: AbortSignal;
  /** Called once, when the first speech frame is read. */
  onSpeechStart?: (firstAudioAt: number) => void;
  /** Called after each event once the turn has started: what is kept so far (a duplex caller listens while the agent talks). */
  onProgress?: (progress: TurnProgress) => void;
}

/** An agent turn in progress. */
export interface TurnProgress {
  /** Samples kept so far. */
  samples: number;
  /** Monotonic ms the last speech (non-silent) frame was received. */
  lastSpeechAt: number;
  /** Latest transcript, or null. */
  transcript: string | null;
  /** The PCM kept so far (concatenated on demand). */
  pcm: () => Int16Array;
}

/** An agent turn as the turn engine collected it: audio, transcript, timing and why it ended. */
export interface CollectedAgentTurn {
  /** Agent PCM from the first speech frame on, trailing silence included. */
  pcm: Int16Array;
  sampleRate: number;
  /** Monotonic ms the first speech frame was received (null = the agent never spoke). */
  firstAudioAt: number | null;
  /** Monotonic ms the engine read it (≥ firstAudioAt when frames were queued). */
  firstAudioReadAt: number | null;
  /** Monotonic ms the last frame was received. */
  lastFrameAt: number | null;
  transcript: string | null;
  endedBy: TurnEndCause;
  endedAt: number;
  /** The agent said it stopped because it was interrupted. */
  interruptionSignalled: boolean;
  /** The error that closed the downlink, if it closed with one. */
  error: Error | null;
}

/**
 * Collect one agent turn (deepeval's `collect_agent_turn`): leading silent frames are dropped, the
 * first speech frame starts the turn, every later frame is kept; a completion event ends a turn
 * that has started. Silence is counted in audio time
 * since the last speech frame (not cumulative); the frame gap in wall time since the last frame.
 */
export async function collectAgentTurn(queue: AsyncQueue<AgentEvent>, options: CollectOptions): Promise<CollectedAgentTurn> {
  const { sampleRate, detection } = options;
  const startedAt = options.startedAt ?? monotonicMs();
  const capMs = detection.maxTurnTimeoutS * 1000;
  const gapMs = detection.frameGapTimeoutS * 1000;
  const believe = options.believeTurnComplete ?? false;
  const capFromSpeech = options.capFrom === "speech";
  const frameN = frameSamples(sampleRate);
  const frameMs = (frameN / sampleRate) * 1000;
  let deadline = capFromSpeech ? Infinity : startedAt + capMs;

  const parts: Int16Array[] = [];
  let carry = new Int16Array(0);
  let firstAudioAt: number | null = null;
  let firstAudioReadAt: number | null = null;
  let lastFrameAt: number | null = null;
  let silenceMs = 0;
  let transcript: string | null = null;
  let interruptionSignalled = false;
  let lastSpeechAt = 0;
  let keptSamples = 0;

  const done = (endedBy: TurnEndCause, error: Error | null = null): CollectedAgentTurn => ({
    pcm: concatPcm(parts),
    sampleRate,
    firstAudioAt,
    firstAudioReadAt,
    lastFrameAt,
    transcript,
    endedBy,
    endedAt: monotonicMs(),
    interruptionSignalled,
    error,
  });

  for (;;) {
    const now = monotonicMs();
    if (now >= deadline) return done("max_turn_timeout");
    let wait = deadline - now;
    if (firstAudioAt !== null && !believe) wait = Math.min(wait, Math.max(0, lastFrameAt! + gapMs - now));
    const r = await queue.next(wait, options.signal);
    if (r.kind === "timeout") {
      if (options.signal?.aborted) return done("cancelled");
      const t = monotonicMs();
      if (firstAudioAt !== null && !believe && t >= lastFrameAt! + gapMs) return done("frame_gap");
      continue;
    }
    if (r.kind === "closed") return done("closed", r.error);
    const ev = r.item;
    if (ev.transcript !== null) transcript = ev.transcript;
    if (ev.interruption) interruptionSignalled = true;
    if (ev.audio && ev.audio.length > 0) {
      if (firstAudioAt !== null) lastFrameAt = ev.receivedAt;
      let samples = ev.audio;
      if (carry.length > 0) samples = concatPcm([carry, samples]);
      const whole = samples.length - (samples.length % frameN);
      carry = samples.slice(whole);
      for (let i = 0; i < whole; i += frameN) {
        const frame = samples.subarray(i, i + frameN);
        const silent = frameRms(frame) < detection.silenceThresholdRms;
        if (firstAudioAt === null) {
          if (silent) continue;
          firstAudioAt = ev.receivedAt;
          firstAudioReadAt = monotonicMs();
          lastFrameAt = ev.receivedAt;
          if (capFromSpeech) deadline = firstAudioAt + capMs;
          options.onSpeechStart?.(firstAudioAt);
        }
        parts.push(frame.slice());
        keptSamples += frame.length;
        if (silent) silenceMs += frameMs;
        else {
          silenceMs = 0;
          lastSpeechAt = ev.receivedAt;
        }
        if (!believe && silenceMs >= detection.endOfTurnSilenceMs) return done("silence");
      }
    }
    if (firstAudioAt !== null && options.onProgress) options.onProgress({ samples: keptSamples, lastSpeechAt, transcript, pcm: () => concatPcm(parts) });
    // A completion before any speech closes a response we never heard (cancelled, or text only):
    // the turn we wait for has not started, so it does not end here.
    if (ev.turnComplete && firstAudioAt !== null) {
      if (carry.length > 0) parts.push(carry);
      return done("turn_complete");
    }
  }
}
