// Shared pieces of the live-capture tests: scripts, connectors against the reference agent, and the agent-side truth of each reply.
import { Audio, CallbackConnector, RealtimeConnector, WebSocketConnector, monotonicMs, parseScript, sleepUntil, writeWavPcm16, type CallScript, type VoiceConnector } from "../../src/index.js";
import { synthesizeSpeech, SyntheticTts } from "../../examples/synthetic-speech.js";
import type { ReferenceAgent, ReplyRecord } from "../../examples/reference-agent.js";

export const CALLER_TTS = new SyntheticTts({ pitchHz: 120, sampleRate: 24000 });
export const REPLY_TEXT = "Your order ships tomorrow.";

export function script(name: string, turns: Array<{ text: string; pause_before?: number; barge_in_after?: number }>): CallScript {
  return parseScript({ name, turns }, "/", `test:${name}`, name);
}

export type ConnectorKind = "callback" | "websocket" | "realtime";

/** What an in-process callback agent did, on the same clock (the truth for callback calls). */
export interface CallbackTruth {
  invokedAt: number;
  returnedAt: number;
}

/** A callback agent that answers after `delayMs` with the synthetic voice, recording when it was called and returned. */
export function callbackAgent(delayMs: number, truths: CallbackTruth[]) {
  const pcm = synthesizeSpeech(REPLY_TEXT, { sampleRate: 24000, pitchHz: 190, seed: 7 });
  return async (_audio: Audio) => {
    const invokedAt = monotonicMs();
    await sleepUntil(invokedAt + delayMs);
    const returnedAt = monotonicMs();
    truths.push({ invokedAt, returnedAt });
    return { audio: Audio.fromBytes(writeWavPcm16(pcm, 24000), "audio/wav"), transcript: REPLY_TEXT };
  };
}

export function makeConnector(kind: ConnectorKind, agent: ReferenceAgent | null, options: { delayMs?: number; truths?: CallbackTruth[]; maxTurnTimeoutS?: number } = {}): VoiceConnector {
  const turnDetection = { preset: "eager" as const, maxTurnTimeoutS: options.maxTurnTimeoutS ?? 10 };
  switch (kind) {
    case "callback":
      return new CallbackConnector(callbackAgent(options.delayMs ?? 0, options.truths ?? []), { turnDetection });
    case "websocket":
      return new WebSocketConnector({ url: `${agent!.url}/generic`, turnDetection, receiveTranscriptKey: "text", turnCompleteType: "turn_complete" });
    case "realtime":
      return new RealtimeConnector({ url: `${agent!.url}/realtime`, turnDetection });
  }
}

/** The agent's records of one connection, in utterance order. */
export function recordsOf(agent: ReferenceAgent, connection: number): ReplyRecord[] {
  return agent.records.filter((r) => r.connection === connection && r.utterance >= 0).sort((a, b) => a.utterance - b.utterance);
}
