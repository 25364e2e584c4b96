// JSON codec for deepeval ConversationalTestCase dumps (formats.md F1): one object, an array or JSONL, every alias.
import { Audio, audioInit, AudioValidationError, type ResolvedLocalFile } from "./audio.js";
import { VoxError } from "./errors.js";
import { lineAndColumn, locateRecordSyntaxError, parseRecord, scanJsonRecords } from "./json-records.js";
import { createTestCase, TEST_CASE_MESSAGES, type ConversationalTestCase, type Role, type Turn } from "./test-case.js";

/** Audio acceptance: `deepeval` accepts exactly what deepeval does (16-bit PCM WAV); `voxmetrics` anything decodable. */
export type CompatMode = "voxmetrics" | "deepeval";

/** Options of reading test-case JSON: compat mode, file name for messages, how local urls resolve. */
export interface CodecOptions {
  /** `deepeval` reproduces the reference exactly; `voxmetrics` (default) adds helpful extensions. */
  compat?: CompatMode;
  /** Tells whether a url names an existing local file (relative urls resolved by the caller) and reads it. */
  resolveLocal?: (url: string) => ResolvedLocalFile | null;
  /** The absolute path a relative url would resolve to (for "not found" messages). */
  describeUrl?: (url: string) => string;
  /** Name of the file being read, used in error messages. */
  file?: string;
}

/** What every parsed record carries, read or not. */
interface ParsedRecordBase {
  /** 0-based position of the record in its file (array element or JSONL record). */
  index: number;
  /** 1-based line number for JSONL records. */
  line?: number;
  /** What reading the record noticed (e.g. the `startTime` alias). */
  warnings: string[];
}

/** A record that was read: `ok` is true and `testCase` is set. */
export interface ParsedTestCaseOk extends ParsedRecordBase {
  ok: true;
  testCase: ConversationalTestCase;
  error?: undefined;
}

/** A record that could not be read: `ok` is false and `error` names the file, the place and the field. */
export interface ParsedTestCaseError extends ParsedRecordBase {
  ok: false;
  error: VoxError;
  testCase?: undefined;
}

/**
 * One test case read from a file, or the error that stopped it: narrow with `if (r.ok)` (or
 * `if (r.testCase)`), no non-null assertion needed.
 */
export type ParsedTestCase = ParsedTestCaseOk | ParsedTestCaseError;

/**
 * Parse a file's text into test cases; a bad record becomes an error entry and the rest still load.
 * The records are found as discovery finds them (scanJsonRecords): one object, an array, or one
 * record per line (always so when `jsonl`, the file being a .jsonl).
 */
export function parseTestCaseText(text: string, options: CodecOptions & { jsonl?: boolean } = {}): ParsedTestCase[] {
  const bytes = new TextEncoder().encode(text);
  const { ranges, lines } = scanJsonRecords(bytes, options.jsonl ?? false);
  if (ranges.length === 0) return [{ ok: false, index: 0, error: new VoxError("INVALID_JSON", "the file holds no JSON record", { file: options.file }), warnings: [] }];
  const decoder = new TextDecoder();
  return ranges.map(([start, end], index) => {
    const line = lines?.[index];
    let value: unknown;
    try {
      value = parseRecord(decoder.decode(bytes.subarray(start, end)));
    } catch {
      const { where, detail } = locateRecordSyntaxError(decoder.decode(bytes.subarray(start, end)), ...recordStart(bytes, start, line));
      return { ok: false, index, line, error: new VoxError("INVALID_JSON", detail, { file: options.file, field: where }), warnings: [] };
    }
    return readRecord(value, index, line, options);
  });
}

/** Line and column where the record at byte `start` begins (its line when known, as in JSONL). */
function recordStart(bytes: Uint8Array, start: number, line: number | undefined): [number, number] {
  if (line !== undefined) return [line, 1];
  const prefix = new TextDecoder().decode(bytes.subarray(0, start));
  const at = lineAndColumn(prefix, prefix.length);
  return [at.line, at.column];
}

function readRecord(value: unknown, index: number, line: number | undefined, options: CodecOptions): ParsedTestCase {
  const warnings: string[] = [];
  try {
    return { ok: true, index, line, testCase: testCaseFromJson(value, options, warnings), warnings };
  } catch (e) {
    const err = e instanceof VoxError ? e : new VoxError("INVALID_TEST_CASE", String(e), { file: options.file });
    return { ok: false, index, line, error: err, warnings };
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** First present key among aliases (deepeval accepts either spelling). */
function pick(o: Json, ...keys: string[]): unknown {
  for (const k of keys) if (k in o) return o[k];
  return undefined;
}

function fail(code: VoxError["code"], detail: string, field: string, options: CodecOptions): never {
  throw new VoxError(code, detail, { file: options.file, field });
}

const OPTIONAL_STRING_FIELDS: Array<[keyof ConversationalTestCase, string[]]> = [
  ["scenario", ["scenario"]],
  ["name", ["name"]],
  ["user_description", ["userDescription", "user_description"]],
  ["expected_outcome", ["expectedOutcome", "expected_outcome"]],
  ["chatbot_role", ["chatbotRole", "chatbot_role"]],
  ["comments", ["comments"]],
];

/** Build a validated test case from a parsed JSON value. */
export function testCaseFromJson(value: unknown, options: CodecOptions = {}, warnings: string[] = []): ConversationalTestCase {
  if (!isObject(value)) fail("INVALID_TEST_CASE", `a test case must be a JSON object, got ${jsonType(value)}`, "$", options);
  const turnsValue = value.turns;
  if (turnsValue === undefined) fail("INVALID_TEST_CASE", "turns: Field required", "turns", options);
  if (!Array.isArray(turnsValue)) fail("INVALID_TEST_CASE", `'turns' must be a list of Turn or dict, got ${jsonType(turnsValue)}`, "turns", options);
  if (turnsValue.length === 0) fail("INVALID_TEST_CASE", TEST_CASE_MESSAGES.emptyTurns, "turns", options);
  const turns = turnsValue.map((t, i) => turnFromJson(t, i, options, warnings));

  const tc: ConversationalTestCase = { turns };
  for (const [key, aliases] of OPTIONAL_STRING_FIELDS) {
    const v = pick(value, ...aliases);
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") fail("INVALID_TEST_CASE", `${aliases[0]}: Input should be a valid string`, String(key), options);
    (tc as unknown as Json)[key] = v;
  }
  const context = value.context;
  if (context !== undefined && context !== null) {
    if (!Array.isArray(context) || context.some((c) => typeof c !== "string")) {
      fail("INVALID_TEST_CASE", TEST_CASE_MESSAGES.context, "context", options);
    }
    tc.context = context as string[];
  }
  const metadata = pick(value, "metadata", "additionalMetadata", "additional_metadata");
  if (metadata !== undefined && metadata !== null) {
    if (!isObject(metadata)) fail("INVALID_TEST_CASE", "metadata: Input should be a valid dictionary", "metadata", options);
    tc.metadata = metadata;
  }
  const tags = value.tags;
  if (tags !== undefined && tags !== null) {
    if (!Array.isArray(tags)) fail("INVALID_TEST_CASE", "tags: Input should be a valid list", "tags", options);
    tc.tags = tags as string[];
  }
  if (value.mcp_servers !== undefined && value.mcp_servers !== null) tc.mcp_servers = value.mcp_servers as unknown[];
  if (typeof value.flaky === "boolean") tc.flaky = value.flaky;
  if (typeof value.multimodal === "boolean") tc.multimodal = value.multimodal;
  return createTestCase(tc);
}

function jsonType(v: unknown): string {
  if (v === null) return "NoneType";
  if (Array.isArray(v)) return "list";
  if (typeof v === "string") return "str";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

/** Python's repr of a JSON value (single-quoted strings, True/False/None), so messages quote in one style. */
function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "nan";
  if (typeof v === "string") {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  return String(v);
}

/** A short Python-like rendering of a turn object for `Invalid dict for Turn:` messages (long values cut at 60 characters). */
function reprTurn(o: Json): string {
  const parts = Object.entries(o).map(([k, v]) => {
    let s = pyRepr(v);
    if (s.length > 60) s = s.slice(0, 57) + "...";
    return `${pyRepr(k)}: ${s}`;
  });
  return `{${parts.join(", ")}}`;
}

function turnFromJson(value: unknown, i: number, options: CodecOptions, warnings: string[]): Turn {
  const field = `turns[${i}]`;
  if (!isObject(value)) {
    fail("INVALID_TURN", `'turns' must be a list of Turn or dict, got ${jsonType(value)}`, field, options);
  }
  const bad = (sub: string, msg: string): never =>
    fail("INVALID_TURN", `Invalid dict for Turn: ${reprTurn(value)} (${sub}: ${msg})`, `${field}.${sub}`, options);

  const role = value.role;
  if (role === undefined) bad("role", "Field required");
  if (role !== "user" && role !== "assistant") bad("role", `Input should be 'user' or 'assistant', got ${pyRepr(role)}`);
  const content = value.content;
  if (content === undefined) bad("content", "Field required");
  if (typeof content !== "string") bad("content", "Input should be a valid string");

  const turn: Turn = { role: role as Role, content: content as string };
  const userId = pick(value, "userId", "user_id");
  if (userId !== undefined && userId !== null) {
    if (typeof userId !== "string") bad("user_id", "Input should be a valid string");
    turn.user_id = userId as string;
  }
  const latency = pick(value, "latencyMs", "latency_ms");
  if (latency !== undefined && latency !== null) {
    if (typeof latency !== "number" || !Number.isFinite(latency)) bad("latency_ms", "Input should be a valid number");
    turn.latency_ms = latency as number;
  }
  const interrupted = value.interrupted;
  if (interrupted !== undefined && interrupted !== null) {
    if (typeof interrupted !== "boolean") bad("interrupted", "Input should be a valid boolean");
    turn.interrupted = interrupted as boolean;
  }
  const lists: Array<[keyof Turn, string[]]> = [
    ["retrieval_context", ["retrievalContext", "retrieval_context"]],
    ["tools_called", ["toolsCalled", "tools_called"]],
    ["mcp_tools_called", ["mcp_tools_called"]],
    ["mcp_resources_called", ["mcp_resources_called"]],
    ["mcp_prompts_called", ["mcp_prompts_called"]],
  ];
  for (const [key, aliases] of lists) {
    const v = pick(value, ...aliases);
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) bad(String(key), "Input should be a valid list");
    (turn as unknown as Json)[key] = v;
  }
  const metadata = pick(value, "metadata", "additionalMetadata", "additional_metadata");
  if (metadata !== undefined && metadata !== null) {
    if (!isObject(metadata)) bad("metadata", "Input should be a valid dictionary");
    turn.metadata = metadata as Record<string, unknown>;
  }
  const audio = value.audio;
  if (audio !== undefined && audio !== null) {
    turn.audio = audioFromJson(audio, `${field}.audio`, options, warnings, (sub, msg) =>
      fail(
        sub === "url" && msg.startsWith("Audio file not found") ? "AUDIO_NOT_FOUND" : "INVALID_AUDIO",
        sub === "url" && msg.startsWith("Audio file not found") ? msg : `Invalid dict for Turn: ${reprTurn(value)} (audio.${sub}: ${msg})`,
        `${field}.audio.${sub}`,
        options,
      ),
    );
  }
  return turn;
}

const AUDIO_STRING_KEYS = ["dataBase64", "mimeType", "url", "encoding"] as const;
const AUDIO_NUMBER_KEYS = ["sampleRate", "duration", "start_time"] as const;

function audioFromJson(
  value: unknown,
  field: string,
  options: CodecOptions,
  warnings: string[],
  bad: (sub: string, msg: string) => never,
): Audio {
  if (!isObject(value)) bad("", `Input should be an Audio object, got ${jsonType(value)}`);
  const init = audioInit({});
  for (const k of AUDIO_STRING_KEYS) {
    const v = value[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") bad(k, "Input should be a valid string");
    init[k] = v as string;
  }
  for (const k of AUDIO_NUMBER_KEYS) {
    const v = value[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !Number.isFinite(v)) bad(k, "Input should be a valid number");
    init[k] = v as number;
  }
  if (init.start_time === null && "startTime" in value && options.compat !== "deepeval") {
    const v = value.startTime;
    if (v !== null) {
      if (typeof v !== "number" || !Number.isFinite(v)) bad("startTime", "Input should be a valid number");
      init.start_time = v as number;
      warnings.push(`${field}.startTime: read as start_time (a voxmetrics extension; deepeval ignores startTime)`);
    }
  }
  try {
    return new Audio(init, (url) => {
      const found = options.resolveLocal ? options.resolveLocal(url) : null;
      if (found || options.compat === "deepeval") return found;
      if (!url.startsWith("http://") && !url.startsWith("https://")) {
        throw new AudioValidationError("url", `Audio file not found: ${options.describeUrl ? options.describeUrl(url) : url}`);
      }
      return null;
    });
  } catch (e) {
    if (e instanceof AudioValidationError) bad(e.field, e.message);
    // A refusal from the resolver (a path outside --confine-paths) is located here, where the field is known.
    if (e instanceof VoxError && !e.field) throw new VoxError(e.code, e.detail, { file: e.file ?? options.file, field: `${field}.url` });
    throw e;
  }
}

/** The reference dump spelling of a test case (formats.md F1.6): snake_case turn keys, no private audio keys. */
export function testCaseToJson(tc: ConversationalTestCase): Record<string, unknown> {
  return {
    name: tc.name ?? null,
    scenario: tc.scenario ?? null,
    context: tc.context ?? null,
    user_description: tc.user_description ?? null,
    expected_outcome: tc.expected_outcome ?? null,
    chatbot_role: tc.chatbot_role ?? null,
    metadata: tc.metadata ?? null,
    comments: tc.comments ?? null,
    tags: tc.tags ?? null,
    flaky: tc.flaky ?? false,
    turns: tc.turns.map((t) => ({
      role: t.role,
      content: t.content,
      user_id: t.user_id ?? null,
      audio: t.audio ? t.audio.toJSON() : null,
      latency_ms: t.latency_ms ?? null,
      interrupted: t.interrupted ?? null,
      retrieval_context: t.retrieval_context ?? null,
      tools_called: t.tools_called ?? null,
      metadata: t.metadata ?? null,
    })),
  };
}
