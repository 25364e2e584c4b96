// Runs one caller script against a connector, half-duplex (exchangeTurn) or duplex (paced uplink + segmented downlink, barge-ins), into a CallRecord.
import { readFileSync } from "node:fs";
import { guessMimeType, Audio } from "../model/audio.js";
import { VoxError, toVoxError } from "../model/errors.js";
import type { TextToSpeech } from "../speech/types.js";
import { monotonicMs, sleepUntil } from "../connectors/clock.js";
import { pcmAt } from "../connectors/pcm-input.js";
import type { CollectedAgentTurn } from "../connectors/turn-engine.js";
import type { AgentTurnRecord, CallRecord, CallerTurnRecord, EndReason, SimulationEndReason } from "../connectors/capture.js";
import type { VoiceConnector } from "../connectors/types.js";
import { decodeAudio } from "../audio/decode.js";
import type { CallScript } from "./script.js";
import { DownlinkSegmenter, duplexAgentTurn, pushInCallOrder, type SegmentedTurn } from "./downlink.js";

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

/** What a call record starts with (call name, mode, connector settings, what the call is about). */
export interface CallRecordFields {
  name: string;
  duplex: boolean;
  connectorInfo?: Record<string, unknown>;
  /** The record's warnings list (a caller may already hold it). */
  warnings?: string[];
  scenario?: string | null;
  expectedOutcome?: string | null;
  userDescription?: string | null;
}

/**
 * A new call record (connect time: now) and `end`, which sets its end_reason once and its error
 * once (`call <name>: …`, logged).
 */
export function openCallRecord(
  connector: VoiceConnector,
  fields: CallRecordFields,
  log: (m: string) => void,
): { record: CallRecord; end: (reason: EndReason | SimulationEndReason, e?: unknown) => void } {
  const record: CallRecord = {
    name: fields.name,
    protocol: connector.protocol,
    connector: fields.connectorInfo ?? { kind: connector.constructor.name },
    mode: fields.duplex ? "duplex" : "half-duplex",
    turnDetection: connector.turnDetection,
    latencyMeaning: latencyMeaning(connector.protocol, fields.duplex),
    connectStartedAt: monotonicMs(),
    connectedAt: null,
    endedAt: 0,
    turns: [],
    endReason: null,
    error: null,
    warnings: fields.warnings ?? [],
    callerTranscripts: [],
    scenario: fields.scenario,
    expectedOutcome: fields.expectedOutcome,
    ...(fields.userDescription !== undefined ? { userDescription: fields.userDescription } : {}),
  };
  const end = (reason: EndReason | SimulationEndReason, e: unknown = null) => {
    record.endReason ??= reason;
    if (!record.error && e) {
      const v = toVoxError(e);
      record.error = { code: v.code, message: `call ${fields.name}: ${v.message}` };
      log(`error: ${v.message}`);
    }
  };
  return { record, end };
}

/** Connect the call; false (end_reason error, the call over) when the connection failed. */
export async function connectCall(connector: VoiceConnector, record: CallRecord, end: (reason: EndReason, e: unknown) => void): Promise<boolean> {
  try {
    await connector.connect();
  } catch (e) {
    end("error", e);
    record.endedAt = monotonicMs();
    return false;
  }
  record.connectedAt = monotonicMs();
  return true;
}

/** Hang up and keep what the connector reported: the agent's transcriptions of the caller and its non-fatal errors. */
export async function closeCall(connector: VoiceConnector, record: CallRecord): Promise<void> {
  await connector.disconnect().catch(() => {});
  record.endedAt = monotonicMs();
  record.callerTranscripts.push(...(connector.callerTranscripts ?? []));
  record.warnings.push(...(connector.agentErrors ?? []).map((m) => `agent reported: ${m}`));
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
  const { record, end: fail } = openCallRecord(connector, { name: script.name, duplex, connectorInfo: options.connectorInfo, scenario: script.scenario, expectedOutcome: script.expectedOutcome }, log);
  if (!(await connectCall(connector, record, fail))) return record;
  log(`connected (${connector.protocol}, ${record.mode})`);
  try {
    const pcms = prepared.map((p) => pcmAt(p.audio, connector.audioFormat.sampleRate, connector.resampler));
    if (duplex) await runDuplex(script, connector, pcms, prepared, record, options, fail, log);
    else await runHalfDuplex(script, connector, pcms, prepared, record, fail, log);
  } catch (e) {
    fail("error", e);
  } finally {
    await closeCall(connector, record);
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
  const seg = new DownlinkSegmenter<SegmentedTurn>(connector, (firstAudioAt, done) => ({ firstAudioAt, done, result: null }));
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
  const replyAfter = async (after: CallerTurnRecord | null): Promise<SegmentedTurn | null> => {
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
function assembleDuplexTurns(record: CallRecord, callers: CallerTurnRecord[], agents: SegmentedTurn[], graceMs: number): void {
  const agentTurns: AgentTurnRecord[] = [];
  for (const a of agents) {
    const t = a.result ?? null;
    if (!t || t.pcm.length === 0) continue;
    const end = a.firstAudioAt + (t.pcm.length / t.sampleRate) * 1000;
    const barge = callers.find((c) => c.bargeIn && c.startedAt > a.firstAudioAt && c.startedAt < end);
    const interrupted = barge !== undefined && end <= barge.startedAt + graceMs;
    if (barge) barge.bargeInHonoured = interrupted;
    agentTurns.push(duplexAgentTurn(a, t, callers, interrupted));
  }
  pushInCallOrder(record, callers, agentTurns);
}
