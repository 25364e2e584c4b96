// Duplex "how well the agent heard": the spoken prefix of a caller turn cut short, and which caller turns each of the agent's transcriptions belongs to.
import { describe, expect, it } from "vitest";
import { attachAgentHeard, speechSpan, spokenPrefix } from "../../src/simulator/agent-heard.js";
import type { CallerTurnRecord } from "../../src/connectors/capture.js";

const RATE = 1000;
/** 100 samples of silence, `speech` samples of a loud tone, 100 of silence. */
function clip(speech: number): Int16Array {
  const pcm = new Int16Array(200 + speech);
  for (let i = 0; i < speech; i++) pcm[100 + i] = i % 2 ? 8000 : -8000;
  return pcm;
}

function turn(text: string, startedAt: number): CallerTurnRecord {
  return { role: "user", pcm: new Int16Array(0), sampleRate: RATE, startedAt, uplinkEndedAt: startedAt, text, source: "tts:x", pauseBeforeS: 0, bargeIn: false, trailingSilenceMs: 0, frameLatenessMs: [], metadata: {} };
}

describe("spokenPrefix", () => {
  it("finds the speech span of a clip (10 ms frames, −20 dB of the loudest)", () => {
    expect(speechSpan(clip(1000), RATE)).toEqual({ start: 100, end: 1100 });
    expect(speechSpan(new Int16Array(50), RATE)).toBeNull();
  });

  it("keeps the words whose middle lies before the cut, spreading the speech over the characters", () => {
    // "aaaa bbbb cccc dddd": 19 characters over samples 100–1100; word middles at 2/19, 7/19, 12/19, 17/19.
    const text = "aaaa bbbb cccc dddd";
    const full = clip(1000);
    expect(spokenPrefix(text, full, full.length, RATE)).toEqual({ text, fraction: 1 });
    expect(spokenPrefix(text, full, 50, RATE)).toEqual({ text: "", fraction: 0 });
    expect(spokenPrefix(text, full, 100 + 100, RATE)).toEqual({ text: "", fraction: 0.1 }); // 2/19 = 0.105…
    expect(spokenPrefix(text, full, 100 + 110, RATE)).toEqual({ text: "aaaa", fraction: 0.11 });
    expect(spokenPrefix(text, full, 100 + 368, RATE).text).toBe("aaaa"); // 7/19 = 0.3684…
    expect(spokenPrefix(text, full, 100 + 369, RATE).text).toBe("aaaa bbbb");
    expect(spokenPrefix(text, full, 100 + 900, RATE).text).toBe("aaaa bbbb cccc dddd");
    expect(spokenPrefix("", full, 300, RATE).text).toBe("");
  });
});

describe("attachAgentHeard", () => {
  it("one transcription per turn lands on that turn", () => {
    const a = turn("Where is my order?", 0);
    const b = turn("Can you check again?", 5000);
    attachAgentHeard([a, b], [{ at: 3000, text: "where is my order" }, { at: 8000, text: "can you check a gain" }], new Map());
    expect(a.metadata).toEqual({ agent_transcript: "where is my order" });
    expect(b.metadata).toEqual({ agent_transcript: "can you check a gain" });
  });

  it("turns heard as one utterance form a group on the last of them; a cut turn's reference is its spoken prefix", () => {
    const barge = turn("No wait, I need to tell you something", 1000);
    const sorry = turn("Sorry — go ahead.", 3100);
    const again = turn("No wait, I need to tell you something", 9000);
    const refs = new Map([[barge, "No wait, I need"]]);
    attachAgentHeard([again, barge, sorry], [{ at: 4500, text: "no wait i need sorry go ahead" }, { at: 12000, text: "no wait i need to tell you" }, { at: 12500, text: "something" }], refs);
    expect(barge.metadata).toEqual({});
    expect(sorry.metadata).toEqual({ agent_transcript: "no wait i need sorry go ahead", agent_heard_reference: "No wait, I need Sorry — go ahead.", agent_heard_turns: 2 });
    // A second transcription when every started turn has one continues the last (a split utterance).
    expect(again.metadata).toEqual({ agent_transcript: "no wait i need to tell you something" });
  });

  it("a cut turn alone records its spoken prefix; an empty prefix leaves nothing to compare; transcriptions before any caller turn are left out", () => {
    const cut = turn("Hello there", 1000);
    const silent = turn("Another line", 5000);
    attachAgentHeard([cut, silent], [{ at: 500, text: "greeting noise" }, { at: 2000, text: "hello" }, { at: 6000, text: "uh" }], new Map([[cut, "Hello"], [silent, ""]]));
    expect(cut.metadata).toEqual({ agent_transcript: "hello", agent_heard_reference: "Hello" });
    expect(silent.metadata).toEqual({ agent_transcript: "uh", agent_heard_reference: "" });
  });
});
