// One simulated call: a golden's caller (persona, policy, TTS, STT) holds a call with an agent through a connector, half-duplex or duplex with §L6.2 floor control, into a CallRecord.
import { Audio } from "../model/audio.js";
import { VoxError } from "../model/errors.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { decodeAudio } from "../audio/decode.js";
import { downmixTruncating } from "../audio/convert.js";
import type { SpeechToText, TextToSpeech } from "../speech/types.js";
import { monotonicMs, sleepUntil } from "../connectors/clock.js";
import { pcmAt } from "../connectors/pcm-input.js";
import type { CollectedAgentTurn, TurnProgress } from "../connectors/turn-engine.js";
import type { AgentTurnRecord, CallRecord, CallerTurnRecord, EndReason, SimulationEndReason } from "../connectors/capture.js";
import type { UplinkResult, VoiceConnector } from "../connectors/types.js";
import { BackgroundNoise } from "./background-noise.js";
import type { CallerPolicy, CallerUtterance, HeardTurn } from "./caller-policy.js";
import {
  DEFAULT_FLOOR_CONTROL,
  FLOOR_CONTROL_PRESETS,
  FLOOR_POLL_MS,
  FRUSTRATED_UTTERANCE,
  INTERRUPTION_POLICIES,
  JudgeGate,
  RuleBasedJudge,
  heardTranscript,
  seededRandom,
  type FloorState,
  type InterruptionJudge,
} from "./floor-control.js";
import { DEFAULT_INTERRUPTION_BEHAVIOR, type ConversationalGolden, type InterruptionBehavior } from "./golden.js";
import { closeCall, connectCall, openCallRecord } from "./scripted-call.js";
import { DownlinkSegmenter, duplexAgentTurn, pushInCallOrder, type SegmentedTurn } from "./downlink.js";
import { attachAgentHeard, spokenPrefix, type HeardArrival } from "./agent-heard.js";

/** Options of one simulated call: connector, caller policy, judge, speech models, duplex, turn limit, seed. */
export interface SimulateCallOptions {
  /** Call name (output file names). */
  name: string;
  /** What the caller says next. */
  policy: CallerPolicy;
  /** Speaks the caller's words (a persona's `voice` is passed to it). */
  tts: TextToSpeech;
  /**
   * Transcribes agent audio when the connector gives no transcript, and checks the agent's words
   * against its audio when it does (stt_transcript); null = connector transcripts only.
   * @defaultValue null
   */
  stt?: SpeechToText | null;
  /**
   * Duplex: agent audio is read while the caller talks, and the caller barges in per its persona.
   * @defaultValue false
   */
  duplex?: boolean;
  /** Barge-in judge (duplex); default: the rule-based judge seeded with `seed`. */
  judge?: InterruptionJudge | null;
  /**
   * Most caller utterances in one call.
   * @defaultValue 10
   */
  maxTurns?: number;
  /**
   * Seed of the rule judge and the restart back-off: the same seed replays the same decisions.
   * @defaultValue 0
   */
  seed?: number;
  /** Run-wide interruption behaviour for personas without one (deepeval's deprecated `interruption_settings`). */
  interruption?: InterruptionBehavior | null;
  /** Connector settings recorded in the output (never secrets). */
  connectorInfo?: Record<string, unknown>;
  onProgress?: (message: string) => void;
}

/** Defaults of one simulated call: half-duplex, at most 10 caller turns, seed 0. */
export const DEFAULT_SIMULATE_CALL_OPTIONS = Object.freeze({ duplex: false, maxTurns: 10, seed: 0 });

/** deepeval's half-duplex probe when the agent speaks first, and a muted caller's turn: 1.0 s of digital silence. */
const SILENT_TURN_S = 1.0;
/** The agent counts as still talking while its last speech frame is this recent. */
const AGENT_QUIET_MS = 150;
/** A streaming STT fallback pass per this much new agent audio (no connector transcript). */
const STT_FALLBACK_STEP_S = 1.0;
/** Duplex: how often the agent's transcriptions of the caller are looked for (their arrival times place them). */
const HEARD_POLL_MS = 20;

interface Costs {
  tts: number | null;
  stt: number | null;
  chat: number | null;
}

function addCost(costs: Costs, key: keyof Costs, value: number | null): void {
  if (value === null || value === undefined) return;
  costs[key] = (costs[key] ?? 0) + value;
}

/** Ends the call from deep inside the loop. */
class EndCall extends Error {
  constructor(readonly reason: EndReason | SimulationEndReason, readonly cause_: unknown = null) {
    super(reason);
  }
}

function endReasonOf(error: unknown): EndReason {
  return error instanceof VoxError && error.code === "AGENT_HANGUP" ? "agent_hangup" : "error";
}

function monoPcm(audio: Audio): { pcm: Int16Array; sampleRate: number } {
  const d = decodeAudio(audio.getBytes(), { name: "speech" });
  return { pcm: d.channels === 1 ? d.samples : downmixTruncating(d.samples, d.channels), sampleRate: d.sampleRate };
}

/** The caller's side of a call: persona, speech, costs and history; shared by both modes. */
class Caller {
  readonly persona;
  readonly history: HeardTurn[] = [];
  readonly costs: Costs = { tts: null, stt: null, chat: null };
  readonly warnings: string[] = [];
  readonly floorEvents: Array<{ state: FloorState; at_s: number; turn?: number }> = [];
  callerTurns = 0;
  /** Barges of this call that missed their grace period. */
  graceMisses = 0;
  readonly maxTurns: number;
  readonly noise: BackgroundNoise | null;
  readonly random: () => number;
  private callerTranscriptsSeen = 0;

  constructor(
    readonly golden: ConversationalGolden,
    readonly connector: VoiceConnector,
    readonly options: SimulateCallOptions,
    readonly log: (m: string) => void,
  ) {
    this.persona = golden.persona;
    this.maxTurns = options.maxTurns ?? DEFAULT_SIMULATE_CALL_OPTIONS.maxTurns;
    this.noise = this.persona?.backgroundNoise ? BackgroundNoise.load(this.persona.backgroundNoise, (m) => this.warn(m)) : null;
    this.random = seededRandom((options.seed ?? DEFAULT_SIMULATE_CALL_OPTIONS.seed) ^ 0x9e3779b9);
  }

  warn(m: string): void {
    this.warnings.push(m);
    this.log(`warning: ${m}`);
  }

  get muted(): boolean {
    return this.persona?.muted ?? false;
  }

  /** The next utterance from the policy (a muted caller with a model policy says nothing and asks nothing). */
  async next(interrupting: { heard: string } | null = null): Promise<CallerUtterance> {
    if (this.muted && this.options.policy.kind === "model") return { text: "", hangUp: false, outcomeReached: false, costUsd: null };
    let u: CallerUtterance;
    try {
      u = await this.options.policy.next({ golden: this.golden, history: this.history, callerTurns: this.callerTurns, maxTurns: this.maxTurns, interrupting });
    } catch (e) {
      throw new EndCall("caller_model_error", e);
    }
    addCost(this.costs, "chat", u.costUsd);
    return u;
  }

  /** The utterance as PCM at the connector's send rate: TTS (or 1.0 s of silence when muted), background noise mixed in. */
  async voice(text: string): Promise<{ pcm: Int16Array; source: string; text: string }> {
    let pcm: Int16Array;
    let rate: number;
    let source: string;
    const tts = this.options.tts;
    if (this.muted) {
      rate = tts.sampleRate;
      pcm = new Int16Array(Math.round(rate * SILENT_TURN_S));
      source = "muted";
    } else {
      try {
        const r = await tts.synthesize(text, { voice: this.persona?.voice ?? null });
        addCost(this.costs, "tts", r.costUsd);
        ({ pcm, sampleRate: rate } = monoPcm(r.audio));
      } catch (e) {
        throw new EndCall("caller_model_error", e);
      }
      source = `tts:${tts.modelName}`;
    }
    if (this.noise) pcm = this.noise.mix(pcm, rate);
    return { pcm: pcmAt({ pcm, sampleRate: rate }, this.connector.audioFormat.sampleRate, this.connector.resampler), source, text: this.muted ? "" : text };
  }

  /** STT of agent audio (language "auto" for a multilingual persona); padded when it was cut short. */
  async transcribe(pcm: Int16Array, sampleRate: number, truncated: boolean): Promise<string> {
    const stt = this.options.stt!;
    let samples = pcm;
    if (truncated && stt.truncatedAudioPadSeconds > 0) {
      samples = new Int16Array(pcm.length + Math.round(stt.truncatedAudioPadSeconds * sampleRate));
      samples.set(pcm);
    }
    try {
      const r = await stt.transcribe(Audio.fromBytes(writeWavPcm16(samples, sampleRate), "audio/wav"), this.persona?.multilingualStt ? { language: "auto" } : {});
      addCost(this.costs, "stt", r.costUsd);
      return r.text.trim();
    } catch (e) {
      throw new EndCall("caller_model_error", e);
    }
  }

  /** The caller's words as the agent transcribed them since the last call (realtime and ElevenLabs report them). */
  newAgentHeard(): string | null {
    const all = this.connector.callerTranscripts ?? [];
    if (all.length <= this.callerTranscriptsSeen) return null;
    const fresh = all.slice(this.callerTranscriptsSeen).join(" ");
    this.callerTranscriptsSeen = all.length;
    return fresh;
  }

  callerRecord(up: Pick<UplinkResult, "pcm" | "firstFrameAt" | "endedAt" | "frameLatenessMs" | "stopped">, text: string, source: string, metadata: Record<string, unknown> = {}): CallerTurnRecord {
    return {
      role: "user",
      pcm: up.pcm,
      sampleRate: this.connector.audioFormat.sampleRate,
      startedAt: up.firstFrameAt,
      uplinkEndedAt: up.endedAt,
      text,
      source,
      pauseBeforeS: 0,
      bargeIn: false,
      trailingSilenceMs: this.connector.trailingSilenceMs,
      frameLatenessMs: up.frameLatenessMs,
      stopped: up.stopped || undefined,
      metadata,
    };
  }
}

/**
 * Simulate one golden against a connector. The record is returned even when the call ends
 * abnormally (end_reason set, error filled); a model failure ends only this call
 * (end_reason caller_model_error).
 */
export async function simulateCall(golden: ConversationalGolden, connector: VoiceConnector, options: SimulateCallOptions): Promise<CallRecord> {
  const duplex = options.duplex ?? DEFAULT_SIMULATE_CALL_OPTIONS.duplex;
  if (duplex && !connector.supportsDuplex) throw new VoxError("NOT_SUPPORTED", `the ${connector.protocol} connector has no duplex mode`, { file: golden.origin });
  const maxTurns = options.maxTurns ?? DEFAULT_SIMULATE_CALL_OPTIONS.maxTurns;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new VoxError("INVALID_OPTION", `must be an integer ≥ 1, got ${maxTurns}`, { field: "maxTurns" });
  const log = (m: string) => options.onProgress?.(`[${options.name}] ${m}`);
  const caller = new Caller(golden, connector, options, log);
  const behavior = golden.persona?.interruptionBehavior ?? options.interruption ?? DEFAULT_INTERRUPTION_BEHAVIOR;
  const { record, end } = openCallRecord(
    connector,
    { name: options.name, duplex, connectorInfo: options.connectorInfo, warnings: caller.warnings, scenario: golden.scenario, expectedOutcome: golden.expectedOutcome, userDescription: golden.persona?.characteristics ?? null },
    log,
  );
  if (!(await connectCall(connector, record, end))) return record;
  log(`connected (${connector.protocol}, ${record.mode}, ${options.policy.kind} caller)`);
  try {
    if (duplex) await runDuplex(caller, record, behavior, end);
    else await runHalfDuplex(caller, record, end);
  } catch (e) {
    if (e instanceof EndCall) end(e.reason, e.cause_);
    else end("error", e);
  } finally {
    await closeCall(connector, record);
  }
  const p = golden.persona;
  record.metadata = {
    simulation: {
      caller: options.policy.kind,
      tts: options.tts.modelName,
      stt: options.stt?.modelName ?? null,
      judge: duplex ? (options.judge?.kind ?? "rule") : null,
      seed: options.seed ?? DEFAULT_SIMULATE_CALL_OPTIONS.seed,
      max_turns: maxTurns,
      caller_turns: caller.callerTurns,
      persona: p
        ? {
            name: p.name,
            characteristics: p.characteristics,
            speaks_first: p.speaksFirst,
            muted: p.muted,
            voice: p.voice,
            multilingual_stt: p.multilingualStt,
            hold_timeout: p.holdTimeout,
            background_noise: p.backgroundNoise ? { audio: p.backgroundNoise.audio, volume: p.backgroundNoise.volume, applied: caller.noise !== null } : null,
          }
        : null,
      interruption_behavior: duplex ? behavior : null,
      floor_events: duplex ? caller.floorEvents : undefined,
      cost_usd: caller.costs,
    },
  };
  log(`ended (${record.endReason ?? "?"}): ${record.turns.length} turn(s)`);
  return record;
}

/** Half-duplex: each caller utterance is one exchangeTurn(). */
async function runHalfDuplex(caller: Caller, record: CallRecord, end: (r: EndReason | SimulationEndReason, e?: unknown) => void): Promise<void> {
  const { connector } = caller;
  const rate = connector.audioFormat.sampleRate;
  const hold = caller.persona?.holdTimeout ?? null;
  let heldMs = 0;
  /** One exchange; returns false when the call is over. */
  const exchange = async (spoken: { pcm: Int16Array; source: string; text: string } | null): Promise<boolean> => {
    const pcm = spoken?.pcm ?? new Int16Array(Math.round(rate * SILENT_TURN_S));
    const t0 = monotonicMs();
    let ct;
    try {
      ct = await connector.exchangeTurn({ pcm, sampleRate: rate });
    } catch (e) {
      end(endReasonOf(e), e);
      return false;
    }
    const waitedMs = monotonicMs() - t0;
    let userTurn: CallerTurnRecord | null = null;
    if (spoken) {
      userTurn = caller.callerRecord(
        { pcm, firstFrameAt: ct.input_audio_started_at!, endedAt: ct.capture?.uplinkEndedAt ?? ct.input_audio_ended_at!, frameLatenessMs: ct.capture?.uplinkFrameLatenessMs ?? [], stopped: false },
        spoken.text,
        spoken.source,
      );
      record.turns.push(userTurn);
      caller.history.push({ role: "caller", text: spoken.text });
    }
    const reply = ct.audio_started_at == null ? null : monoPcm(ct.audio);
    let content = "";
    if (reply && reply.pcm.length > 0 && ct.audio_started_at != null) {
      const meta: Record<string, unknown> = {};
      const transcript = ct.transcript ?? null;
      let override: string | null = null;
      if (caller.options.stt) {
        const heard = await caller.transcribe(reply.pcm, reply.sampleRate, false);
        if (transcript !== null) meta.stt_transcript = heard;
        else {
          override = heard;
          meta.transcript_source = "stt";
        }
      }
      content = override ?? transcript ?? "";
      const turn: AgentTurnRecord = {
        role: "assistant",
        pcm: reply.pcm,
        sampleRate: reply.sampleRate,
        startedAt: ct.audio_started_at,
        readAt: ct.capture?.firstAudioReadAt ?? null,
        transcript,
        latencyMs: ct.latency_ms ?? null,
        endedBy: ct.capture?.endedBy ?? "turn_complete",
        interrupted: false,
        content: override,
        metadata: meta,
      };
      record.turns.push(turn);
      caller.history.push({ role: "agent", text: content });
      caller.log(`agent replied: ${(reply.pcm.length / reply.sampleRate).toFixed(2)} s${content ? `: ${JSON.stringify(content.slice(0, 60))}` : ""}`);
    }
    const heardByAgent = caller.newAgentHeard();
    if (userTurn && heardByAgent !== null) userTurn.metadata!.agent_transcript = heardByAgent;
    const endedBy = ct.capture?.endedBy ?? "turn_complete";
    if (endedBy === "closed") {
      end(endReasonOf(ct.capture?.error), ct.capture?.error ?? new VoxError("AGENT_HANGUP", "the connection closed"));
      return false;
    }
    // Consecutive exchanges whose reply has no words put the caller on hold.
    if (content.trim() === "") {
      heldMs += waitedMs;
      if (hold !== null) {
        if (heldMs >= hold * 1000) {
          caller.log(`on hold for ${(heldMs / 1000).toFixed(2)} s ≥ hold_timeout ${hold} s: hanging up`);
          record.warnings.push(`hold_timeout: ${(heldMs / 1000).toFixed(2)} s of consecutive silent agent exchanges`);
          end("hold_timeout");
          return false;
        }
        return true;
      }
    } else heldMs = 0;
    if (endedBy === "max_turn_timeout" && !reply) {
      end("idle_timeout", new VoxError("PROTOCOL_ERROR", `the agent did not answer within max_turn_timeout (${connector.turnDetection.maxTurnTimeoutS} s)`));
      return false;
    }
    return true;
  };
  if (caller.persona && !caller.persona.speaksFirst && !(await exchange(null))) return;
  for (;;) {
    if (caller.callerTurns >= caller.maxTurns) {
      end("max_turns");
      return;
    }
    const u = await caller.next();
    const spoken = await caller.voice(u.text);
    caller.callerTurns++;
    caller.log(`caller turn ${caller.callerTurns}: ${JSON.stringify(spoken.text)}`);
    if (!(await exchange(spoken))) return;
    if (u.hangUp) {
      end(u.outcomeReached ? "expected_outcome" : "caller_sign_off");
      return;
    }
  }
}

/** An agent turn as the duplex caller hears it: what the turn engine has kept so far, and the floor control's marks. */
class LiveTurn implements SegmentedTurn {
  result: CollectedAgentTurn | null = null;
  /** The turn engine's view of the turn in progress (null before its first event). */
  progress: TurnProgress | null = null;
  /** Set by the floor control. */
  interrupted = false;
  /** What the caller had heard when its barge succeeded. */
  heardAtCut: string | null = null;
  /** STT fallback: what was heard of the audio so far, and up to which sample. */
  sttHeard = "";
  sttUpTo = 0;

  constructor(
    readonly firstAudioAt: number,
    readonly done: Promise<CollectedAgentTurn>,
  ) {}

  /** Samples received so far (all of them once the turn ended). */
  get samples(): number {
    return this.result ? this.result.pcm.length : (this.progress?.samples ?? 0);
  }

  /** Monotonic ms of the last speech frame. */
  get lastSpeechAt(): number {
    return this.progress?.lastSpeechAt ?? this.firstAudioAt;
  }

  /** The connector transcript so far (the final one once the turn ended). */
  get transcript(): string | null {
    return this.result ? this.result.transcript : (this.progress?.transcript ?? null);
  }

  pcm(): Int16Array {
    return this.progress?.pcm() ?? new Int16Array(0);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Duplex: the caller speaks on a paced uplink while the agent's audio keeps arriving; the floor control barges in. */
async function runDuplex(caller: Caller, record: CallRecord, behavior: InterruptionBehavior, end: (r: EndReason | SimulationEndReason, e?: unknown) => void): Promise<void> {
  const { connector, options } = caller;
  const recvRate = connector.recvSampleRate;
  const capMs = connector.turnDetection.maxTurnTimeoutS * 1000;
  const policy = INTERRUPTION_POLICIES[behavior.frequency];
  const preset = FLOOR_CONTROL_PRESETS[behavior.overlap] ?? DEFAULT_FLOOR_CONTROL;
  const judge = options.judge ?? new RuleBasedJudge(options.seed ?? DEFAULT_SIMULATE_CALL_OPTIONS.seed);
  const hold = caller.persona?.holdTimeout ?? null;
  const seg = new DownlinkSegmenter(
    connector,
    (firstAudioAt, done) => new LiveTurn(firstAudioAt, done),
    (turn, progress) => (turn.progress = progress),
  );
  const callers: CallerTurnRecord[] = [];
  /** Each caller turn's whole clip (a cut turn's record keeps only what was sent). */
  const clips = new Map<CallerTurnRecord, Int16Array>();
  /** The agent's transcriptions of the caller, stamped on arrival. */
  const heard: HeardArrival[] = [];
  let heardSeen = 0;
  const pollHeard = () => {
    const all = connector.callerTranscripts ?? [];
    const now = monotonicMs();
    while (heardSeen < all.length) heard.push({ at: now, text: all[heardSeen++] });
  };
  const heardTimer = setInterval(pollHeard, HEARD_POLL_MS);
  const origin = record.connectedAt!;
  let bargesInCall = 0;
  let uplink: Promise<UplinkResult> | null = null;
  const state = (s: FloorState) => caller.floorEvents.push({ state: s, at_s: Math.round(monotonicMs() - origin) / 1000, turn: caller.callerTurns });

  const healthy = (): boolean => {
    const f = seg.final;
    if (f && f.endedBy === "closed") {
      end(endReasonOf(f.error), f.error ?? new VoxError("AGENT_HANGUP", "the connection closed"));
      return false;
    }
    return true;
  };

  /** Start streaming a clip; resolves when its first frame is out, with the uplink's completion. */
  const startUplink = async (pcm: Int16Array, trailingSilence: boolean): Promise<{ firstFrameAt: number; done: Promise<UplinkResult> }> => {
    if (uplink) {
      await connector.stopUplink();
      await uplink.catch(() => null);
    }
    let first!: (at: number) => void;
    const started = new Promise<number>((r) => (first = r));
    const done = connector.streamUplink({ pcm, sampleRate: connector.audioFormat.sampleRate }, { trailingSilence, onFirstFrame: (at) => first(at) });
    uplink = done;
    done.then(
      () => {},
      () => {},
    );
    const firstFrameAt = await Promise.race([started, done.then((r) => r.firstFrameAt)]);
    return { firstFrameAt, done };
  };

  /** Say a whole utterance (awaits the clip, not the trailing pad); returns its record once the clip has played. */
  const say = async (spoken: { pcm: Int16Array; source: string; text: string }, metadata: Record<string, unknown> = {}): Promise<CallerTurnRecord> => {
    const { firstFrameAt, done } = await startUplink(spoken.pcm, true);
    const clipMs = (spoken.pcm.length / connector.audioFormat.sampleRate) * 1000;
    await Promise.race([sleepUntil(firstFrameAt + clipMs), done.catch(() => null)]);
    const c = caller.callerRecord({ pcm: spoken.pcm, firstFrameAt, endedAt: firstFrameAt + clipMs + connector.trailingSilenceMs, frameLatenessMs: [], stopped: false }, spoken.text, spoken.source, metadata);
    void done.then(
      (r) => {
        c.frameLatenessMs = r.frameLatenessMs;
        c.uplinkEndedAt = r.endedAt;
        if (r.stopped && r.pcm.length < spoken.pcm.length) {
          c.pcm = r.pcm;
          c.stopped = true;
        }
      },
      (e) => end(endReasonOf(e), e),
    );
    callers.push(c);
    clips.set(c, spoken.pcm);
    caller.history.push({ role: "caller", text: spoken.text });
    return c;
  };

  const agentTalking = (t: LiveTurn) => t.result === null && monotonicMs() - t.lastSpeechAt < AGENT_QUIET_MS;

  /** The caller's view of the agent's reply so far: connector transcript capped at 13 chars/s, else the STT fallback. */
  const heardOf = (t: LiveTurn): string => {
    const deliveredS = t.samples / recvRate;
    if (t.transcript !== null) return heardTranscript(t.transcript, deliveredS);
    if (options.stt && t.samples - t.sttUpTo >= STT_FALLBACK_STEP_S * recvRate) {
      const upTo = t.samples;
      t.sttUpTo = upTo;
      const pcm = t.pcm().subarray(0, upTo);
      void caller.transcribe(pcm, recvRate, true).then(
        (text) => {
          if (t.sttUpTo === upTo) t.sttHeard = text;
        },
        () => {},
      );
    }
    return t.sttHeard;
  };

  /** Wait for agent silence of `ms` (its turn over, or no speech for that long). */
  const awaitSilence = async (t: LiveTurn, ms: number): Promise<void> => {
    while (t.result === null && monotonicMs() - t.lastSpeechAt < ms) await sleep(FLOOR_POLL_MS);
  };

  /**
   * Listen to one agent turn with floor control: the judge is asked when the frequency policy allows,
   * and a barge runs the §L6.2 states. Returns the caller turn that now awaits a reply (a successful
   * barge or a restart), or null when the agent's turn simply ended.
   */
  const listen = async (t: LiveTurn): Promise<{ pending: CallerTurnRecord | null; hangUp: boolean; outcome: boolean }> => {
    const gate = new JudgeGate(policy);
    let bargesHere = 0;
    let retriesHere = 0;
    state("listening");
    while (t.result === null) {
      if (!healthy()) throw new EndCall(record.endReason ?? "error");
      const limited = bargesInCall >= policy.maxBargesPerCall || bargesHere >= policy.maxBargesPerUtterance || caller.callerTurns >= caller.maxTurns || caller.muted;
      const heard = heardOf(t);
      const elapsedS = t.samples / recvRate;
      if (!limited && gate.ready(heard.length, elapsedS) && agentTalking(t)) {
        gate.mark(heard.length, elapsedS);
        let decision;
        try {
          decision = await judge.decide({ golden: caller.golden, behavior, history: caller.history, heard, elapsedS, judgementIndex: gate.judgements - 1, frustrated: caller.graceMisses > 0 });
        } catch (e) {
          throw new EndCall("caller_model_error", e);
        }
        addCost(caller.costs, "chat", decision.costUsd);
        if (decision.shouldInterrupt && agentTalking(t)) {
          state("barging");
          bargesInCall++;
          bargesHere++;
          const u = decision.utterance !== null ? { text: decision.utterance, hangUp: false, outcomeReached: false, costUsd: null } : await caller.next({ heard });
          const spoken = await caller.voice(u.text);
          caller.callerTurns++;
          caller.log(`barge-in ${bargesInCall} (${behavior.frequency}/${behavior.overlap}) after ${elapsedS.toFixed(2)} s of agent speech: ${JSON.stringify(spoken.text)}`);
          const { firstFrameAt, done } = await startUplink(spoken.pcm, true);
          const clipMs = (spoken.pcm.length / connector.audioFormat.sampleRate) * 1000;
          const c = caller.callerRecord({ pcm: spoken.pcm, firstFrameAt, endedAt: firstFrameAt + clipMs, frameLatenessMs: [], stopped: false }, spoken.text, spoken.source, { barge_in: true, judge_reason: decision.reason });
          c.bargeIn = true;
          callers.push(c);
          clips.set(c, spoken.pcm);
          caller.history.push({ role: "caller", text: spoken.text });
          state("overlap");
          let outcome: "yielded_to" | "early_yield" | "grace_miss" | null = null;
          let graceWait = false;
          let quietTicks = 0;
          while (outcome === null) {
            await sleep(FLOOR_POLL_MS);
            const overlapMs = monotonicMs() - firstFrameAt;
            // The agent has stopped when its turn ended, or when it has been quiet at two ticks in a row:
            // one quiet tick can be a stalled event loop whose queued frames are not read yet.
            quietTicks = agentTalking(t) ? 0 : quietTicks + 1;
            if (t.result !== null || quietTicks >= 2) outcome = "yielded_to";
            else if (behavior.overlap === "yield" && overlapMs >= preset.overlapYieldMs) outcome = "early_yield";
            else if (overlapMs >= preset.interruptGraceMs) outcome = "grace_miss";
            else if (!graceWait && behavior.overlap !== "yield" && overlapMs >= preset.overlapYieldMs) {
              graceWait = true;
              state("grace_wait");
            }
          }
          const settle = (r: UplinkResult) => {
            c.frameLatenessMs = r.frameLatenessMs;
            c.uplinkEndedAt = r.endedAt;
            c.pcm = r.pcm;
            if (r.stopped) c.stopped = true;
          };
          if (outcome === "yielded_to") {
            // The agent stopped for the caller: its turn was cut by a successful barge.
            t.interrupted = true;
            t.heardAtCut = heardOf(t);
            c.bargeInHonoured = true;
            state("listening");
            await Promise.race([sleepUntil(firstFrameAt + clipMs), done.catch(() => null)]);
            void done.then(settle, () => {});
            return { pending: c, hangUp: u.hangUp, outcome: u.outcomeReached };
          }
          c.bargeInHonoured = false;
          await connector.stopUplink();
          settle(await done);
          if (outcome === "grace_miss") {
            c.metadata!.frustrated = true;
            c.metadata!.grace_missed_ms = preset.interruptGraceMs;
            caller.graceMisses++;
            state("frustrated_yield");
            const sorry = await caller.voice(FRUSTRATED_UTTERANCE);
            await say(sorry, { frustrated_yield: true });
          } else c.metadata!.yielded_after_ms = preset.overlapYieldMs;
          if (preset.retryAfterYield && retriesHere < policy.maxBargesPerUtterance) {
            retriesHere++;
            state("awkward_silence");
            await awaitSilence(t, preset.awkwardSilenceMs);
            const [lo, hi] = preset.restartBackoffMs;
            await sleep(lo + (hi - lo) * caller.random());
            state("restart_barge");
            const again = await caller.voice(u.text);
            const r = await say(again, { restart: true, restart_of_barge: true });
            state("listening");
            return { pending: r, hangUp: u.hangUp, outcome: u.outcomeReached };
          }
          state("listening");
          continue;
        }
      }
      await sleep(FLOOR_POLL_MS);
    }
    return { pending: null, hangUp: false, outcome: false };
  };

  let heldMs = 0;
  try {
    let pending: CallerTurnRecord | null = null;
    let hangUp = false;
    let outcome = false;
    if (!caller.persona || caller.persona.speaksFirst) {
      const u = await caller.next();
      caller.callerTurns++;
      pending = await say(await caller.voice(u.text));
      hangUp = u.hangUp;
      outcome = u.outcomeReached;
    }
    for (;;) {
      if (hangUp) {
        if (uplink) await (uplink as Promise<UplinkResult>).catch(() => null);
        end(outcome ? "expected_outcome" : "caller_sign_off");
        return;
      }
      const from = pending ? pending.startedAt : -Infinity;
      const waitStart = pending ? pending.startedAt + (pending.pcm.length / connector.audioFormat.sampleRate) * 1000 : origin;
      const reply = await seg.turnAfter(from, waitStart + capMs);
      if (!healthy()) return;
      let agentText = "";
      if (reply) {
        const r = await listen(reply);
        if (!healthy()) return;
        agentText = reply.transcript ?? reply.sttHeard;
        if (r.pending) {
          caller.history.push({ role: "agent", text: reply.heardAtCut ?? agentText });
          pending = r.pending;
          hangUp = r.hangUp;
          outcome = r.outcome;
          heldMs = 0;
          continue;
        }
        const done = await reply.done;
        if (done.endedBy === "max_turn_timeout") {
          end("idle_timeout", new VoxError("PROTOCOL_ERROR", `the agent's turn did not end within max_turn_timeout (${connector.turnDetection.maxTurnTimeoutS} s)`));
          return;
        }
        if (reply.transcript === null && options.stt) agentText = await caller.transcribe(done.pcm, done.sampleRate, false);
        caller.history.push({ role: "agent", text: agentText });
      }
      if (agentText.trim() === "") {
        heldMs += monotonicMs() - waitStart;
        if (hold === null && !reply) {
          end("idle_timeout", new VoxError("PROTOCOL_ERROR", `the agent did not answer within max_turn_timeout (${connector.turnDetection.maxTurnTimeoutS} s)`));
          return;
        }
        if (hold !== null && heldMs >= hold * 1000) {
          record.warnings.push(`hold_timeout: ${(heldMs / 1000).toFixed(2)} s of consecutive silent agent exchanges`);
          end("hold_timeout");
          return;
        }
      } else heldMs = 0;
      if (caller.callerTurns >= caller.maxTurns) {
        end("max_turns");
        return;
      }
      const u = await caller.next();
      caller.callerTurns++;
      caller.log(`caller turn ${caller.callerTurns}: ${JSON.stringify(u.text)}`);
      pending = await say(await caller.voice(u.text));
      hangUp = u.hangUp;
      outcome = u.outcomeReached;
    }
  } finally {
    if (uplink) {
      await connector.stopUplink().catch(() => {});
      await (uplink as Promise<UplinkResult>).catch(() => null);
    }
    await seg.close();
    clearInterval(heardTimer);
    pollHeard();
    attachAgentHeard(callers, heard, callerReferences(callers, clips));
    await assembleDuplexTurns(caller, record, callers, seg.turns);
  }
}

/**
 * What each caller turn actually said: its text, or for a turn whose uplink was cut (a yield or a
 * grace miss) the spoken prefix of it, recorded as `spoken_fraction` of its speech.
 */
function callerReferences(callers: readonly CallerTurnRecord[], clips: ReadonlyMap<CallerTurnRecord, Int16Array>): Map<CallerTurnRecord, string> {
  const out = new Map<CallerTurnRecord, string>();
  for (const c of callers) {
    const full = clips.get(c);
    if (!c.stopped || !full || c.pcm.length >= full.length) continue;
    const p = spokenPrefix(c.text ?? "", full, c.pcm.length, c.sampleRate);
    c.metadata!.spoken_fraction = Math.round(p.fraction * 1000) / 1000;
    out.set(c, p.text);
  }
  return out;
}

/** Caller and agent turns in call order, with §L8 duplex latencies and the §L6.2 recorded metadata. */
async function assembleDuplexTurns(caller: Caller, record: CallRecord, callers: CallerTurnRecord[], agents: LiveTurn[]): Promise<void> {
  const agentTurns: AgentTurnRecord[] = [];
  const signals = caller.connector.signalsTurnComplete;
  for (const a of agents) {
    const t = a.result;
    if (!t || t.pcm.length === 0) continue;
    const meta: Record<string, unknown> = {};
    const endedWithoutSignal = signals && t.endedBy !== "turn_complete";
    const cut = a.interrupted || endedWithoutSignal;
    let content: string | null = null;
    if (cut) {
      // What the caller actually heard: STT of the audio played, else the capped connector transcript.
      let played = a.heardAtCut ?? heardTranscript(t.transcript ?? "", t.pcm.length / t.sampleRate);
      if (caller.options.stt) {
        try {
          played = await caller.transcribe(t.pcm, t.sampleRate, true);
        } catch (e) {
          caller.warn(`STT of a cut agent turn failed: ${(e as Error).message}`);
        }
      }
      content = played;
      if (t.transcript !== null && t.transcript !== played) meta.intended_content = t.transcript;
      if (endedWithoutSignal) meta.ended_without_agent_signal = true;
    } else if (t.transcript === null && caller.options.stt) {
      try {
        content = await caller.transcribe(t.pcm, t.sampleRate, false);
        meta.transcript_source = "stt";
      } catch (e) {
        caller.warn(`STT of an agent turn failed: ${(e as Error).message}`);
      }
    } else if (t.transcript !== null && caller.options.stt) {
      try {
        meta.stt_transcript = await caller.transcribe(t.pcm, t.sampleRate, false);
      } catch (e) {
        caller.warn(`STT of an agent turn failed: ${(e as Error).message}`);
      }
    }
    agentTurns.push(duplexAgentTurn(a, t, callers, a.interrupted, { content, metadata: meta }));
  }
  pushInCallOrder(record, callers, agentTurns);
}
