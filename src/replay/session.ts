// One conversation replayed through a realtime-API session: caller clips paced in 20 ms frames, every event timed on the monotonic clock, tool calls answered by stubs, late events drained.
import { monotonicMs, sleepUntil } from "../connectors/clock.js";
import { bytesToPcm16, concatPcm, frameSamples } from "../connectors/frames.js";
import { RealtimeConnector, type RealtimeConnectorOptions } from "../connectors/realtime.js";
import { speechEndSeconds } from "../connectors/capture.js";
import type { ReplaySessionConfig } from "./config.js";
import { sessionUpdateOf, sessionUpdateOfGa } from "./config.js";
import type { ToolCall, StubTools } from "./tools.js";

/** What happens when the agent answers during a pause inside a clip. */
export type VadSplitMode = "send-whole" | "drop-rest";
/** What happens when server VAD answers inside a clip: send the whole clip and record `vad_split` (default), or drop the rest as the harness does. */
export const VAD_SPLIT_MODES: readonly VadSplitMode[] = ["send-whole", "drop-rest"];

/** What follows a clip until the agent's VAD ends the caller's turn. */
export type PostClipSilence = "paced" | "keepalive";
/** What is sent after a clip while waiting for the reply: paced silence frames, or keep-alive only. */
export const POST_CLIP_SILENCES: readonly PostClipSilence[] = ["paced", "keepalive"];

export interface ReplaySessionOptions {
  /** Agent URL (ws:// or wss://). */
  url: string;
  /** Handshake headers (API keys: never logged). */
  headers?: Record<string, string>;
  config: ReplaySessionConfig;
  tools: StubTools;
  /** Realtime API event names of the session.update. */
  apiVersion?: "beta" | "ga";
  vadSplit: VadSplitMode;
  postClipSilence: PostClipSilence;
  /** Late-event drain after a turn's response: at most this long, in ms. */
  drainMs: number;
  /** The drain ends early once the transcription is in and nothing arrived for this long, in ms. */
  drainIdleMs: number;
  /** A turn that has not completed this long after its clip was sent ends as timed out, in ms. */
  turnTimeoutMs: number;
  /** Pause between turns, in ms (F3.7: 0.5 s). */
  turnGapMs: number;
  /** Connection timeout, in s. */
  connectTimeoutS: number;
}

/** One caller turn to play. */
export interface TurnInput {
  turnNumber: number;
  /** Mono PCM at the session rate, or the error that made it unplayable. */
  pcm: Int16Array | null;
  error: string | null;
}

/** Everything observed about one turn; instants are monotonic ms (null = never). */
export interface TurnObservation {
  turnNumber: number;
  error: string | null;
  sampleRate: number;
  sendStartAt: number | null;
  /** End of the clip on the paced schedule (first frame + clip duration, or the cut when dropped). */
  sendEndAt: number | null;
  /** Last frame (clip or silence) sent. */
  uplinkEndAt: number | null;
  clipDurationS: number;
  /** Seconds of the clip actually sent (less than the clip when the rest was dropped). */
  clipSentS: number;
  /** End of the caller's speech inside the clip by the engine's VAD, seconds into the clip. */
  speechEndInClipS: number | null;
  speechStoppedAt: number[];
  speechStoppedAudioEndMs: (number | null)[];
  /** The harness anchor (F4.5): send end, replaced by each speech_stopped receipt. */
  anchorAt: number | null;
  transcript: string;
  transcriptionDoneAt: number | null;
  firstTextAt: number | null;
  firstAudioAt: number | null;
  /** Per response: first audio receipt. */
  responseFirstAudioAt: number[];
  responseEndAt: number | null;
  responses: number;
  responseText: string;
  responseFull: string;
  wasTruncated: boolean;
  truncatedAt: number | null;
  responseAudio: Int16Array;
  toolCalls: ToolCall[];
  toolResults: { call_id: string; output: string }[];
  vadSplit: boolean;
  vadSplitAt: number | null;
  agentErrors: string[];
  timedOut: boolean;
  /** Uplink frame lateness against the absolute schedule, max in ms. */
  maxFrameLatenessMs: number;
}

/** The result of one conversation: one observation per turn, the call-clock origin and the session id the agent gave. */
export interface ConversationObservation {
  originAt: number | null;
  connectError: string | null;
  sessionId: string | null;
  turns: TurnObservation[];
}

const AUDIO_DELTA = new Set(["response.audio.delta", "response.output_audio.delta"]);
const TEXT_DELTA = new Set(["response.text.delta", "response.output_text.delta"]);
const TEXT_DONE = new Set(["response.text.done", "response.output_text.done"]);
const AUDIO_TX_DELTA = new Set(["response.audio_transcript.delta", "response.output_audio_transcript.delta"]);
const AUDIO_TX_DONE = new Set(["response.audio_transcript.done", "response.output_audio_transcript.done"]);
/** Harness keepalive: one 20 ms zero frame every 100 ms after the clip (F3.8). */
const KEEPALIVE_INTERVAL_MS = 100;

type Observer = (msg: Record<string, unknown>, at: number) => void;

/** The realtime connector with every inbound event also handed to an observer, and a way to send client events. */
class ObservedRealtimeConnector extends RealtimeConnector {
  observer: Observer | null = null;
  protected override decodeJson(msg: Record<string, unknown>) {
    const at = monotonicMs();
    const out = super.decodeJson(msg);
    this.observer?.(msg, at);
    return out;
  }
  sendEvent(value: unknown): void {
    if (this.ws && this.ws.readyState === this.ws.OPEN) this.sendJson(value);
  }
  get isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === this.ws.OPEN;
  }
}

/** The observation of a turn that could not be played (an error record). */
export function failedTurn(turnNumber: number, sampleRate: number, error: string): TurnObservation {
  return emptyObservation(turnNumber, sampleRate, error);
}

function emptyObservation(turnNumber: number, sampleRate: number, error: string | null): TurnObservation {
  return {
    turnNumber,
    error,
    sampleRate,
    sendStartAt: null,
    sendEndAt: null,
    uplinkEndAt: null,
    clipDurationS: 0,
    clipSentS: 0,
    speechEndInClipS: null,
    speechStoppedAt: [],
    speechStoppedAudioEndMs: [],
    anchorAt: null,
    transcript: "",
    transcriptionDoneAt: null,
    firstTextAt: null,
    firstAudioAt: null,
    responseFirstAudioAt: [],
    responseEndAt: null,
    responses: 0,
    responseText: "",
    responseFull: "",
    wasTruncated: false,
    truncatedAt: null,
    responseAudio: new Int16Array(0),
    toolCalls: [],
    toolResults: [],
    vadSplit: false,
    vadSplitAt: null,
    agentErrors: [],
    timedOut: false,
    maxFrameLatenessMs: 0,
  };
}

/** Run one conversation in one session; a connection that fails or drops yields errors for the turns it could not play. */
export async function replayConversation(turns: readonly TurnInput[], instructions: string, tools: readonly unknown[], o: ReplaySessionOptions): Promise<ConversationObservation> {
  const rate = o.config.sample_rate;
  const connectorOptions: RealtimeConnectorOptions = {
    url: o.url,
    headers: o.headers ?? {},
    sampleRate: rate,
    turnMode: o.config.push_to_talk ? "push-to-talk" : "server-vad",
    apiVersion: o.apiVersion ?? "beta",
    session: o.apiVersion === "ga" ? sessionUpdateOfGa(o.config, instructions, tools) : sessionUpdateOf(o.config, instructions, tools),
    connectTimeoutS: o.connectTimeoutS,
    trailingSilenceMs: 0,
    resampler: "band-limited",
  };
  const result: ConversationObservation = { originAt: null, connectError: null, sessionId: null, turns: [] };
  let connector: ObservedRealtimeConnector;
  try {
    connector = new ObservedRealtimeConnector(connectorOptions);
  } catch (e) {
    result.connectError = (e as Error).message;
    result.turns = turns.map((t) => emptyObservation(t.turnNumber, rate, `connection failed: ${(e as Error).message}`));
    return result;
  }
  let handler: Observer | null = null;
  connector.observer = (msg, at) => {
    if (msg.type === "session.created" || msg.type === "session.updated") {
      const s = msg.session as Record<string, unknown> | undefined;
      if (typeof s?.id === "string") result.sessionId = s.id;
    }
    try {
      handler?.(msg, at);
    } catch {
      // An observer bug must not take the connection down; the turn times out instead.
    }
  };
  try {
    await connector.connect();
  } catch (e) {
    result.connectError = (e as Error).message;
    result.turns = turns.map((t) => emptyObservation(t.turnNumber, rate, `connection failed: ${(e as Error).message}`));
    return result;
  }
  result.originAt = monotonicMs();
  // Consume the connector's own event queue (its audio is gathered from the raw events), noting when it closes.
  const downlink = connector.agentEvents();
  let closedError: Error | null = null;
  const hooks: { onClosed: (() => void) | null } = { onClosed: null };
  void (async () => {
    for (;;) {
      const r = await downlink.next();
      if (r.kind === "closed") {
        closedError = r.error ?? new Error("the connection closed");
        hooks.onClosed?.();
        return;
      }
    }
  })();
  try {
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i];
      if (closedError) {
        result.turns.push(emptyObservation(t.turnNumber, rate, `connection lost: ${(closedError as Error).message}`));
        continue;
      }
      if (t.error !== null || t.pcm === null) {
        result.turns.push(emptyObservation(t.turnNumber, rate, t.error ?? "no audio"));
        continue;
      }
      if (i > 0 && o.turnGapMs > 0) await sleepUntil(monotonicMs() + o.turnGapMs);
      const obs = await playTurn(connector, t.turnNumber, t.pcm, o, (h) => (handler = h), (c) => (hooks.onClosed = c), () => closedError);
      handler = null;
      hooks.onClosed = null;
      result.turns.push(obs);
    }
  } finally {
    await connector.disconnect();
  }
  return result;
}

/** Play one clip and observe the agent until the turn completes, then drain late events. */
async function playTurn(
  connector: ObservedRealtimeConnector,
  turnNumber: number,
  pcm: Int16Array,
  o: ReplaySessionOptions,
  setHandler: (h: Observer) => void,
  setOnClosed: (c: () => void) => void,
  closed: () => Error | null,
): Promise<TurnObservation> {
  const rate = o.config.sample_rate;
  const ptt = o.config.push_to_talk;
  const obs = emptyObservation(turnNumber, rate, null);
  obs.clipDurationS = pcm.length / rate;
  obs.speechEndInClipS = speechEndSeconds(pcm, rate);
  const audio: Int16Array[] = [];
  let textBuf = "";
  let audioTxBuf = "";
  let speaking = false;
  let responseActive = false;
  let lastSpeechStoppedAt = -Infinity;
  let lastResponseDoneAt = -Infinity;
  let clipDone = false;
  let commitAt = Infinity;
  let pendingTools: ToolCall[] = [];
  let awaitingFollowUp = false;
  let lastEventAt = monotonicMs();
  let errorEvent = false;
  const responseTexts: string[] = [];
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  const currentText = () => [...responseTexts, longest(textBuf, audioTxBuf)].filter((s) => s !== "").join(" ");
  const complete = (): boolean => {
    if (errorEvent) return clipDone || o.vadSplit === "drop-rest";
    if (responseActive || awaitingFollowUp || pendingTools.length > 0 || obs.responses === 0) return false;
    if (ptt) return clipDone && lastResponseDoneAt > commitAt;
    if (speaking) return false;
    if (o.vadSplit === "send-whole" && !clipDone) return false;
    return lastResponseDoneAt > lastSpeechStoppedAt;
  };

  setHandler((msg, at) => {
    lastEventAt = at;
    const type = String(msg.type);
    if (type === "input_audio_buffer.speech_started") speaking = true;
    else if (type === "input_audio_buffer.speech_stopped") {
      speaking = false;
      lastSpeechStoppedAt = at;
      obs.speechStoppedAt.push(at);
      obs.speechStoppedAudioEndMs.push(typeof msg.audio_end_ms === "number" ? msg.audio_end_ms : null);
      obs.anchorAt = at;
    } else if (type === "conversation.item.input_audio_transcription.completed") {
      if (typeof msg.transcript === "string" && msg.transcript !== "") obs.transcript = obs.transcript ? `${obs.transcript} ${msg.transcript}` : msg.transcript;
      obs.transcriptionDoneAt = at;
    } else if (type === "response.created") {
      responseActive = true;
      awaitingFollowUp = false;
      obs.responses++;
      textBuf = "";
      audioTxBuf = "";
      // The agent answers while caller speech is still to come: a VAD split inside the clip.
      const speechEnd = obs.sendStartAt !== null && obs.speechEndInClipS !== null ? obs.sendStartAt + obs.speechEndInClipS * 1000 : null;
      if (!obs.vadSplit && !ptt && speechEnd !== null && at < speechEnd && obs.speechStoppedAt.length > 0) {
        obs.vadSplit = true;
        obs.vadSplitAt = at;
      }
    } else if (TEXT_DELTA.has(type) && typeof msg.delta === "string") {
      textBuf += msg.delta;
      obs.firstTextAt ??= at;
    } else if (AUDIO_TX_DELTA.has(type) && typeof msg.delta === "string") {
      audioTxBuf += msg.delta;
      obs.firstTextAt ??= at;
    } else if (TEXT_DONE.has(type) && typeof msg.text === "string") textBuf = msg.text;
    else if (AUDIO_TX_DONE.has(type) && typeof msg.transcript === "string") audioTxBuf = msg.transcript;
    else if (AUDIO_DELTA.has(type) && typeof msg.delta === "string") {
      const bytes = Buffer.from(msg.delta, "base64");
      audio.push(bytesToPcm16(bytes));
      obs.firstAudioAt ??= at;
      if (obs.responseFirstAudioAt.length < obs.responses) obs.responseFirstAudioAt.push(at);
    } else if (type === "response.function_call_arguments.done") {
      const call: ToolCall = { call_id: String(msg.call_id ?? ""), name: String(msg.name ?? ""), arguments: typeof msg.arguments === "string" ? msg.arguments : JSON.stringify(msg.arguments ?? {}) };
      obs.toolCalls.push(call);
      pendingTools.push(call);
    } else if (type === "conversation.item.truncated") {
      if (!obs.wasTruncated) obs.responseFull = currentText();
      obs.wasTruncated = true;
      obs.truncatedAt ??= at;
    } else if (type === "response.done") {
      responseActive = false;
      lastResponseDoneAt = at;
      obs.responseEndAt = at;
      const text = longest(textBuf, audioTxBuf);
      if (text) responseTexts.push(text);
      textBuf = "";
      audioTxBuf = "";
      if (pendingTools.length) {
        const calls = pendingTools;
        pendingTools = [];
        awaitingFollowUp = true;
        void answerTools(connector, calls, o.tools, obs).then(poke);
        return;
      }
    } else if (type === "error") {
      const err = msg.error as Record<string, unknown> | undefined;
      obs.agentErrors.push(`${String(err?.code ?? err?.type ?? "error")}: ${String(err?.message ?? "")}`);
      errorEvent = true;
    }
    poke();
  });
  setOnClosed(poke);

  // The clip, paced in 20 ms frames on an absolute schedule; in VAD mode followed by silence so the
  // agent's VAD sees the caller stop (a live microphone: paced 20 ms frames; the harness: one 20 ms
  // frame every 100 ms, until speech_stopped or a response is done).
  const frameMs = (frameSamples(rate) / rate) * 1000;
  const paced = o.postClipSilence === "paced";
  const silenceStop = { stopped: false };
  let silence: Promise<void> = Promise.resolve();
  let uplinkError: Error | null = null;
  const uplink = connector.streamUplink({ pcm, sampleRate: rate }, { trailingSilence: true, onFirstFrame: (t0) => (obs.sendStartAt = t0) }).then(
    (up) => {
      obs.sendStartAt ??= up.firstFrameAt;
      obs.clipSentS = up.pcm.length / rate;
      obs.sendEndAt = up.firstFrameAt + obs.clipSentS * 1000;
      obs.uplinkEndAt = up.endedAt;
      obs.maxFrameLatenessMs = Math.max(0, ...up.frameLatenessMs);
      if (!up.stopped) {
        clipDone = true;
        // The harness anchor starts at the local time after the last chunk; later speech_stopped receipts replace it.
        obs.anchorAt = up.endedAt;
        if (ptt) commitAt = monotonicMs();
        else {
          const clipEnd = obs.sendEndAt;
          const harnessDone = () => obs.speechStoppedAt.some((t) => t >= clipEnd) || lastResponseDoneAt >= clipEnd;
          silence = sendSilence(connector, rate, paced ? frameMs : KEEPALIVE_INTERVAL_MS, silenceStop, paced ? () => false : harnessDone).then((end) => {
            if (end !== null) obs.uplinkEndAt = end;
          });
        }
      }
      poke();
    },
    (e: Error) => {
      uplinkError = e;
      poke();
    },
  );

  const started = monotonicMs();
  const deadline = () => (obs.sendEndAt ?? started + obs.clipDurationS * 1000) + o.turnTimeoutMs;
  while (!complete()) {
    const lost = closed() ?? uplinkError;
    if (lost) {
      silenceStop.stopped = true;
      await connector.stopUplink();
      await uplink;
      await silence;
      obs.error = `connection lost: ${lost.message}`;
      finish(obs, audio, responseTexts, textBuf, audioTxBuf);
      return obs;
    }
    const now = monotonicMs();
    if (now >= deadline()) {
      obs.timedOut = true;
      break;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(() => {
        if (wake === resolve) wake = null;
        resolve();
      }, Math.min(250, deadline() - now));
    });
  }
  // The harness stops sending when the turn is over, even inside the clip (the rest is dropped).
  if (!clipDone) await connector.stopUplink();
  await uplink;
  silenceStop.stopped = true;
  await silence;

  // Late events: transcription and transcript deltas that arrive after the response (F4.5).
  if (!obs.timedOut) {
    const drainEnd = monotonicMs() + o.drainMs;
    while (!closed()) {
      const now = monotonicMs();
      if (now >= drainEnd) break;
      if (obs.transcriptionDoneAt !== null && now - lastEventAt >= o.drainIdleMs) break;
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(50, drainEnd - now)));
    }
  }
  finish(obs, audio, responseTexts, textBuf, audioTxBuf);
  return obs;
}

function finish(obs: TurnObservation, audio: Int16Array[], responseTexts: string[], textBuf: string, audioTxBuf: string): void {
  obs.responseAudio = concatPcm(audio);
  const pending = longest(textBuf, audioTxBuf);
  obs.responseText = [...responseTexts, pending].filter((s) => s !== "").join(" ");
}

function longest(a: string, b: string): string {
  return b.length > a.length ? b : a;
}

/** Send 20 ms zero frames every `intervalMs` until `done()` or stopped; resolves to the time the last one was due to end (null: none sent). */
async function sendSilence(connector: ObservedRealtimeConnector, rate: number, intervalMs: number, stop: { stopped: boolean }, done: () => boolean): Promise<number | null> {
  const zero = Buffer.alloc(frameSamples(rate) * 2).toString("base64");
  const t0 = monotonicMs();
  let end: number | null = null;
  for (let k = 0; !stop.stopped && !done() && connector.isOpen; k++) {
    if (k > 0) await sleepUntil(t0 + k * intervalMs);
    if (stop.stopped || done()) break;
    connector.sendEvent({ type: "input_audio_buffer.append", audio: zero });
    end = t0 + k * intervalMs + (frameSamples(rate) / rate) * 1000;
  }
  return end;
}

/** Run the stubs for the calls of a finished response, send their outputs and ask for the follow-up. */
async function answerTools(connector: ObservedRealtimeConnector, calls: ToolCall[], tools: StubTools, obs: TurnObservation): Promise<void> {
  for (const call of calls) {
    let output: string;
    try {
      output = await tools.call(call);
    } catch (e) {
      output = JSON.stringify({ error: `tool ${call.name} failed: ${(e as Error).message}` });
    }
    obs.toolResults.push({ call_id: call.call_id, output });
    connector.sendEvent({ type: "conversation.item.create", item: { type: "function_call_output", call_id: call.call_id, output } });
  }
  connector.sendEvent({ type: "response.create" });
}
