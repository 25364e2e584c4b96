// The §L5 turn engine: presets, silence counted from the last speech frame, leading silence dropped, frame gap, completion, hard cap.
import { describe, expect, it } from "vitest";
import { AsyncQueue, collectAgentTurn, monotonicMs, resolveTurnDetection, TURN_DETECTION_PRESETS, type AgentEvent } from "../../src/index.js";

const RATE = 16000;
const FRAME = 320;
const speech = (frames: number) => Int16Array.from({ length: frames * FRAME }, (_, i) => (i % 40 < 20 ? 2000 : -2000));
const quiet = (frames: number) => Int16Array.from({ length: frames * FRAME }, (_, i) => (i % 2 ? 100 : -100));
const ev = (audio: Int16Array | null, extra: Partial<AgentEvent> = {}): AgentEvent => ({ audio, transcript: null, turnComplete: false, receivedAt: monotonicMs(), ...extra });

describe("turn detection presets", () => {
  it("has deepeval's numbers and frame-gap rule", () => {
    expect(TURN_DETECTION_PRESETS).toEqual({
      eager: { endOfTurnSilenceMs: 500, maxTurnTimeoutS: 20 },
      balanced: { endOfTurnSilenceMs: 800, maxTurnTimeoutS: 30 },
      patient: { endOfTurnSilenceMs: 2500, maxTurnTimeoutS: 120 },
    });
    expect(["eager", "balanced", "patient"].map((p) => resolveTurnDetection(p).frameGapTimeoutS)).toEqual([1.0, 1.3, 3.0]);
    expect(resolveTurnDetection().silenceThresholdRms).toBe(300);
    expect(() => resolveTurnDetection("fast")).toThrow("Invalid turn_detection 'fast'; expected 'eager', 'balanced', or 'patient'.");
  });
});

describe("collectAgentTurn", () => {
  const detection = resolveTurnDetection({ preset: "eager", maxTurnTimeoutS: 2 });

  it("drops leading silence, keeps trailing silence, ends after end-of-turn silence counted from the last speech frame", async () => {
    const q = new AsyncQueue<AgentEvent>();
    q.push(ev(quiet(10)));
    const firstSpeechAt = monotonicMs();
    q.push(ev(speech(5), { receivedAt: firstSpeechAt }));
    q.push(ev(quiet(20))); // 400 ms of pause: not the end (500 ms)
    q.push(ev(speech(3)));
    q.push(ev(quiet(30)));
    const t = await collectAgentTurn(q, { sampleRate: RATE, detection });
    expect(t.endedBy).toBe("silence");
    expect(t.firstAudioAt).toBe(firstSpeechAt);
    // 5 speech + 20 pause + 3 speech + 25 silent frames (500 ms) = 53 frames; the rest stays queued.
    expect(t.pcm.length).toBe(53 * FRAME);
    expect(q.size).toBe(0);
  });

  it("re-frames arbitrary chunk sizes into 20 ms frames", async () => {
    const q = new AsyncQueue<AgentEvent>();
    const all = new Int16Array(speech(4).length + quiet(30).length);
    all.set(speech(4));
    all.set(quiet(30), speech(4).length);
    for (let i = 0; i < all.length; i += 777) q.push(ev(all.slice(i, i + 777)));
    const t = await collectAgentTurn(q, { sampleRate: RATE, detection });
    expect(t.endedBy).toBe("silence");
    expect(t.pcm.length).toBe((4 + 25) * FRAME);
  });

  it("ends on a frame gap once the agent has spoken, on a completion event, and at the hard cap", async () => {
    const gapDetection = resolveTurnDetection({ preset: "eager", frameGapTimeoutS: 0.2, maxTurnTimeoutS: 5 });
    const q = new AsyncQueue<AgentEvent>();
    q.push(ev(speech(3)));
    const t0 = monotonicMs();
    const gap = await collectAgentTurn(q, { sampleRate: RATE, detection: gapDetection });
    expect(gap.endedBy).toBe("frame_gap");
    expect(monotonicMs() - t0).toBeGreaterThanOrEqual(190);
    expect(monotonicMs() - t0).toBeLessThan(1000);

    q.push(ev(null, { turnComplete: true })); // a completion before any speech is a response never heard
    q.push(ev(speech(2), { transcript: "hello" }));
    q.push(ev(null, { turnComplete: true }));
    const done = await collectAgentTurn(q, { sampleRate: RATE, detection });
    expect(done.endedBy).toBe("turn_complete");
    expect(done.transcript).toBe("hello");
    expect(done.pcm.length).toBe(2 * FRAME);

    const capped = resolveTurnDetection({ preset: "eager", maxTurnTimeoutS: 0.3 });
    const t1 = monotonicMs();
    const silent = await collectAgentTurn(new AsyncQueue<AgentEvent>(), { sampleRate: RATE, detection: capped });
    expect(silent.endedBy).toBe("max_turn_timeout");
    expect(silent.firstAudioAt).toBeNull();
    expect(monotonicMs() - t1).toBeLessThan(1000);
  });

  it("believes a completion over a pause when asked (duplex with a signalling transport)", async () => {
    const q = new AsyncQueue<AgentEvent>();
    q.push(ev(speech(2)));
    q.push(ev(quiet(40)));
    q.push(ev(speech(2)));
    q.push(ev(null, { turnComplete: true }));
    const t = await collectAgentTurn(q, { sampleRate: RATE, detection, believeTurnComplete: true });
    expect(t.endedBy).toBe("turn_complete");
    expect(t.pcm.length).toBe(44 * FRAME);
  });

  it("reports a closed downlink with its error, and a cancelled wait", async () => {
    const q = new AsyncQueue<AgentEvent>();
    q.push(ev(speech(1)));
    q.close(new Error("bye"));
    const t = await collectAgentTurn(q, { sampleRate: RATE, detection });
    expect(t.endedBy).toBe("closed");
    expect(t.error?.message).toBe("bye");
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const c = await collectAgentTurn(new AsyncQueue<AgentEvent>(), { sampleRate: RATE, detection, capFrom: "speech", signal: abort.signal });
    expect(c.endedBy).toBe("cancelled");
  });
});
