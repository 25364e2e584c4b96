// The duplex downlink read as agent turns while they happen (turn engine), shared by scripted and simulated duplex calls.
import { monotonicMs } from "../connectors/clock.js";
import { collectAgentTurn, type CollectedAgentTurn, type TurnProgress } from "../connectors/turn-engine.js";
import type { VoiceConnector } from "../connectors/types.js";
import type { AgentTurnRecord, CallRecord, CallerTurnRecord } from "../connectors/capture.js";

/** What the segmenter knows of every agent turn; a caller's turn type adds its own fields. */
export interface SegmentedTurn {
  /** Monotonic ms of the turn's first speech frame. */
  firstAudioAt: number;
  /** Resolves when the turn ends. */
  done: Promise<CollectedAgentTurn>;
  /** The ended turn (set just before `done` resolves); null while it lasts. */
  result: CollectedAgentTurn | null;
}

/**
 * Segments a duplex connector's downlink into agent turns with the turn engine, as they happen.
 * `makeTurn` builds each turn when its first speech frame is read; `onProgress`, when given, sees
 * what is kept of the turn after each event (a listening caller).
 */
export class DownlinkSegmenter<T extends SegmentedTurn> {
  readonly turns: T[] = [];
  /** Set when the downlink closed or was stopped. */
  final: CollectedAgentTurn | null = null;
  private readonly stop = new AbortController();
  private wake = new Set<() => void>();
  readonly running: Promise<void>;

  constructor(
    private readonly connector: VoiceConnector,
    private readonly makeTurn: (firstAudioAt: number, done: Promise<CollectedAgentTurn>) => T,
    private readonly onProgress: ((turn: T, progress: TurnProgress) => void) | null = null,
  ) {
    this.running = this.loop();
  }

  private notify(): void {
    for (const w of this.wake) w();
  }

  private async loop(): Promise<void> {
    const queue = this.connector.agentEvents();
    const onProgress = this.onProgress;
    for (;;) {
      let resolveDone!: (t: CollectedAgentTurn) => void;
      const done = new Promise<CollectedAgentTurn>((r) => (resolveDone = r));
      let live: T | null = null;
      const t = await collectAgentTurn(queue, {
        sampleRate: this.connector.recvSampleRate,
        detection: this.connector.turnDetection,
        capFrom: "speech",
        believeTurnComplete: this.connector.signalsTurnComplete,
        signal: this.stop.signal,
        onSpeechStart: (at) => {
          live = this.makeTurn(at, done);
          this.turns.push(live);
          this.notify();
        },
        onProgress: onProgress
          ? (p) => {
              if (live) onProgress(live, p);
            }
          : undefined,
      });
      if (live) {
        (live as T).result = t;
        resolveDone(t);
      }
      if (t.endedBy === "closed" || t.endedBy === "cancelled") {
        this.final = t;
        this.notify();
        return;
      }
      this.notify();
    }
  }

  /** The first agent turn that started after `afterAt`, or null once `deadline` passes or the downlink ends. */
  async turnAfter(afterAt: number, deadline: number): Promise<T | null> {
    for (;;) {
      const found = this.turns.find((t) => t.firstAudioAt > afterAt);
      if (found) return found;
      if (this.final || monotonicMs() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const w = () => {
          clearTimeout(timer);
          this.wake.delete(w);
          resolve();
        };
        const timer = setTimeout(w, Math.max(0, deadline - monotonicMs()));
        this.wake.add(w);
      });
    }
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
  }
}

/**
 * An ended agent turn as a duplex call records it, with its §L8 duplex latency: from the end of the
 * last caller clip that started before it to its first audio (null when no caller turn came first).
 */
export function duplexAgentTurn(
  a: SegmentedTurn,
  t: CollectedAgentTurn,
  callers: readonly CallerTurnRecord[],
  interrupted: boolean,
  more: Pick<AgentTurnRecord, "content" | "metadata"> | null = null,
): AgentTurnRecord {
  const answered = [...callers].reverse().find((c) => c.startedAt < a.firstAudioAt) ?? null;
  return {
    role: "assistant",
    pcm: t.pcm,
    sampleRate: t.sampleRate,
    startedAt: a.firstAudioAt,
    readAt: t.firstAudioReadAt,
    transcript: t.transcript,
    latencyMs: answered ? a.firstAudioAt - (answered.startedAt + (answered.pcm.length / answered.sampleRate) * 1000) : null,
    endedBy: t.endedBy,
    interrupted,
    interruptionSignalled: t.interruptionSignalled,
    ...more,
  };
}

/** Append caller and agent turns to the record in call order (a caller turn first on a tie). */
export function pushInCallOrder(record: CallRecord, callers: readonly CallerTurnRecord[], agents: readonly AgentTurnRecord[]): void {
  const all = [...callers, ...agents];
  all.sort((x, y) => x.startedAt! - y.startedAt! || (x.role === "user" ? -1 : 1));
  record.turns.push(...all);
}
