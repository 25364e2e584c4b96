// HTTP client of OpenAI-compatible APIs (base URL, key, per-request timeout, retries on 429/5xx honouring Retry-After) shared by the TTS, STT and chat models.
import { SpeechModelError, type SpeechModelErrorCode } from "./errors.js";
import { overlayOptions } from "./options.js";

/** Connection options of an OpenAI-compatible service. */
export interface OpenAIClientOptions {
  /**
   * API root including its version prefix, as the OpenAI SDKs take it (`http://127.0.0.1:8000/v1`); null = $OPENAI_BASE_URL, else OpenAI's.
   * @defaultValue null
   */
  baseUrl: string | null;
  /**
   * The API key; null = read from the environment variable `apiKeyEnv`. Sent as a bearer token, never logged or written out.
   * @defaultValue null
   */
  apiKey: string | null;
  /**
   * Environment variable that holds the key when `apiKey` is null.
   * @defaultValue "OPENAI_API_KEY"
   */
  apiKeyEnv: string;
  /**
   * Limit on each request, response body included (ms); a request that takes longer counts as a failed attempt.
   * @defaultValue 60000
   */
  timeoutMs: number;
  /**
   * Further attempts after a 429, a 5xx, a timeout or a connection failure.
   * @defaultValue 2
   */
  maxRetries: number;
  /**
   * First back-off (ms), doubled at each retry, with up to half of it taken off at random so parallel callers spread out.
   * @defaultValue 500
   */
  retryBaseDelayMs: number;
  /**
   * Longest wait before a retry (ms); a Retry-After asking for more ends the call at once.
   * @defaultValue 20000
   */
  retryMaxDelayMs: number;
}

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Defaults of the OpenAI-compatible HTTP client (base URL, key variable, retries, timeouts). */
export const DEFAULT_OPENAI_CLIENT_OPTIONS: Readonly<OpenAIClientOptions> = Object.freeze({
  baseUrl: null,
  apiKey: null,
  apiKeyEnv: "OPENAI_API_KEY",
  timeoutMs: 60_000,
  maxRetries: 2,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 20_000,
});

/** The options with the base URL settled; the key is not part of them (only the client holds it). */
export type ResolvedOpenAIClientOptions = Omit<OpenAIClientOptions, "apiKey" | "baseUrl"> & { baseUrl: string };

const RANGES: Partial<Record<keyof OpenAIClientOptions, [number, number]>> = {
  timeoutMs: [1, 3_600_000],
  maxRetries: [0, 10],
  retryBaseDelayMs: [0, 60_000],
  retryMaxDelayMs: [0, 600_000],
};

/** Defaults overlaid with `partial` and the environment; throws a RangeError naming a bad field. */
export function resolveOpenAIClientOptions(partial: Partial<OpenAIClientOptions> = {}, env: Record<string, string | undefined> = process.env): ResolvedOpenAIClientOptions {
  const o = overlayOptions(DEFAULT_OPENAI_CLIENT_OPTIONS, partial, "OpenAI client");
  for (const [key, [lo, hi]] of Object.entries(RANGES) as [keyof OpenAIClientOptions, [number, number]][]) {
    const v = o[key];
    if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`OpenAI client option ${key} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  }
  if (typeof o.apiKeyEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.apiKeyEnv)) throw new RangeError(`OpenAI client option apiKeyEnv must be an environment variable name, got ${String(o.apiKeyEnv)}`);
  const baseUrl = (o.baseUrl ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new RangeError(`OpenAI client option baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new RangeError(`OpenAI client option baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  const { apiKey: _key, baseUrl: _base, ...rest } = o;
  return { ...rest, baseUrl };
}

/** What `onRetry` hears before each retry: never a header or a key. */
export interface RetryEvent {
  /** `POST http://host/v1/chat/completions` (credentials in the URL are cut). */
  endpoint: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** HTTP status of the failed attempt, or the error code of a timeout / connection failure. */
  reason: number | SpeechModelErrorCode;
  /** Wait before the next attempt (ms). */
  delayMs: number;
}

/** What a model's constructor takes besides its options: the environment to read (tests pass their own) and a retry listener. */
export interface OpenAIClientHooks {
  /** Variables to read instead of process.env. */
  env?: Record<string, string | undefined>;
  /** Called before each retry (for progress on stderr); never given a header or the key. */
  onRetry?: (event: RetryEvent) => void;
}

/** One request: a JSON body or a multipart form. */
export interface OpenAIRequest {
  /** Path below the base URL, e.g. `/audio/speech`. */
  path: string;
  json?: unknown;
  form?: FormData;
  /** The model named in errors. */
  model: string;
  signal?: AbortSignal;
}

/** A successful (2xx) response, body read. */
export interface OpenAIResponse {
  status: number;
  contentType: string;
  body: Uint8Array;
  headers: Headers;
}

const RETRYABLE_STATUS = (status: number) => status === 429 || status >= 500;
const BODY_EXCERPT_CHARS = 300;

/** Client of one OpenAI-compatible service; the key lives in a private field so it never shows in logs, JSON or inspection. */
export class OpenAIClient {
  readonly options: Readonly<ResolvedOpenAIClientOptions>;
  readonly #apiKey: string | null;
  readonly #onRetry: ((event: RetryEvent) => void) | null;

  constructor(options: Partial<OpenAIClientOptions> = {}, extra: OpenAIClientHooks = {}) {
    const env = extra.env ?? process.env;
    this.options = Object.freeze(resolveOpenAIClientOptions(options, env));
    const key = options.apiKey ?? env[this.options.apiKeyEnv] ?? null;
    this.#apiKey = key === "" ? null : key;
    this.#onRetry = extra.onRetry ?? null;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** True when a key will be sent. */
  get hasApiKey(): boolean {
    return this.#apiKey !== null;
  }

  toJSON(): { baseUrl: string; hasApiKey: boolean } {
    return { baseUrl: this.baseUrl, hasApiKey: this.hasApiKey };
  }

  /** The URL shown in messages: credentials cut, path appended. */
  endpointOf(path: string): string {
    const url = new URL(this.baseUrl + path);
    url.username = "";
    url.password = "";
    return url.toString();
  }

  /** Replace the key wherever a server echoed it back. */
  redact(text: string): string {
    return this.#apiKey && this.#apiKey.length >= 4 ? text.split(this.#apiKey).join("[redacted]") : text;
  }

  /** POST the request; retries as the options say; resolves with a 2xx response or rejects with a SpeechModelError. */
  async post(request: OpenAIRequest): Promise<OpenAIResponse> {
    const { model, signal } = request;
    const url = this.baseUrl + request.path;
    const endpoint = `POST ${this.endpointOf(request.path)}`;
    const headers: Record<string, string> = { accept: "*/*" };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    let body: string | FormData;
    if (request.form) {
      body = request.form;
    } else {
      headers["content-type"] = "application/json";
      body = JSON.stringify(request.json ?? {});
    }
    const fail = (code: SpeechModelErrorCode, detail: string, attempts: number, status?: number) =>
      new SpeechModelError(code, `${model}: ${endpoint}: ${this.redact(detail)}`, { model, endpoint, status, attempts });

    const attempts = this.options.maxRetries + 1;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw fail("ABORTED", "cancelled", attempt - 1);
      const timeout = AbortSignal.timeout(this.options.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let failure: SpeechModelError;
      let retryAfterMs: number | null = null;
      try {
        const response = await fetch(url, { method: "POST", headers, body, signal: combined });
        const bytes = new Uint8Array(await response.arrayBuffer());
        const contentType = response.headers.get("content-type") ?? "";
        if (response.ok) return { status: response.status, contentType, body: bytes, headers: response.headers };
        const detail = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}: ${serverMessage(bytes, contentType)}`;
        const hint = response.status === 401 && !this.#apiKey ? ` (no API key was sent: set $${this.options.apiKeyEnv} or pass apiKey)` : "";
        failure = fail("MODEL_HTTP_ERROR", detail + hint, attempt, response.status);
        if (!RETRYABLE_STATUS(response.status)) throw failure;
        retryAfterMs = retryAfter(response.headers);
        if (retryAfterMs !== null && retryAfterMs > this.options.retryMaxDelayMs) {
          throw fail("MODEL_HTTP_ERROR", `${detail}; the server asks to retry after ${retryAfterMs} ms, more than retryMaxDelayMs (${this.options.retryMaxDelayMs} ms)`, attempt, response.status);
        }
      } catch (e) {
        if (e instanceof SpeechModelError) throw e;
        if (signal?.aborted) throw fail("ABORTED", "cancelled", attempt);
        failure = timeout.aborted
          ? fail("MODEL_TIMEOUT", `no complete response within ${this.options.timeoutMs} ms`, attempt)
          : fail("MODEL_UNREACHABLE", `request failed: ${describeNetworkError(e)}`, attempt);
      }
      if (attempt >= attempts) {
        throw new SpeechModelError(failure.code as SpeechModelErrorCode, `${failure.detail} (after ${attempt} attempt${attempt > 1 ? "s" : ""})`, {
          model,
          endpoint,
          status: failure.status,
          attempts: attempt,
        });
      }
      const delayMs = retryAfterMs ?? this.backoffMs(attempt);
      this.#onRetry?.({ endpoint, attempt, reason: failure.status ?? (failure.code as SpeechModelErrorCode), delayMs });
      await sleep(delayMs, signal).catch(() => {
        throw fail("ABORTED", "cancelled while waiting to retry", attempt);
      });
    }
  }

  /** POST and parse a JSON response; a non-JSON content type or malformed JSON is MODEL_BAD_RESPONSE. */
  async postJson(request: OpenAIRequest): Promise<unknown> {
    const response = await this.post(request);
    const bad = (detail: string) => this.badResponse(request.model, request.path, detail, response.status);
    if (!/\bjson\b/i.test(response.contentType)) {
      throw bad(`expected a JSON response, got content-type ${JSON.stringify(response.contentType || "(none)")}: ${excerpt(response.body)}`);
    }
    const text = new TextDecoder().decode(response.body);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw bad(`the response is not valid JSON (${(e as Error).message}): ${excerpt(response.body)}`);
    }
  }

  /** A MODEL_BAD_RESPONSE error about the reply of `path` (the detail is redacted). */
  badResponse(model: string, path: string, detail: string, status?: number): SpeechModelError {
    const endpoint = `POST ${this.endpointOf(path)}`;
    return new SpeechModelError("MODEL_BAD_RESPONSE", `${model}: ${endpoint}: ${this.redact(detail)}`, { model, endpoint, status, attempts: 1 });
  }

  private backoffMs(attempt: number): number {
    const full = Math.min(this.options.retryMaxDelayMs, this.options.retryBaseDelayMs * 2 ** (attempt - 1));
    return Math.round(full / 2 + (Math.random() * full) / 2);
  }
}

/** Wait for `ms`, or reject as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Retry-After in ms: OpenAI's `retry-after-ms`, else `retry-after` as seconds or an HTTP date; null when absent or unreadable. */
export function retryAfter(headers: Headers, now: number = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The error text of a failed response: OpenAI's `{"error": {"message"}}` when present, else the start of the body. */
function serverMessage(body: Uint8Array, contentType: string): string {
  if (/json/i.test(contentType)) {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(body)) as { error?: { message?: unknown } | string; message?: unknown };
      const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
      if (typeof message === "string" && message) return message.slice(0, BODY_EXCERPT_CHARS);
    } catch {
      // Fall through to the raw excerpt.
    }
  }
  return excerpt(body);
}

function excerpt(body: Uint8Array): string {
  if (body.length === 0) return "(empty body)";
  const text = new TextDecoder("utf-8", { fatal: false }).decode(body.subarray(0, BODY_EXCERPT_CHARS * 4)).replace(/\s+/g, " ").trim();
  const printable = text.replace(/[^\x20-\x7e\u00a0-\uffff]/g, "?");
  return JSON.stringify(printable.length > BODY_EXCERPT_CHARS ? `${printable.slice(0, BODY_EXCERPT_CHARS)}…` : printable);
}

function describeNetworkError(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ""}`;
  return e instanceof Error ? e.message : String(e);
}
