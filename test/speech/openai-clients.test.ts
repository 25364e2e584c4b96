// OpenAI-compatible TTS, STT and chat clients against a local server that checks the documented request shapes, with timeouts, 429/Retry-After, 5xx, malformed JSON and wrong content types.
import { format, inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeAudio } from "../../src/audio/decode.js";
import { findFfmpeg } from "../../src/audio/ffmpeg.js";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { Audio } from "../../src/model/audio.js";
import {
  OpenAIChatModel,
  OpenAIClient,
  OpenAISpeechToText,
  OpenAITextToSpeech,
  resolveOpenAIClientOptions,
  retryAfter,
  SpeechModelError,
  type RetryEvent,
} from "../../src/speech/index.js";
import { SPEECH_SAMPLE_RATE, speechFor, startFakeOpenAI, TEST_KEY, type FakeOpenAI } from "./openai-server.js";

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

/** Client options for the local server: short timeouts and back-off so error paths stay fast. */
const local = (extra: Record<string, unknown> = {}) => ({ baseUrl: server.url, apiKey: TEST_KEY, timeoutMs: 2000, retryBaseDelayMs: 20, ...extra });

function wavAudio(seconds: number, rate = 16_000): Audio {
  const samples = new Int16Array(Math.round(seconds * rate)).map((_, i) => Math.round(3000 * Math.sin(i / 5)));
  return Audio.fromBytes(writeWavPcm16(samples, rate), "audio/wav");
}

async function failure(p: Promise<unknown>): Promise<SpeechModelError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SpeechModelError);
    return e as SpeechModelError;
  }
  throw new Error("expected the call to fail");
}

describe("POST /audio/speech (OpenAITextToSpeech)", () => {
  it("sends the documented JSON body and returns the WAV as Audio, with §L9 cost per character", async () => {
    const tts = new OpenAITextToSpeech({ client: local() }, { env: {} });
    const text = "Hello, I would like to book a table.";
    const { audio, costUsd } = await tts.synthesize(text);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.problems).toEqual([]);
    expect(req.path).toBe("/v1/audio/speech");
    expect(req.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(req.json).toEqual({ model: "gpt-4o-mini-tts", input: text, voice: "alloy", response_format: "wav" });
    expect(tts.modelName).toBe("gpt-4o-mini-tts");
    expect(tts.sampleRate).toBe(24_000);
    expect(audio.mimeType).toBe("audio/wav");
    const decoded = decodeAudio(audio.getBytes());
    expect(decoded.sampleRate).toBe(SPEECH_SAMPLE_RATE);
    expect(Array.from(decoded.samples)).toEqual(Array.from(speechFor(text)));
    expect(audio.duration).toBeCloseTo(decoded.frames / SPEECH_SAMPLE_RATE, 12);
    expect(costUsd).toBeCloseTo((text.length * 12) / 1e6, 15);
  });

  it("a call's voice wins over the default; speed and instructions are sent; tts-1-hd costs 30 per 1M characters", async () => {
    const tts = new OpenAITextToSpeech({ model: "tts-1-hd", voice: "nova", speed: 1.25, instructions: "Speak calmly.", client: local() }, { env: {} });
    const { costUsd } = await tts.synthesize("Hi", { voice: "echo" });
    expect(server.requests[0].json).toEqual({ model: "tts-1-hd", input: "Hi", voice: "echo", response_format: "wav", speed: 1.25, instructions: "Speak calmly." });
    expect(costUsd).toBeCloseTo((2 * 30) / 1e6, 15);
    // An unknown model has no price: cost null, not a guess.
    const other = new OpenAITextToSpeech({ model: "my-local-tts", client: local() }, { env: {} });
    expect((await other.synthesize("Hi")).costUsd).toBeNull();
  });

  it("response_format pcm: raw 16-bit PCM at 24 kHz is wrapped in a WAV", async () => {
    const tts = new OpenAITextToSpeech({ responseFormat: "pcm", client: local() }, { env: {} });
    const { audio } = await tts.synthesize("Twenty characters!!!");
    expect(server.requests[0].json?.response_format).toBe("pcm");
    const decoded = decodeAudio(audio.getBytes());
    expect([decoded.sampleRate, decoded.channels]).toEqual([24_000, 1]);
    expect(Array.from(decoded.samples)).toEqual(Array.from(speechFor("Twenty characters!!!")));
  });

  it("a streamed WAV (placeholder sizes) is re-written as a well-formed file", async () => {
    server.speechWavStyle = "streamed-wav";
    const { audio } = await new OpenAITextToSpeech({ client: local() }, { env: {} }).synthesize("Streaming.");
    const bytes = audio.getBytes();
    const v = new DataView(bytes.buffer, bytes.byteOffset);
    expect(v.getUint32(4, true)).toBe(bytes.length - 8);
    expect(v.getUint32(40, true)).toBe(bytes.length - 44);
  });

  it("a JSON or empty 200 instead of audio is MODEL_BAD_RESPONSE, not retried", async () => {
    const tts = new OpenAITextToSpeech({ client: local() }, { env: {} });
    server.queueFaults("/v1/audio/speech", { kind: "content-type", contentType: "application/json", body: '{"ok":true}' }, { kind: "empty" });
    const e1 = await failure(tts.synthesize("Hi"));
    expect(e1.code).toBe("MODEL_BAD_RESPONSE");
    expect(e1.message).toMatch(/expected audio, got content-type "application\/json"/);
    const e2 = await failure(tts.synthesize("Hi"));
    expect(e2.code).toBe("MODEL_BAD_RESPONSE");
    expect(e2.message).toMatch(/empty body/);
    expect(server.requests).toHaveLength(2);
  });
});

describe("POST /audio/transcriptions (OpenAISpeechToText)", () => {
  it("uploads the audio as multipart with model and response_format; language auto is omitted; token usage gives the §L9 cost", async () => {
    server.transcription = { text: " Book a table for two. ", usage: { type: "tokens", input_tokens: 1000, output_tokens: 50, total_tokens: 1050 } };
    const stt = new OpenAISpeechToText({ client: local() }, { env: {} });
    const audio = wavAudio(1.5);
    const r = await stt.transcribe(audio, { language: "auto" });
    expect(r.text).toBe("Book a table for two.");
    expect(r.costUsd).toBeCloseTo((1000 * 6 + 50 * 10) / 1e6, 15);
    const req = server.requests[0];
    expect(req.problems).toEqual([]);
    expect(req.fields).toEqual({ model: "gpt-4o-transcribe", response_format: "json" });
    expect(req.file?.name).toBe("audio.wav");
    expect(req.file?.type).toBe("audio/wav");
    expect(Buffer.from(req.file!.bytes).equals(Buffer.from(audio.getBytes()))).toBe(true);
    expect(stt.truncatedAudioPadSeconds).toBe(0.3);
  });

  it("an explicit language and prompt are sent; gpt-4o-mini-transcribe prices 3/5 per 1M tokens", async () => {
    server.transcription = { text: "bonjour", usage: { type: "tokens", input_tokens: 200, output_tokens: 10 } };
    const stt = new OpenAISpeechToText({ model: "gpt-4o-mini-transcribe", prompt: "Names: Zoë.", client: local() }, { env: {} });
    const r = await stt.transcribe(wavAudio(0.5), { language: "fr" });
    expect(server.requests[0].fields).toEqual({ model: "gpt-4o-mini-transcribe", response_format: "json", language: "fr", prompt: "Names: Zoë." });
    expect(r.costUsd).toBeCloseTo((200 * 3 + 10 * 5) / 1e6, 15);
  });

  it("whisper-1 costs $0.006 per minute: from the reported seconds, else from the clip's duration", async () => {
    const stt = new OpenAISpeechToText({ model: "whisper-1", client: local() }, { env: {} });
    server.transcription = { text: "hi", usage: { type: "duration", seconds: 90 } };
    expect((await stt.transcribe(wavAudio(1))).costUsd).toBeCloseTo(0.009, 15);
    server.transcription = { text: "hi" };
    expect((await stt.transcribe(wavAudio(30))).costUsd).toBeCloseTo(0.003, 15);
    // A token-priced model without usage: unknown, not zero.
    const tokens = new OpenAISpeechToText({ client: local() }, { env: {} });
    expect((await tokens.transcribe(wavAudio(1))).costUsd).toBeNull();
  });

  it("raw PCM audio (audio/pcm) is uploaded as a WAV at its sample rate", async () => {
    const samples = Int16Array.from({ length: 8000 }, (_, i) => (i % 100) * 50);
    const pcm = Audio.fromBytes(new Uint8Array(samples.buffer), "audio/pcm", { sampleRate: 8000 });
    await new OpenAISpeechToText({ client: local() }, { env: {} }).transcribe(pcm);
    const file = server.requests[0].file!;
    expect(file.name).toBe("audio.wav");
    const decoded = decodeAudio(file.bytes);
    expect([decoded.sampleRate, decoded.frames]).toEqual([8000, 8000]);
    expect(Array.from(decoded.samples)).toEqual(Array.from(samples));
  });

  it.skipIf(!findFfmpeg())("a format the service does not take (Opus in Ogg sent as audio/opus) is converted to a 16 kHz WAV with ffmpeg", async () => {
    const { spawnSync } = await import("node:child_process");
    const wav = wavAudio(1, 48_000).getBytes();
    const run = spawnSync(findFfmpeg()!, ["-hide_banner", "-loglevel", "error", "-f", "wav", "-i", "pipe:0", "-c:a", "libopus", "-f", "ogg", "pipe:1"], { input: wav });
    expect(run.status).toBe(0);
    await new OpenAISpeechToText({ client: local() }, { env: {} }).transcribe(Audio.fromBytes(new Uint8Array(run.stdout), "audio/opus"));
    const decoded = decodeAudio(server.requests[0].file!.bytes);
    expect([decoded.sampleRate, decoded.channels]).toEqual([16_000, 1]);
    expect(decoded.frames).toBeGreaterThan(15_000);
  });

  it("a JSON reply without a text string is MODEL_BAD_RESPONSE; a remote-URL audio is refused before any request", async () => {
    const stt = new OpenAISpeechToText({ client: local() }, { env: {} });
    server.queueFaults("/v1/audio/transcriptions", { kind: "content-type", contentType: "application/json", body: '{"transcript": "x"}' });
    expect((await failure(stt.transcribe(wavAudio(0.2)))).code).toBe("MODEL_BAD_RESPONSE");
    const remote = new Audio({ url: "https://example.invalid/a.wav" });
    const e = await failure(stt.transcribe(remote));
    expect(e.code).toBe("INVALID_AUDIO");
    expect(server.requests).toHaveLength(1);
  });
});

describe("POST /chat/completions (OpenAIChatModel)", () => {
  const messages = [
    { role: "system" as const, content: "You are a caller." },
    { role: "user" as const, content: "What do you say next?" },
  ];

  it("sends model, messages and options; returns content, finish reason, usage and the cost from given prices", async () => {
    server.chat = { content: "I'd like a table for two.", usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 } };
    const chat = new OpenAIChatModel({ model: "local-llm", temperature: 0, maxTokens: 50, seed: 7, price: { inputPerMillionTokensUsd: 2, outputPerMillionTokensUsd: 8 }, client: local() }, { env: {} });
    const r = await chat.complete(messages);
    expect(server.requests[0].problems).toEqual([]);
    expect(server.requests[0].json).toEqual({ model: "local-llm", messages, temperature: 0, max_tokens: 50, seed: 7 });
    expect(r).toEqual({ content: "I'd like a table for two.", finishReason: "stop", usage: { promptTokens: 120, completionTokens: 8 }, costUsd: (120 * 2 + 8 * 8) / 1e6, model: "local-llm" });
  });

  it("completeJson asks for a JSON object (or a schema) and parses it; no prices or no usage means cost null", async () => {
    server.chat = { content: '{"should_interrupt": true, "reason": "impatient", "utterance": "Sorry, quick question"}' };
    const chat = new OpenAIChatModel({ client: local() }, { env: { VOXMETRICS_CHAT_MODEL: "judge-model" } });
    const r = await chat.completeJson<{ should_interrupt: boolean }>(messages);
    expect(server.requests[0].json?.response_format).toEqual({ type: "json_object" });
    expect(server.requests[0].json?.model).toBe("judge-model");
    expect(r.json.should_interrupt).toBe(true);
    expect(r.costUsd).toBeNull();
    const schema = { type: "object", properties: { utterance: { type: "string" } }, required: ["utterance"], additionalProperties: false };
    await chat.completeJson(messages, { responseFormat: { name: "next_utterance", schema } });
    expect(server.requests[1].json?.response_format).toEqual({ type: "json_schema", json_schema: { name: "next_utterance", schema, strict: true } });
  });

  it("a reply that is not JSON, a missing content and a refusal are MODEL_BAD_RESPONSE", async () => {
    const chat = new OpenAIChatModel({ model: "m", client: local() }, { env: {} });
    server.chat = { content: "Sure! {not json" };
    const e1 = await failure(chat.completeJson(messages));
    expect(e1.code).toBe("MODEL_BAD_RESPONSE");
    expect(e1.message).toMatch(/not valid JSON/);
    server.chat = { content: null, refusal: "I can't help with that." };
    const e2 = await failure(chat.complete(messages));
    expect(e2.code).toBe("MODEL_BAD_RESPONSE");
    expect(e2.message).toMatch(/refusal: I can't help with that/);
  });

  it("without a model name it refuses to start, naming the option and the variable", () => {
    expect(() => new OpenAIChatModel({ client: local() }, { env: {} })).toThrow(/model is required: pass model or set \$VOXMETRICS_CHAT_MODEL/);
  });
});

describe("errors, retries and timeouts (every endpoint shares the client)", () => {
  const chatOf = (extra: Record<string, unknown> = {}, onRetry?: (e: RetryEvent) => void) => new OpenAIChatModel({ model: "m", client: local(extra) }, { env: {}, onRetry });
  const ask = (chat: OpenAIChatModel, signal?: AbortSignal) => chat.complete([{ role: "user", content: "hi" }], { signal });

  it("a server that never answers: each attempt times out, retried maxRetries times, then MODEL_TIMEOUT", async () => {
    server.queueFaults("/v1/chat/completions", { kind: "hang" }, { kind: "hang" });
    const events: RetryEvent[] = [];
    const e = await failure(ask(chatOf({ timeoutMs: 150, maxRetries: 1 }, (ev) => events.push(ev))));
    expect(e.code).toBe("MODEL_TIMEOUT");
    expect(e.attempts).toBe(2);
    expect(e.message).toMatch(/no complete response within 150 ms \(after 2 attempts\)/);
    expect(server.requests).toHaveLength(2);
    expect(events.map((ev) => ev.reason)).toEqual(["MODEL_TIMEOUT"]);
  });

  it("429 with Retry-After (seconds) is retried after that wait, then succeeds", async () => {
    server.queueFaults("/v1/audio/speech", { kind: "status", status: 429, headers: { "retry-after": "1" } });
    const events: RetryEvent[] = [];
    const tts = new OpenAITextToSpeech({ client: local() }, { env: {}, onRetry: (ev) => events.push(ev) });
    await tts.synthesize("Hello.");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].receivedAtMs - server.requests[0].receivedAtMs).toBeGreaterThanOrEqual(990);
    expect(events).toEqual([{ endpoint: `POST ${server.url}/audio/speech`, attempt: 1, reason: 429, delayMs: 1000 }]);
  });

  it("429 with retry-after-ms is honoured too; a Retry-After beyond retryMaxDelayMs ends the call at once", async () => {
    server.queueFaults("/v1/chat/completions", { kind: "status", status: 429, headers: { "retry-after-ms": "250" } });
    await ask(chatOf());
    expect(server.requests[1].receivedAtMs - server.requests[0].receivedAtMs).toBeGreaterThanOrEqual(240);
    server.reset();
    server.queueFaults("/v1/chat/completions", { kind: "status", status: 429, headers: { "retry-after": "120" } });
    const e = await failure(ask(chatOf({ retryMaxDelayMs: 5000 })));
    expect(e.code).toBe("MODEL_HTTP_ERROR");
    expect(e.status).toBe(429);
    expect(e.message).toMatch(/retry after 120000 ms, more than retryMaxDelayMs \(5000 ms\)/);
    expect(server.requests).toHaveLength(1);
  });

  it("5xx is retried with bounded back-off: two 500s then success; persistent 503 fails after maxRetries + 1 requests", async () => {
    server.queueFaults("/v1/audio/transcriptions", { kind: "status", status: 500 }, { kind: "status", status: 502, contentType: "text/html", body: "<html>Bad gateway</html>" });
    const events: RetryEvent[] = [];
    const stt = new OpenAISpeechToText({ client: local({ retryBaseDelayMs: 40 }) }, { env: {}, onRetry: (ev) => events.push(ev) });
    expect((await stt.transcribe(wavAudio(0.2))).text).toBe("hello there");
    expect(server.requests).toHaveLength(3);
    expect(events.map((ev) => ev.reason)).toEqual([500, 502]);
    // Back-off: base·2^(k−1), at least half of it after each failure.
    expect(events[0].delayMs).toBeGreaterThanOrEqual(20);
    expect(events[0].delayMs).toBeLessThanOrEqual(40);
    expect(events[1].delayMs).toBeGreaterThanOrEqual(40);
    expect(events[1].delayMs).toBeLessThanOrEqual(80);

    server.reset();
    server.queueFaults("/v1/chat/completions", ...Array.from({ length: 5 }, () => ({ kind: "status" as const, status: 503 })));
    const e = await failure(ask(chatOf({ maxRetries: 2 })));
    expect(e.code).toBe("MODEL_HTTP_ERROR");
    expect([e.status, e.attempts]).toEqual([503, 3]);
    expect(e.message).toMatch(/HTTP 503 Service Unavailable: injected 503 \(after 3 attempts\)/);
    expect(server.requests).toHaveLength(3);
  });

  it("4xx is not retried and carries the server's message; a request the server finds malformed is a 400", async () => {
    server.queueFaults("/v1/chat/completions", { kind: "status", status: 404, body: JSON.stringify({ error: { message: "The model `m` does not exist" } }) });
    const e = await failure(ask(chatOf()));
    expect([e.code, e.status, e.attempts]).toEqual(["MODEL_HTTP_ERROR", 404, 1]);
    expect(e.message).toMatch(/HTTP 404 Not Found: The model `m` does not exist/);
    expect(server.requests).toHaveLength(1);
    // The server's own validation is live: an out-of-range speed reaches it only if the client lets it through.
    const tts = new OpenAITextToSpeech({ client: local() }, { env: {} });
    await expect(tts.client.postJson({ path: "/audio/speech", json: { model: "x", input: "", voice: "alloy" }, model: "x" })).rejects.toThrow(/HTTP 400.*input must be a non-empty string/);
  });

  it("malformed JSON and a non-JSON content type on a JSON endpoint are MODEL_BAD_RESPONSE, not retried", async () => {
    server.queueFaults("/v1/chat/completions", { kind: "malformed-json" }, { kind: "content-type", contentType: "text/html", body: "<html>login</html>" });
    const e1 = await failure(ask(chatOf()));
    expect(e1.code).toBe("MODEL_BAD_RESPONSE");
    expect(e1.message).toMatch(/not valid JSON/);
    const e2 = await failure(ask(chatOf()));
    expect(e2.code).toBe("MODEL_BAD_RESPONSE");
    expect(e2.message).toMatch(/expected a JSON response, got content-type "text\/html": "<html>login<\/html>"/);
    expect(server.requests).toHaveLength(2);
  });

  it("nothing listening: MODEL_UNREACHABLE after the retries", async () => {
    const { createServer } = await import("node:net");
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const chat = new OpenAIChatModel({ model: "m", client: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: TEST_KEY, maxRetries: 1, retryBaseDelayMs: 10 } }, { env: {} });
    const e = await failure(ask(chat));
    expect(e.code).toBe("MODEL_UNREACHABLE");
    expect(e.attempts).toBe(2);
    expect(e.message).toMatch(/ECONNREFUSED/);
  });

  it("the caller's AbortSignal ends a hanging request at once with ABORTED", async () => {
    server.queueFaults("/v1/chat/completions", { kind: "hang" });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    const e = await failure(ask(chatOf({ timeoutMs: 10_000 }), controller.signal));
    expect(e.code).toBe("ABORTED");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("the API key", () => {
  it("comes from the named environment variable and is never in errors, events, JSON, inspection or console output", async () => {
    const secret = "sk-live-SECRET-do-not-print-42";
    const logged: string[] = [];
    const restore = [process.stdout, process.stderr].map((stream) => {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        logged.push(String(chunk));
        return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      return () => {
        stream.write = original;
      };
    });
    const events: RetryEvent[] = [];
    try {
      const env = { MY_SERVICE_KEY: secret, OPENAI_BASE_URL: server.url };
      // Accepted key, but every answer is a 500 whose message quotes the key.
      server.expectedKey = secret;
      const echo = { kind: "status" as const, status: 500, body: JSON.stringify({ error: { message: `upstream saw key ${secret}` } }) };
      server.queueFaults("/v1/chat/completions", echo, echo, echo);
      const chat = new OpenAIChatModel({ model: "m", client: { apiKeyEnv: "MY_SERVICE_KEY", retryBaseDelayMs: 10 } }, { env, onRetry: (ev) => events.push(ev) });
      const errors = [await failure(chat.complete([{ role: "user", content: "hi" }]))];
      // Refused key: the 401 message quotes it.
      server.expectedKey = TEST_KEY;
      const tts = new OpenAITextToSpeech({ client: { apiKeyEnv: "MY_SERVICE_KEY" } }, { env });
      const stt = new OpenAISpeechToText({ client: { apiKeyEnv: "MY_SERVICE_KEY" } }, { env });
      errors.push(await failure(tts.synthesize("Hi")), await failure(stt.transcribe(wavAudio(0.1))));
      // The key was sent (the server saw it)…
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(Array.from({ length: 5 }, () => `Bearer ${secret}`));
      expect(errors.map((e) => e.status)).toEqual([500, 401, 401]);
      expect(events).toHaveLength(2);
      // …and the server echoed it, but no text we produce holds it.
      const texts = [
        ...errors.flatMap((e) => [e.message, JSON.stringify(e), inspect(e, { depth: 5, showHidden: true }), String(e.stack)]),
        JSON.stringify(events),
        ...[chat, tts, stt, chat.client].flatMap((x) => [JSON.stringify(x), inspect(x, { depth: 5, showHidden: true })]),
        logged.join(""),
      ];
      for (const t of texts) expect(t).not.toContain(secret);
      expect(errors[0].message).toContain("upstream saw key [redacted]");
      expect(errors[1].message).toContain("Incorrect API key provided: [redacted]");
      // Printing an error (as a CLI would: console.error formats it so) prints no key either.
      logged.push(format(errors[1]));
    } finally {
      restore.forEach((r) => r());
    }
    expect(logged.join("")).not.toContain(secret);
  });

  it("a 401 without any key says which variable to set; no Authorization header is sent", async () => {
    const chat = new OpenAIChatModel({ model: "m", client: { baseUrl: server.url } }, { env: {} });
    const e = await failure(chat.complete([{ role: "user", content: "hi" }]));
    expect(server.requests[0].headers.authorization).toBeUndefined();
    expect(e.message).toMatch(/no API key was sent: set \$OPENAI_API_KEY or pass apiKey/);
  });
});

describe("options", () => {
  it("base URL: option, else $OPENAI_BASE_URL, else OpenAI's; models from $VOXMETRICS_*_MODEL", () => {
    expect(resolveOpenAIClientOptions({}, {}).baseUrl).toBe("https://api.openai.com/v1");
    expect(resolveOpenAIClientOptions({}, { OPENAI_BASE_URL: "http://127.0.0.1:9/v1/" }).baseUrl).toBe("http://127.0.0.1:9/v1");
    expect(resolveOpenAIClientOptions({ baseUrl: "http://a.test/v1" }, { OPENAI_BASE_URL: "http://b.test/v1" }).baseUrl).toBe("http://a.test/v1");
    expect(new OpenAITextToSpeech({}, { env: { VOXMETRICS_TTS_MODEL: "tts-1" } }).modelName).toBe("tts-1");
    expect(new OpenAISpeechToText({}, { env: { VOXMETRICS_STT_MODEL: "whisper-1" } }).modelName).toBe("whisper-1");
    expect(new OpenAISpeechToText({}, { env: {} }).modelName).toBe("gpt-4o-transcribe");
    const client = new OpenAIClient({ baseUrl: "https://user:pw@host.test/v1" }, { env: { OPENAI_API_KEY: "k-1234" } });
    expect(client.hasApiKey).toBe(true);
    expect(client.endpointOf("/chat/completions")).toBe("https://host.test/v1/chat/completions");
  });

  it("rejects bad values naming the field", () => {
    expect(() => resolveOpenAIClientOptions({ timeoutMs: 0 })).toThrow(/timeoutMs must be an integer in \[1, 3600000\]/);
    expect(() => resolveOpenAIClientOptions({ baseUrl: "ftp://x" })).toThrow(/baseUrl must be an http\(s\) URL/);
    expect(() => resolveOpenAIClientOptions({ apiKeyEnv: "not a name" })).toThrow(/apiKeyEnv/);
    expect(() => new OpenAITextToSpeech({ responseFormat: "mp3" as "wav" }, { env: {} })).toThrow(/responseFormat must be "wav" or "pcm"/);
    expect(() => new OpenAITextToSpeech({ speed: 9 }, { env: {} })).toThrow(/speed must be in \[0.25, 4\]/);
    expect(() => new OpenAISpeechToText({ language: "French" }, { env: {} })).toThrow(/language must be a language code/);
    expect(() => new OpenAITextToSpeech({ respnseFormat: "pcm" } as never, { env: {} })).toThrow(/OpenAI TTS option respnseFormat is unknown/);
    expect(() => new OpenAIChatModel({ model: "m", client: { timeout: 5 } } as never, { env: {} })).toThrow(/OpenAI client option timeout is unknown/);
  });

  it("Retry-After parsing: seconds, milliseconds, HTTP date, garbage", () => {
    const h = (init: Record<string, string>) => new Headers(init);
    expect(retryAfter(h({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfter(h({ "retry-after": "0.5" }))).toBe(500);
    expect(retryAfter(h({ "retry-after-ms": "120", "retry-after": "9" }))).toBe(120);
    expect(retryAfter(h({ "retry-after": "Wed, 21 Oct 2015 07:28:10 GMT" }), Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(retryAfter(h({ "retry-after": "soon" }))).toBeNull();
    expect(retryAfter(h({}))).toBeNull();
  });
});
