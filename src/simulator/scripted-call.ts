// Runs one caller script against a connector, half-duplex (exchangeTurn) or duplex (paced uplink + segmented downlink, barge-ins), into a CallRecord.
import { readFileSync } from "node:fs";
import { guessMimeType, Audio } from "../model/audio.js";
import { VoxError, toVoxError } from "../model/errors.js";
import type { TextToSpeech } from "../speech/types.js";
import { monotonicMs, sleepUntil } from "../connectors/clock.js";
import { pcmAt } from "../connectors/pcm-input.js";
import { collectAgentTurn, type CollectedAgentTurn } from "../connectors/turn-engine.js";
import type { AgentTurnRecord, CallRecord, CallerTurnRecord, EndReason } from "../connectors/capture.js";
import type { VoiceConnector } from "../connectors/types.js";
import { decodeAudio } from "../audio/decode.js";
import type { CallScript } from "./script.js";

/** Options of a scripted call: connector, TTS, duplex, barge-in grace, output folder. */
export interface ScriptedCallOptions {
  /**
   * Duplex: the uplink and the agent's audio flow at once, so barge-ins happen; otherwise each turn is an exchangeTurn().
   * @defaultValue false
   */
  duplex?: boolean;
  /** Speaks `text` turns (required when the script has any). */
  tts?: TextToSpeech | null;
  /**
   * A barge-in succeeds when the agent stops talking within this many ms of the caller starting.
   * @defaultValue 2000
   */
  bargeInGraceMs?: number;
  /** Connector settings recorded in the output (never secrets). */
  connectorInfo?: Record<string, unknown>;
  /** Progress lines (stderr in the CLI). */
  onProgress?: (message: string) => void;
}

/** Defaults of a scripted call. */
export const DEFAULT_SCRIPTED_CALL_OPTIONS = Object.freeze({ duplex: false, bargeInGraceMs: 2000 });

/** deepeval's half-duplex probe when the agent speaks first: 1 s of silence. */
const GREETING_PROBE_S = 1.0;

/** The §L8 meaning of latency_ms for a connector and mode. */
export function latencyMeaning(protocol: string, duplex: boolean): string {
  if (duplex) return "first uplink frame + caller clip duration → first speech frame received";
  if (protocol === "callback") return "agent function invoked → returned (or the value the agent reported)";
  return "end of the paced uplink including its trailing silence → first speech frame read (≈ 0 when the agent started during the pad; see first_audio_arrival_s)";
}

/** Load every caller clip before the call starts (TTS and files), so no turn waits on synthesis. */
async function prepareCallerAudio(script: CallScript, tts: TextToSpeech | null | undefined): Promise<Array<{ audio: Audio; source: string }>> {
  const out: Array<{ audio: Audio; source: string }> = [];
  for (const [i, t] of script.turns.entries()) {
    if (t.text !== null) {
      if (!tts) throw new VoxError("TTS_UNAVAILABLE", "this turn is text and no TTS was given", { file: script.origin, field: `turns[${i}].text` });
      const r = await tts.synthesize(t.text);
      out.push({ audio: r.audio, source: `tts:${tts.modelName}` });
    } else {
      let bytes: Uint8Array;
      try {
        bytes = readFileSync(t.audio!);
      } catch (e) {
        throw new VoxError("AUDIO_NOT_FOUND", `cannot read ${t.audio}: ${(e as Error).message}`, { file: script.origin, field: `turns[${i}].audio` });
      }
      out.push({ audio: Audio.fromBytes(bytes, guessMimeType(t.audio!) ?? "audio/wav"), source: t.audio! });
    }
  }
  return out;
}

function endReasonOf(error: unknown): EndReason {
  return error instanceof VoxError && error.code === "AGENT_HANGUP" ? "agent_hangup" : "error";
}

/** Agent turn PCM of a ConnectorTurn's audio. */
function pcmOfAudio(audio: Audio): { pcm: Int16Array; sampleRate: number } {
  const d = decodeAudio(audio.getBytes(), { name: "agent reply" });
  return { pcm: d.samples, sampleRate: d.sampleRate };
}

/**
 * Run a script: connect, speak each caller turn, record every turn with its timing, disconnect.
 * The record is returned even when the call ends abnormally (end_reason set); only an unreadable
 * script or caller clip throws.
 */
export async function runScriptedCall(script: CallScript, connector: VoiceConnector, options: ScriptedCallOptions = {}): Promise<CallRecord> {
  const duplex = options.duplex ?? DEFAULT_SCRIPTED_CALL_OPTIONS.duplex;
  if (duplex && !connector.supportsDuplex) throw new VoxError("NOT_SUPPORTED", `the ${connector.protocol} connector has no duplex mode`, { file: script.origin });
  const log = (m: string) => options.onProgress?.(`[${script.name}] ${m}`);
  const prepared = await prepareCallerAudio(script, options.tts);
  const record: CallRecord = {
    name: script.name,
    protocol: connector.protocol,
    connector: options.connectorInfo ?? { kind: connector.constructor.name },
    mode: duplex ? "duplex" : "half-duplex",
    turnDetection: connector.turnDetection,
    latencyMeaning: latencyMeaning(connector.protocol, duplex),
    connectStartedAt: monotonicMs(),
    connectedAt: null,
    endedAt: 0,
    turns: [],
    endReason: null,
    error: null,
    warnings: [],
    callerTranscripts: [],
    scenario: script.scenario,
    expectedOutcome: script.expectedOutcome,
  };
  const fail = (reason: EndReason, e: unknown) => {
    record.endReason ??= reason;
    if (!record.error && e) {
      const v = toVoxError(e);
      record.error = { code: v.code, message: `call ${script.name}: ${v.message}` };
      log(`error: ${v.message}`);
    }
  };
  try {
    await connector.connect();
  } catch (e) {
    fail("error", e);
    record.endedAt = monotonicMs();
    return record;
  }
  record.connectedAt = monotonicMs();
  log(`connected (${connector.protocol}, ${record.mode})`);
  try {
    const pcms = prepared.map((p) => pcmAt(p.audio, connector.audioFormat.sampleRate, connector.resampler));
    if (duplex) await runDuplex(script, connector, pcms, prepared, record, options, fail, log);
    else await runHalfDuplex(script, connector, pcms, prepared, record, fail, log);
  } catch (e) {
    fail("error", e);
  } finally {
    await connector.disconnect().catch(() => {});
    record.endedAt = monotonicMs();
    record.callerTranscripts.push(...(connector.callerTranscripts ?? []));
    record.warnings.push(...(connector.agentErrors ?? []).map((m) => `agent reported: ${m}`));
  }
  log(`ended${record.endReason ? ` (${record.endReason})` : ""}: ${record.turns.length} turn(s)`);
  return record;
}

function callerTurn(pcm: Int16Array, rate: number, startedAt: number, uplinkEndedAt: number, script: CallScript, i: number, source: string, trailingSilenceMs: number, lateness: number[]): CallerTurnRecord {
  return {
    role: "user",
    pcm,
    sampleRate: rate,
    startedAt,
    uplinkEndedAt,
    text: script.turns[i].text,
    source,
    pauseBeforeS: script.turns[i].pauseBefore,
    bargeIn: false,
    trailingSilenceMs,
    frameLatenessMs: lateness,
  };
}

async function runHalfDuplex(
  script: CallScript,
  connector: VoiceConnector,
  pcms: Int16Array[],
  prepared: Array<{ source: string }>,
  record: CallRecord,
  fail: (r: EndReason, e: unknown) => void,
  log: (m: string) => void,
): Promise<void> {
  const rate = connector.audioFormat.sampleRate;
  /** When the caller may speak again: the agent's turn has ended and its audio has played out. */
  let readyAt = record.connectedAt!;
  const exchange = async (pcm: Int16Array, i: number | null): Promise<boolean> => {
    let ct;
    try {
      ct = await connector.exchangeTurn({ pcm, sampleRate: rate });
    } catch (e) {
      fail(endReasonOf(e), e);
      return false;
    }
    if (i !== null) {
      const lateness = ct.capture?.uplinkFrameLatenessMs ?? [];
      record.turns.push(callerTurn(pcm, rate, ct.input_audio_started_at!, ct.capture?.uplinkEndedAt ?? ct.input_audio_ended_at!, script, i, prepared[i].source, connector.trailingSilenceMs, lateness));
    }
    const reply = ct.audio_started_at == null ? { pcm: new Int16Array(0), sampleRate: rate } : pcmOfAudio(ct.audio);
    const endedBy = ct.capture?.endedBy ?? "turn_complete";
    if (reply.pcm.length > 0 && ct.audio_started_at != null) {
      const turn: AgentTurnRecord = {
        role: "assistant",
        pcm: reply.pcm,
        sampleRate: reply.sampleRate,
        startedAt: ct.audio_started_at,
        readAt: ct.capture?.firstAudioReadAt ?? null,
        transcript: ct.transcript ?? null,
        latencyMs: ct.latency_ms ?? null,
        endedBy,
        interrupted: false,
      };
      record.turns.push(turn);
      log(`agent replied: ${(reply.pcm.length / reply.sampleRate).toFixed(2)} s, latency_ms ${ct.latency_ms?.toFixed(0)}`);
      readyAt = Math.max(monotonicMs(), ct.audio_started_at + (reply.pcm.length / reply.sampleRate) * 1000);
    } else readyAt = monotonicMs();
    if (endedBy === "closed") {
      fail(endReasonOf(ct.capture?.error), ct.capture?.error ?? new VoxError("AGENT_HANGUP", "the connection closed"));
      return false;
    }
    if (endedBy === "max_turn_timeout") {
      fail("idle_timeout", new VoxError("PROTOCOL_ERROR", `the agent's turn did not end within max_turn_timeout (${connector.turnDetection.maxTurnTimeoutS} s)${reply.pcm.length ? "" : "; it never spoke"}`));
      return false;
    }
    return true;
  };
  if (script.agentSpeaksFirst && !(await exchange(new Int16Array(Math.round(rate * GREETING_PROBE_S)), null))) return;
  for (const [i, t] of script.turns.entries()) {
    if (t.bargeInAfter !== null) record.warnings.push(`turns[${i}].barge_in_after ignored: barge-ins need a duplex call (--duplex)`);
    await sleepUntil(readyAt + t.pauseBefore * 1000);
    log(`turn ${i + 1}/${script.turns.length}: caller speaks ${(pcms[i].length / rate).toFixed(2)} s`);
    if (!(await exchange(pcms[i], i))) return;
  }
}

interface LiveAgentTurn {
  firstAudioAt: number;
  done: Promise<CollectedAgentTurn>;
  result: CollectedAgentTurn | null;
}

/** Segments the duplex downlink into agent turns with the turn engine, as they happen. */
class DownlinkSegmenter {
  readonly turns: LiveAgentTurn[] = [];
  /** Set when the downlink closed or was stopped. */
  final: CollectedAgentTurn | null = null;
  private readonly stop = new AbortController();
  private wake = new Set<() => void>();
  readonly running: Promise<void>;

  constructor(private readonly connector: VoiceConnector) {
    this.running = this.loop();
  }

  private notify(): void {
    for (const w of this.wake) w();
  }

  private async loop(): Promise<void> {
    const queue = this.connector.agentEvents();
    for (;;) {
      let resolveDone!: (t: CollectedAgentTurn) => void;
      const done = new Promise<CollectedAgentTurn>((r) => (resolveDone = r));
      let live: LiveAgentTurn | null = null;
      const t = await collectAgentTurn(queue, {
        sampleRate: this.connector.recvSampleRate,
        detection: this.connector.turnDetection,
        capFrom: "speech",
        believeTurnComplete: this.connector.signalsTurnComplete,
        signal: this.stop.signal,
        onSpeechStart: (at) => {
          live = { firstAudioAt: at, done, result: null };
          this.turns.push(live);
          this.notify();
        },
      });
      if (live) {
        (live as LiveAgentTurn).result = t;
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
  async turnAfter(afterAt: number, deadline: number): Promise<LiveAgentTurn | null> {
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

async function runDuplex(
  script: CallScript,
  connector: VoiceConnector,
  pcms: Int16Array[],
  prepared: Array<{ source: string }>,
  record: CallRecord,
  options: ScriptedCallOptions,
  fail: (r: EndReason, e: unknown) => void,
  log: (m: string) => void,
): Promise<void> {
  const rate = connector.audioFormat.sampleRate;
  const capMs = connector.turnDetection.maxTurnTimeoutS * 1000;
  const graceMs = options.bargeInGraceMs ?? DEFAULT_SCRIPTED_CALL_OPTIONS.bargeInGraceMs;
  const seg = new DownlinkSegmenter(connector);
  const callers: CallerTurnRecord[] = [];
  const playoutEnd = (t: CollectedAgentTurn) => (t.firstAudioAt ?? t.endedAt) + (t.pcm.length / t.sampleRate) * 1000;
  /** False (and the call's end_reason set) when an agent turn ended abnormally or the downlink closed. */
  const healthy = (t: CollectedAgentTurn | null): boolean => {
    const final = seg.final;
    if (t?.endedBy === "max_turn_timeout") {
      fail("idle_timeout", new VoxError("PROTOCOL_ERROR", `the agent's turn did not end within max_turn_timeout (${connector.turnDetection.maxTurnTimeoutS} s)`));
      return false;
    }
    if (final && final.endedBy === "closed") {
      fail(endReasonOf(final.error), final.error ?? new VoxError("AGENT_HANGUP", "the connection closed"));
      return false;
    }
    return true;
  };
  const replyAfter = async (after: CallerTurnRecord | null): Promise<LiveAgentTurn | null> => {
    const from = after ? after.startedAt : -Infinity;
    const deadline = (after ? after.uplinkEndedAt : record.connectedAt!) + capMs;
    const t = await seg.turnAfter(from, deadline);
    if (!t && healthy(null)) fail("idle_timeout", new VoxError("PROTOCOL_ERROR", `the agent did not answer within max_turn_timeout (${connector.turnDetection.maxTurnTimeoutS} s)`));
    return t;
  };
  try {
    let readyAt = record.connectedAt!;
    if (script.agentSpeaksFirst) {
      const greeting = await replyAfter(null);
      if (!greeting) return;
      const g = await greeting.done;
      if (!healthy(g)) return;
      readyAt = Math.max(g.endedAt, playoutEnd(g));
    }
    for (const [i, t] of script.turns.entries()) {
      const prev = callers[callers.length - 1] ?? null;
      let bargeIn = false;
      if (prev) {
        const reply = await replyAfter(prev);
        if (!reply) return;
        if (t.bargeInAfter !== null) {
          const bargeAt = reply.firstAudioAt + t.bargeInAfter * 1000;
          const first = await Promise.race([reply.done.then(() => "ended" as const), sleepUntil(bargeAt).then(() => "barge" as const)]);
          if (first === "barge" && reply.result === null) bargeIn = true;
          else {
            record.warnings.push(`turns[${i}]: the agent's reply ended before ${t.bargeInAfter} s, so the caller spoke after it (no barge-in)`);
            const r = await reply.done;
            if (!healthy(r)) return;
            readyAt = Math.max(r.endedAt, playoutEnd(r)) + t.pauseBefore * 1000;
          }
        } else {
          const r = await reply.done;
          if (!healthy(r)) return;
          readyAt = Math.max(r.endedAt, playoutEnd(r)) + t.pauseBefore * 1000;
        }
      } else readyAt += t.pauseBefore * 1000;
      if (!bargeIn) await sleepUntil(readyAt);
      if (!healthy(null)) return;
      log(`turn ${i + 1}/${script.turns.length}: caller speaks ${(pcms[i].length / rate).toFixed(2)} s${bargeIn ? " (barge-in)" : ""}`);
      let up;
      try {
        up = await connector.streamUplink({ pcm: pcms[i], sampleRate: rate }, { trailingSilence: true });
      } catch (e) {
        fail(endReasonOf(e), e);
        return;
      }
      const c = callerTurn(up.pcm, rate, up.firstFrameAt, up.endedAt, script, i, prepared[i].source, connector.trailingSilenceMs, up.frameLatenessMs);
      c.bargeIn = bargeIn;
      c.stopped = up.stopped;
      callers.push(c);
    }
    const last = callers[callers.length - 1];
    const reply = await replyAfter(last);
    if (reply) healthy(await reply.done);
  } finally {
    await seg.close();
    assembleDuplexTurns(record, callers, seg.turns, graceMs);
  }
}

/** Caller and agent turns in call order, with §L8 duplex latencies and barge-in outcomes. */
function assembleDuplexTurns(record: CallRecord, callers: CallerTurnRecord[], agents: LiveAgentTurn[], graceMs: number): void {
  const agentTurns: AgentTurnRecord[] = [];
  for (const a of agents) {
    const t = a.result ?? null;
    if (!t || t.pcm.length === 0) continue;
    const answered = [...callers].reverse().find((c) => c.startedAt < a.firstAudioAt) ?? null;
    const end = a.firstAudioAt + (t.pcm.length / t.sampleRate) * 1000;
    const barge = callers.find((c) => c.bargeIn && c.startedAt > a.firstAudioAt && c.startedAt < end);
    const interrupted = barge !== undefined && end <= barge.startedAt + graceMs;
    if (barge) barge.bargeInHonoured = interrupted;
    agentTurns.push({
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
    });
  }
  const all = [...callers, ...agentTurns];
  all.sort((x, y) => x.startedAt! - y.startedAt! || (x.role === "user" ? -1 : 1));
  record.turns.push(...all);
}
