// A local OpenAI-compatible server for the client tests: checks every request's shape (method, path, headers, JSON body or multipart fields), answers as the API documents, and injects faults on demand.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";

/** What one request looked like, kept for the test to inspect. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (JSON endpoints). */
  json?: Record<string, unknown>;
  /** The multipart fields (transcriptions): strings, and the file's name, type and bytes. */
  fields?: Record<string, string>;
  file?: { name: string; type: string; bytes: Uint8Array };
  /** performance.now() when the request arrived. */
  receivedAtMs: number;
  /** Shape violations found; the server answers 400 when there are any. */
  problems: string[];
}

/** A fault the next request to a path gets instead of a normal answer. */
export type Fault =
  | { kind: "status"; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
  | { kind: "hang" }
  | { kind: "malformed-json" }
  | { kind: "content-type"; contentType: string; body: string }
  | { kind: "empty" };

export interface FakeOpenAI {
  url: string;
  requests: RecordedRequest[];
  /** Faults served in order to the next requests of `path` (e.g. `/v1/audio/speech`). */
  queueFaults(path: string, ...faults: Fault[]): void;
  /** The transcript the transcriptions endpoint returns, and its usage block. */
  transcription: { text: string; usage?: Record<string, unknown> };
  /** The chat endpoint's reply content and usage. */
  chat: { content: string | null; usage?: Record<string, unknown>; refusal?: string };
  /** Speech responses: "wav" writes a normal WAV, "streamed-wav" one with placeholder sizes as streaming servers do. */
  speechWavStyle: "wav" | "streamed-wav";
  /** The API key the server accepts; requests without it get 401 with an error that echoes what was sent. */
  expectedKey: string | null;
  /** Forget requests and queued faults; answers go back to the defaults. */
  reset(): void;
  close(): Promise<void>;
}

export const TEST_KEY = "sk-test-local-0123456789";

export const SPEECH_SAMPLE_RATE = 24_000;

/** 0.5 s of a 220 Hz tone per 10 input characters (at least 0.5 s), so tests can check the audio came from this text. */
export function speechFor(text: string): Int16Array {
  const frames = Math.max(1, Math.ceil(text.length / 10)) * (SPEECH_SAMPLE_RATE / 2);
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i++) out[i] = Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / SPEECH_SAMPLE_RATE));
  return out;
}

const TTS_FORMATS = new Set(["wav", "pcm", "mp3", "opus", "aac", "flac"]);

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const faults = new Map<string, Fault[]>();
  const sockets = new Set<Socket>();
  const requests: RecordedRequest[] = [];
  const defaults = (): Pick<FakeOpenAI, "transcription" | "chat" | "speechWavStyle" | "expectedKey"> => ({
    transcription: { text: "hello there" },
    chat: { content: "{}" },
    speechWavStyle: "wav",
    expectedKey: TEST_KEY,
  });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, Buffer.concat(chunks), res).catch((e: unknown) => {
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `test server bug: ${String(e)}` } }));
      });
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0];
    const rec: RecordedRequest = { method: req.method ?? "", path, headers: req.headers, receivedAtMs: performance.now(), problems: [] };
    requests.push(rec);
    const problem = (p: string) => rec.problems.push(p);
    if (req.method !== "POST") problem(`method ${req.method}, expected POST`);

    // Authentication first, as the real service does: an error that echoes the key it got.
    const auth = req.headers.authorization;
    if (fake.expectedKey !== null && auth !== `Bearer ${fake.expectedKey}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${auth ? auth.replace(/^Bearer /, "") : "(none)"}.`, type: "invalid_request_error", code: "invalid_api_key" } }));
      return;
    }

    const fault = faults.get(path)?.shift();
    if (fault) return serveFault(fault, res);

    if (path === "/v1/audio/speech") return speech(rec, body, req, res);
    if (path === "/v1/audio/transcriptions") return transcriptions(rec, body, req, res);
    if (path === "/v1/chat/completions") return chat(rec, body, req, res);
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${path}` } }));
  }

  function serveFault(fault: Fault, res: ServerResponse): void {
    switch (fault.kind) {
      case "hang":
        return; // never answer; the socket is destroyed on close()
      case "status":
        res.writeHead(fault.status, { "content-type": fault.contentType ?? "application/json", ...fault.headers });
        res.end(fault.body ?? JSON.stringify({ error: { message: `injected ${fault.status}` } }));
        return;
      case "malformed-json":
        res.writeHead(200, { "content-type": "application/json" }).end('{"text": "unterminated');
        return;
      case "content-type":
        res.writeHead(200, { "content-type": fault.contentType }).end(fault.body);
        return;
      case "empty":
        res.writeHead(200, { "content-type": "audio/wav" }).end();
        return;
    }
  }

  function parseJson(rec: RecordedRequest, body: Buffer, req: IncomingMessage): Record<string, unknown> | null {
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) rec.problems.push(`content-type ${req.headers["content-type"]}, expected application/json`);
    try {
      const parsed = JSON.parse(body.toString("utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      rec.json = parsed;
      return parsed;
    } catch (e) {
      rec.problems.push(`body is not a JSON object: ${(e as Error).message}`);
      return null;
    }
  }

  function reject(rec: RecordedRequest, res: ServerResponse): boolean {
    if (rec.problems.length === 0) return false;
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: rec.problems.join("; "), type: "invalid_request_error" } }));
    return true;
  }

  function speech(rec: RecordedRequest, body: Buffer, req: IncomingMessage, res: ServerResponse): void {
    const json = parseJson(rec, body, req);
    if (json) {
      if (typeof json.model !== "string" || !json.model) rec.problems.push("model must be a non-empty string");
      if (typeof json.input !== "string" || !json.input) rec.problems.push("input must be a non-empty string");
      if (typeof json.input === "string" && json.input.length > 4096) rec.problems.push("input longer than 4096 characters");
      if (typeof json.voice !== "string" || !json.voice) rec.problems.push("voice must be a non-empty string");
      if (json.response_format !== undefined && !TTS_FORMATS.has(json.response_format as string)) rec.problems.push(`response_format ${String(json.response_format)} unknown`);
      if (json.speed !== undefined && !((json.speed as number) >= 0.25 && (json.speed as number) <= 4)) rec.problems.push("speed out of [0.25, 4]");
      const known = new Set(["model", "input", "voice", "response_format", "speed", "instructions"]);
      for (const k of Object.keys(json)) if (!known.has(k)) rec.problems.push(`unknown field ${k}`);
    }
    if (reject(rec, res)) return;
    const samples = speechFor(json!.input as string);
    if (json!.response_format === "pcm") {
      res.writeHead(200, { "content-type": "audio/pcm" }).end(Buffer.from(samples.buffer));
      return;
    }
    const wav = writeWavPcm16(samples, SPEECH_SAMPLE_RATE);
    if (fake.speechWavStyle === "streamed-wav") {
      const v = new DataView(wav.buffer, wav.byteOffset);
      v.setUint32(4, 0xffffffff, true);
      v.setUint32(40, 0xffffffff, true);
    }
    res.writeHead(200, { "content-type": "audio/wav" }).end(Buffer.from(wav));
  }

  async function transcriptions(rec: RecordedRequest, body: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ct = req.headers["content-type"] ?? "";
    if (!ct.startsWith("multipart/form-data; boundary=")) rec.problems.push(`content-type ${ct}, expected multipart/form-data`);
    else {
      const form = await new Response(new Uint8Array(body), { headers: { "content-type": ct } }).formData();
      rec.fields = {};
      for (const [k, v] of form.entries()) {
        if (typeof v === "string") rec.fields[k] = v;
        else rec.file = { name: v.name, type: v.type, bytes: new Uint8Array(await v.arrayBuffer()) };
      }
      if (!rec.file) rec.problems.push("file field missing");
      else if (!/\.(flac|mp3|mp4|mpeg|mpga|m4a|ogg|wav|webm)$/.test(rec.file.name)) rec.problems.push(`file name ${rec.file.name} has no supported extension`);
      if (!rec.fields.model) rec.problems.push("model field missing");
      if (rec.fields.language !== undefined && !/^[a-z]{2}$/.test(rec.fields.language)) rec.problems.push(`language ${rec.fields.language} is not ISO-639-1`);
      if (rec.fields.response_format !== undefined && !["json", "text", "verbose_json", "srt", "vtt"].includes(rec.fields.response_format)) rec.problems.push("bad response_format");
    }
    if (reject(rec, res)) return;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text: fake.transcription.text, ...(fake.transcription.usage ? { usage: fake.transcription.usage } : {}) }));
  }

  function chat(rec: RecordedRequest, body: Buffer, req: IncomingMessage, res: ServerResponse): void {
    const json = parseJson(rec, body, req);
    if (json) {
      if (typeof json.model !== "string" || !json.model) rec.problems.push("model must be a non-empty string");
      const messages = json.messages;
      if (!Array.isArray(messages) || messages.length === 0) rec.problems.push("messages must be a non-empty array");
      else
        messages.forEach((m: { role?: unknown; content?: unknown }, i) => {
          if (!["system", "user", "assistant", "developer"].includes(m.role as string)) rec.problems.push(`messages[${i}].role ${String(m.role)}`);
          if (typeof m.content !== "string") rec.problems.push(`messages[${i}].content must be a string`);
        });
      const rf = json.response_format as { type?: string; json_schema?: { name?: unknown; schema?: unknown } } | undefined;
      if (rf !== undefined) {
        if (!["text", "json_object", "json_schema"].includes(rf.type as string)) rec.problems.push(`response_format.type ${String(rf.type)}`);
        if (rf.type === "json_schema" && (typeof rf.json_schema?.name !== "string" || typeof rf.json_schema?.schema !== "object")) rec.problems.push("json_schema needs name and schema");
      }
    }
    if (reject(rec, res)) return;
    const message: Record<string, unknown> = { role: "assistant", content: fake.chat.content };
    if (fake.chat.refusal) message.refusal = fake.chat.refusal;
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: 0,
        model: json!.model,
        choices: [{ index: 0, message, finish_reason: "stop" }],
        ...(fake.chat.usage ? { usage: fake.chat.usage } : {}),
      }),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    queueFaults(path, ...list) {
      faults.set(path, [...(faults.get(path) ?? []), ...list]);
    },
    ...defaults(),
    reset() {
      requests.length = 0;
      faults.clear();
      Object.assign(fake, defaults());
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
