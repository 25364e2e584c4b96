// Chat completions through an OpenAI-compatible `POST /chat/completions`, with JSON replies and usage-based cost: what model callers and interruption judges ask.
import { SpeechModelError } from "./errors.js";
import { OpenAIClient, type OpenAIClientHooks, type OpenAIClientOptions } from "./openai-client.js";
import { overlayOptions } from "./options.js";

/** Price of a chat model in US dollars per 1 million prompt and completion tokens. */
export interface ChatPrice {
  inputPerMillionTokensUsd: number;
  outputPerMillionTokensUsd: number;
}

/** Options of the chat model. */
export interface OpenAIChatOptions {
  /**
   * Model name; null = $VOXMETRICS_CHAT_MODEL (there is no built-in default: pick one).
   * @defaultValue null
   */
  model: string | null;
  /**
   * Sampling temperature (0–2); null leaves the service default.
   * @defaultValue null
   */
  temperature: number | null;
  /**
   * Cap on the reply's tokens (`max_tokens`); null sends none.
   * @defaultValue null
   */
  maxTokens: number | null;
  /**
   * Seed for services that support reproducible sampling; null sends none.
   * @defaultValue null
   */
  seed: number | null;
  /**
   * Token prices for cost accounting; null = unknown (cost null).
   * @defaultValue null
   */
  price: ChatPrice | null;
  /**
   * Connection options (base URL, key, timeout, retries).
   * @defaultValue DEFAULT_OPENAI_CLIENT_OPTIONS
   */
  client: Partial<OpenAIClientOptions>;
}

/** Defaults of the OpenAI-compatible chat model. */
export const DEFAULT_OPENAI_CHAT_OPTIONS: Readonly<OpenAIChatOptions> = Object.freeze({
  model: null,
  temperature: null,
  maxTokens: null,
  seed: null,
  price: null,
  client: Object.freeze({}),
});

/** Defaults overlaid with `partial` and $VOXMETRICS_CHAT_MODEL; throws a RangeError naming a bad field. */
export function resolveOpenAIChatOptions(partial: Partial<OpenAIChatOptions> = {}, env: Record<string, string | undefined> = process.env): OpenAIChatOptions & { model: string } {
  const o = overlayOptions(DEFAULT_OPENAI_CHAT_OPTIONS, partial, "OpenAI chat");
  const model = o.model ?? env.VOXMETRICS_CHAT_MODEL ?? null;
  if (typeof model !== "string" || model === "") throw new RangeError("OpenAI chat option model is required: pass model or set $VOXMETRICS_CHAT_MODEL");
  if (o.temperature !== null && !(o.temperature >= 0 && o.temperature <= 2)) throw new RangeError(`OpenAI chat option temperature must be in [0, 2] or null, got ${String(o.temperature)}`);
  if (o.maxTokens !== null && !(Number.isInteger(o.maxTokens) && o.maxTokens >= 1)) throw new RangeError(`OpenAI chat option maxTokens must be a positive integer or null, got ${String(o.maxTokens)}`);
  if (o.seed !== null && !Number.isInteger(o.seed)) throw new RangeError(`OpenAI chat option seed must be an integer or null, got ${String(o.seed)}`);
  if (o.price !== null && !(o.price.inputPerMillionTokensUsd >= 0 && o.price.outputPerMillionTokensUsd >= 0)) throw new RangeError("OpenAI chat option price must hold non-negative token prices");
  return { ...o, model };
}

/** One chat message (role and content). */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Reply format: free text, any JSON object, or JSON following a schema (structured outputs). */
export type ChatResponseFormat = "text" | "json_object" | { name: string; schema: Record<string, unknown>; strict?: boolean };

/** Per-request chat options (temperature, response format, cancellation). */
export interface ChatRequestOptions {
  responseFormat?: ChatResponseFormat;
  signal?: AbortSignal;
}

/** A chat completion: the text, usage and cost. */
export interface ChatCompletion {
  content: string;
  /** `stop`, `length`, … as the service says; null when absent. */
  finishReason: string | null;
  /** Token counts the service reported; null when it reported none. */
  usage: { promptTokens: number; completionTokens: number } | null;
  /** From `usage` and the configured price; null when either is missing. */
  costUsd: number | null;
  /** The model that answered (the service's `model` field, else the one asked). */
  model: string;
}

interface RawCompletion {
  choices?: Array<{ message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  model?: unknown;
}

/** A chat model behind an OpenAI-compatible endpoint. */
export class OpenAIChatModel {
  readonly modelName: string;
  readonly options: Readonly<ReturnType<typeof resolveOpenAIChatOptions>>;
  readonly client: OpenAIClient;

  constructor(options: Partial<OpenAIChatOptions> = {}, extra: OpenAIClientHooks = {}) {
    this.options = Object.freeze(resolveOpenAIChatOptions(options, extra.env));
    this.client = new OpenAIClient(this.options.client, extra);
    this.modelName = this.options.model;
  }

  /** Ask for the next assistant message. */
  async complete(messages: readonly ChatMessage[], options: ChatRequestOptions = {}): Promise<ChatCompletion> {
    if (messages.length === 0) throw new SpeechModelError("INVALID_OPTION", `${this.modelName}: a chat completion needs at least one message`, { model: this.modelName });
    const o = this.options;
    const json: Record<string, unknown> = { model: o.model, messages: messages.map(({ role, content }) => ({ role, content })) };
    if (o.temperature !== null) json.temperature = o.temperature;
    if (o.maxTokens !== null) json.max_tokens = o.maxTokens;
    if (o.seed !== null) json.seed = o.seed;
    const format = options.responseFormat ?? "text";
    if (format === "json_object") json.response_format = { type: "json_object" };
    else if (typeof format === "object") json.response_format = { type: "json_schema", json_schema: { name: format.name, schema: format.schema, strict: format.strict ?? true } };

    const raw = (await this.client.postJson({ path: "/chat/completions", json, model: this.modelName, signal: options.signal })) as RawCompletion;
    const choice = Array.isArray(raw?.choices) ? raw.choices[0] : undefined;
    const content = choice?.message?.content;
    if (typeof content !== "string") {
      const refusal = typeof choice?.message?.refusal === "string" ? ` (refusal: ${choice.message.refusal})` : "";
      throw this.badResponse(`the reply has no choices[0].message.content string${refusal}`);
    }
    const prompt = raw.usage?.prompt_tokens;
    const completion = raw.usage?.completion_tokens;
    const usage = typeof prompt === "number" && typeof completion === "number" ? { promptTokens: prompt, completionTokens: completion } : null;
    const costUsd = usage && o.price ? (usage.promptTokens * o.price.inputPerMillionTokensUsd + usage.completionTokens * o.price.outputPerMillionTokensUsd) / 1e6 : null;
    return {
      content,
      finishReason: typeof choice?.finish_reason === "string" ? choice.finish_reason : null,
      usage,
      costUsd,
      model: typeof raw.model === "string" ? raw.model : this.modelName,
    };
  }

  /** Ask for a JSON reply (a JSON object unless a schema is given) and parse it; malformed JSON is MODEL_BAD_RESPONSE. */
  async completeJson<T = unknown>(messages: readonly ChatMessage[], options: ChatRequestOptions = {}): Promise<ChatCompletion & { json: T }> {
    const format = options.responseFormat === undefined || options.responseFormat === "text" ? "json_object" : options.responseFormat;
    const completion = await this.complete(messages, { ...options, responseFormat: format });
    try {
      return { ...completion, json: JSON.parse(completion.content) as T };
    } catch (e) {
      throw this.badResponse(`the reply is not valid JSON (${(e as Error).message}): ${JSON.stringify(completion.content.slice(0, 200))}`);
    }
  }

  private badResponse(detail: string): SpeechModelError {
    return this.client.badResponse(this.modelName, "/chat/completions", detail);
  }
}
