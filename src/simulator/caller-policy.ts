// What a simulated caller says next, behind one interface: the scripted policy (the golden's lines, then a sign-off) and the model policy (an OpenAI-compatible chat endpoint).
import type { ChatMessage, OpenAIChatModel } from "../speech/openai-chat.js";
import type { ConversationalGolden } from "./golden.js";

/** One line of the conversation so far, as the caller heard it. */
export interface HeardTurn {
  role: "caller" | "agent";
  text: string;
}

/** What a caller policy sees when choosing its next utterance: the golden (with its persona), the turns heard so far, how many it has spoken and may speak, and what it heard when about to barge in. */
export interface CallerContext {
  golden: ConversationalGolden;
  history: readonly HeardTurn[];
  /** Caller utterances spoken so far. */
  callerTurns: number;
  /** The most the caller may say in this call. */
  maxTurns: number;
  /** Set when the caller is about to barge in: what it has heard of the agent's current reply. */
  interrupting?: { heard: string } | null;
  signal?: AbortSignal;
}

/** The next caller utterance. */
export interface CallerUtterance {
  text: string;
  /** The caller hangs up after saying it (a sign-off). */
  hangUp: boolean;
  /** The model judged the golden's expected outcome reached. */
  outcomeReached: boolean;
  costUsd: number | null;
}

/** Decides what the simulated caller says next, and whether the call should end (scripted or model-driven). */
export interface CallerPolicy {
  readonly kind: "scripted" | "model";
  next(context: CallerContext): Promise<CallerUtterance>;
}

/** The scripted caller's sign-off once its lines are said (ends with "goodbye", so no reply is owed, §5.5). */
export const SCRIPTED_SIGN_OFF = "That's everything, thank you. Goodbye.";

/** Says the golden's caller lines in order (one per call of next), then the sign-off, and hangs up. */
export class ScriptedCallerPolicy implements CallerPolicy {
  readonly kind = "scripted";
  private i = 0;

  constructor(private readonly lines: readonly string[], private readonly signOff: string = SCRIPTED_SIGN_OFF) {}

  async next(_context: CallerContext): Promise<CallerUtterance> {
    if (this.i < this.lines.length) return { text: this.lines[this.i++], hangUp: false, outcomeReached: false, costUsd: null };
    return { text: this.signOff, hangUp: true, outcomeReached: false, costUsd: null };
  }
}

/** The JSON the model caller answers with. */
interface ModelCallerReply {
  utterance?: unknown;
  expected_outcome_reached?: unknown;
  end_call?: unknown;
}

/** The model caller's system prompt: persona, scenario, expected outcome, and the reply format. */
export function modelCallerPrompt(golden: ConversationalGolden): string {
  const p = golden.persona;
  return [
    "You are role-playing a person who phones a voice agent. Stay in character and speak as that person, in one or two short spoken sentences per turn.",
    p ? `Who you are: ${p.name ? `${p.name}, ` : ""}${p.characteristics}` : null,
    `Scenario: ${golden.scenario}`,
    golden.expectedOutcome ? `What you want to achieve: ${golden.expectedOutcome}` : null,
    golden.context?.length ? `What you know: ${golden.context.join(" ")}` : null,
    "The conversation so far follows: your own lines are the assistant messages, the agent's lines are the user messages.",
    'Answer with a JSON object only: {"utterance": "<what you say next>", "expected_outcome_reached": <true when what you wanted has been achieved>, "end_call": <true when you say goodbye and hang up>}.',
  ]
    .filter((l): l is string => l !== null)
    .join("\n");
}

/** Chat messages for the model caller: the prompt, then the call from its side. */
export function modelCallerMessages(context: CallerContext): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: modelCallerPrompt(context.golden) }];
  for (const t of context.history) messages.push({ role: t.role === "caller" ? "assistant" : "user", content: t.text === "" ? "(silence)" : t.text });
  if (context.history.length === 0) messages.push({ role: "user", content: "(the call has connected; you speak first)" });
  if (context.interrupting) messages.push({ role: "user", content: `(the agent is still talking; so far you heard: "${context.interrupting.heard}". You cut in now: say what you cut in with.)` });
  const left = context.maxTurns - context.callerTurns;
  if (left <= 1) messages.push({ role: "user", content: "(this is your last turn: wrap up and say goodbye; set end_call true)" });
  return messages;
}

/** Asks a chat model for each caller utterance; a bad or failing reply throws (the call ends with end_reason caller_model_error). */
export class ModelCallerPolicy implements CallerPolicy {
  readonly kind = "model";

  constructor(private readonly model: OpenAIChatModel) {}

  async next(context: CallerContext): Promise<CallerUtterance> {
    const r = await this.model.completeJson<ModelCallerReply>(modelCallerMessages(context), { signal: context.signal });
    const j = r.json;
    if (j === null || typeof j !== "object" || Array.isArray(j)) throw this.model.client.badResponse(this.model.modelName, "/chat/completions", "the caller reply is not a JSON object");
    if (typeof j.utterance !== "string" || j.utterance.trim() === "") throw this.model.client.badResponse(this.model.modelName, "/chat/completions", 'the caller reply has no non-empty "utterance" string');
    const outcomeReached = j.expected_outcome_reached === true;
    return { text: j.utterance.trim(), hangUp: j.end_call === true || outcomeReached, outcomeReached, costUsd: r.costUsd };
  }
}
