// Duplex interruptions of voice-metrics.md §L6.2: the frequency policies, the overlap floor-control presets, the floor states, the heard-transcript cap, and the barge-in judges (rule-based, model).
import type { OpenAIChatModel } from "../speech/openai-chat.js";
import type { HeardTurn } from "./caller-policy.js";
import type { ConversationalGolden, InterruptionBehavior, InterruptionFrequency, OverlapPreset } from "./golden.js";

/** What `frequency` sets (§L6.2 table). */
export interface InterruptionPolicy {
  /** New partial-transcript characters needed before judging again. */
  minNewChars: number;
  /** Seconds of agent speech between judge calls. */
  minJudgeIntervalS: number;
  maxBargesPerCall: number;
  maxBargesPerUtterance: number;
}

/** Each frequency's barge-in policy: heard characters before judging, seconds between judgements, barges per call and per agent utterance. */
export const INTERRUPTION_POLICIES: Readonly<Record<InterruptionFrequency, Readonly<InterruptionPolicy>>> = Object.freeze({
  rare: Object.freeze({ minNewChars: 80, minJudgeIntervalS: 2.0, maxBargesPerCall: 1, maxBargesPerUtterance: 1 }),
  normal: Object.freeze({ minNewChars: 40, minJudgeIntervalS: 1.0, maxBargesPerCall: 4, maxBargesPerUtterance: 2 }),
  frequent: Object.freeze({ minNewChars: 20, minJudgeIntervalS: 0.5, maxBargesPerCall: 8, maxBargesPerUtterance: 3 }),
});

/** What `overlap` sets (§L6.2 table). */
export interface FloorControlPreset {
  /** A barge the agent has not yielded to within this long is a grace miss. */
  interruptGraceMs: number;
  /** `yield` only: the caller gives up after this much overlap. */
  overlapYieldMs: number;
  /** Silence after a yield before the caller restarts. */
  awkwardSilenceMs: number;
  /** Uniform back-off before a restart, [min, max] ms. */
  restartBackoffMs: readonly [number, number];
  retryAfterYield: boolean;
}

/** The overlap presets' floor-control timings (grace, yield, awkward silence, restart back-off, retries), in seconds. */
export const FLOOR_CONTROL_PRESETS: Readonly<Record<OverlapPreset, Readonly<FloorControlPreset>>> = Object.freeze({
  yield: Object.freeze({ interruptGraceMs: 800, overlapYieldMs: 350, awkwardSilenceMs: 500, restartBackoffMs: Object.freeze([0, 0]) as readonly [number, number], retryAfterYield: false }),
  adaptive: Object.freeze({ interruptGraceMs: 2000, overlapYieldMs: 600, awkwardSilenceMs: 800, restartBackoffMs: Object.freeze([200, 1200]) as readonly [number, number], retryAfterYield: true }),
  insist: Object.freeze({ interruptGraceMs: 5000, overlapYieldMs: 1200, awkwardSilenceMs: 400, restartBackoffMs: Object.freeze([100, 500]) as readonly [number, number], retryAfterYield: true }),
});

/** The bare floor controller's settings (no preset): 5000 / 600 / 800 / (200, 1200) / retry. */
export const DEFAULT_FLOOR_CONTROL: Readonly<FloorControlPreset> = Object.freeze({
  interruptGraceMs: 5000,
  overlapYieldMs: 600,
  awkwardSilenceMs: 800,
  restartBackoffMs: Object.freeze([200, 1200]) as readonly [number, number],
  retryAfterYield: true,
});

/** A state of the duplex floor controller. */
export type FloorState = "listening" | "barging" | "overlap" | "grace_wait" | "frustrated_yield" | "awkward_silence" | "restart_barge";
/** Every state of the duplex floor controller, in the order of a barge-in's life. */
export const FLOOR_STATES: readonly FloorState[] = Object.freeze(["listening", "barging", "overlap", "grace_wait", "frustrated_yield", "awkward_silence", "restart_barge"]);

/** The duplex loop's period (§L6.2). */
export const FLOOR_POLL_MS = 50;
/** What the caller says when the agent ignored its barge for the whole grace period. */
export const FRUSTRATED_UTTERANCE = "Sorry — go ahead.";
/** Characters of connector transcript heard per second of delivered agent audio. */
export const HEARD_CHARS_PER_SECOND = 13;

/**
 * What the caller has heard of a connector transcript after `deliveredS` seconds of agent audio:
 * at most 13 characters per second, cut back to a whole word (§L6.2).
 */
export function heardTranscript(transcript: string, deliveredS: number): string {
  const cap = Math.floor(HEARD_CHARS_PER_SECOND * Math.max(0, deliveredS));
  if (transcript.length <= cap) return transcript;
  if (cap <= 0) return "";
  const cut = transcript.slice(0, cap);
  // Whole words only: the character after the cut must start a new word.
  if (/\s/.test(transcript[cap])) return cut.trimEnd();
  const space = cut.search(/\s\S*$/);
  return space < 0 ? "" : cut.slice(0, space).trimEnd();
}

/** A small seeded generator (mulberry32): the rule judge and the restart back-off draw from it, so a seed replays a call. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a judge sees when it is asked. */
export interface JudgeInput {
  golden: ConversationalGolden;
  behavior: InterruptionBehavior;
  history: readonly HeardTurn[];
  /** The heard partial transcript of the agent's current reply. */
  heard: string;
  /** Seconds of agent speech delivered in this reply. */
  elapsedS: number;
  /** Judgements already made during this reply. */
  judgementIndex: number;
  /** An earlier barge in this call missed its grace period (the agent talked over the caller). */
  frustrated?: boolean;
  signal?: AbortSignal;
}

/** A judge's answer: whether to barge in now, why, what to cut in with (or null to ask the caller policy), and the model cost. */
export interface JudgeDecision {
  shouldInterrupt: boolean;
  reason: string;
  /** What to cut in with (null: ask the caller policy). */
  utterance: string | null;
  costUsd: number | null;
}

/** Decides whether the caller barges in now, from the heard partial transcript and elapsed agent speech (rule-based or model). */
export interface InterruptionJudge {
  readonly kind: "rule" | "model";
  decide(input: JudgeInput): Promise<JudgeDecision>;
}

/** Chance that a judgement says "interrupt", per frequency (rule judge). */
export const RULE_JUDGE_INTERRUPT_PROBABILITY: Readonly<Record<InterruptionFrequency, number>> = Object.freeze({ rare: 0.5, normal: 0.6, frequent: 0.75 });

/**
 * The built-in judge: deterministic for a seed. The loop only asks it when the policy allows a
 * judgement (enough new heard characters and agent speech since the last one, limits not reached);
 * it then interrupts with the frequency's probability, drawn from the seeded generator, so the same
 * sequence of judgements gives the same decisions.
 */
export class RuleBasedJudge implements InterruptionJudge {
  readonly kind = "rule";
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = seededRandom(seed ^ 0x5bd1e995);
  }

  async decide(input: JudgeInput): Promise<JudgeDecision> {
    const p = RULE_JUDGE_INTERRUPT_PROBABILITY[input.behavior.frequency];
    const draw = this.random();
    const shouldInterrupt = draw < p;
    return {
      shouldInterrupt,
      reason: `rule judge (${input.behavior.frequency}): draw ${draw.toFixed(3)} ${shouldInterrupt ? "<" : "≥"} ${p} after ${input.heard.length} heard characters, ${input.elapsedS.toFixed(2)} s of agent speech`,
      utterance: null,
      costUsd: null,
    };
  }
}

const LEVEL_GUIDANCE: Readonly<Record<InterruptionFrequency, string>> = Object.freeze({
  rare: "You almost never interrupt: only when the agent is clearly wrong or wastes a lot of your time.",
  normal: "You interrupt like an ordinary caller: when the agent misunderstood you, repeats itself or you already know what it is about to say.",
  frequent: "You are impatient and interrupt often, as soon as you have heard enough to answer or object.",
});

/** Added to the judge prompt once a barge of this call was talked over (a grace miss). */
export const FRUSTRATION_GUIDANCE = "Earlier in this call you tried to cut in and the agent talked over you until you gave up: you are frustrated and less patient now.";

interface ModelJudgeReply {
  should_interrupt?: unknown;
  reason?: unknown;
  utterance?: unknown;
}

/** The judge prompt: persona, scenario, previous turns, the heard partial transcript, and the reply format {should_interrupt, reason, utterance}. */
export function modelJudgeMessages(input: JudgeInput): Array<{ role: "system" | "user"; content: string }> {
  const p = input.golden.persona;
  const history = input.history.map((t) => `${t.role === "caller" ? "You" : "Agent"}: ${t.text || "(silence)"}`).join("\n");
  return [
    {
      role: "system",
      content: [
        "You decide whether a caller on a phone call cuts in while the voice agent is still talking.",
        p ? `The caller: ${p.characteristics}` : null,
        `Scenario: ${input.golden.scenario}`,
        LEVEL_GUIDANCE[input.behavior.frequency],
        input.frustrated ? FRUSTRATION_GUIDANCE : null,
        'Answer with a JSON object only: {"should_interrupt": true|false, "reason": "<why>", "utterance": "<what the caller says when cutting in, or null>"}.',
      ]
        .filter((l): l is string => l !== null)
        .join("\n"),
    },
    { role: "user", content: `${history ? `Conversation so far:\n${history}\n` : ""}The agent is saying (heard so far): "${input.heard}"` },
  ];
}

/** Asks a chat model; a failing or malformed reply throws (the call ends with end_reason caller_model_error). */
export class ModelJudge implements InterruptionJudge {
  readonly kind = "model";

  constructor(private readonly model: OpenAIChatModel) {}

  async decide(input: JudgeInput): Promise<JudgeDecision> {
    const r = await this.model.completeJson<ModelJudgeReply>(modelJudgeMessages(input), { signal: input.signal });
    const j = r.json;
    const bad = (d: string) => this.model.client.badResponse(this.model.modelName, "/chat/completions", d);
    if (j === null || typeof j !== "object" || Array.isArray(j)) throw bad("the judge reply is not a JSON object");
    if (typeof j.should_interrupt !== "boolean") throw bad('the judge reply has no boolean "should_interrupt"');
    if (j.utterance !== undefined && j.utterance !== null && typeof j.utterance !== "string") throw bad('the judge reply\'s "utterance" must be a string or null');
    const utterance = typeof j.utterance === "string" && j.utterance.trim() !== "" ? j.utterance.trim() : null;
    return { shouldInterrupt: j.should_interrupt, reason: typeof j.reason === "string" ? j.reason : "", utterance, costUsd: r.costUsd };
  }
}

/**
 * Gate of judge calls during one agent reply (§L6.2 frequency policy). Judgement k (from 0) waits
 * for (k + 1) × minNewChars heard characters, and minJudgeIntervalS of agent speech since the last
 * one: the thresholds sit on a fixed grid of the heard transcript, so the same reply gives the same
 * judgements however the 50 ms loop's ticks fall.
 */
export class JudgeGate {
  private lastAtS = -Infinity;
  judgements = 0;

  constructor(private readonly policy: InterruptionPolicy) {}

  /** True when a judgement may be made now. */
  ready(heardChars: number, elapsedS: number): boolean {
    return heardChars >= (this.judgements + 1) * this.policy.minNewChars && elapsedS - this.lastAtS >= this.policy.minJudgeIntervalS - 1e-9;
  }

  mark(_heardChars: number, elapsedS: number): void {
    this.lastAtS = elapsedS;
    this.judgements++;
  }
}
