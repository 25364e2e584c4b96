// Microsoft Voice Live evaluation harness datasets (formats.md F3): legacy and Foundry shapes, path guard, data: URIs; one call per conversation.
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { Audio, audioInit, guessMimeType } from "../../model/audio.js";
import { VoxError } from "../../model/errors.js";
import { createTestCase, type Turn } from "../../model/test-case.js";
import { displayPathOf, isFile, isInside, localFileReader, realPathOr } from "../files.js";
import type { Candidate, CandidateContext, CallRef, ConversationRef, IngestOptions, InputFormat, LoadedCall } from "../types.js";
import { discoverConversations, readConversationRecords, type LineRecord } from "./conversations.js";
import { remoteUrlProblem } from "./remote-url.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Folders tried, from the dataset folder upwards, when a relative path does not resolve directly (F3.5 step 4). */
const PARENT_SEARCH_DEPTH = 5;

/** A dataset (F0.2 order 4): the first record has one of the dataset shapes. */
export function detect(c: Candidate): InputFormat | null {
  return c.kind === "json" && isVoiceLiveDatasetRecord(c.first.value) ? "voicelive-dataset" : null;
}

/** One call per conversation (F3.7). */
export function discover(c: Candidate, context: CandidateContext): CallRef[] {
  return discoverConversations(c, context, conversationIdOf);
}

/** The user side of one conversation (F3.11). */
export function load(ref: ConversationRef, options: IngestOptions): LoadedCall {
  return loadVoiceLiveDatasetConversation(ref.path, ref.conversationId, readConversationRecords(ref), options.allowOutsidePaths ?? false);
}

/** True when a record has one of the dataset shapes of F0.2 (order 4). */
function isVoiceLiveDatasetRecord(o: unknown): boolean {
  if (!isObject(o)) return false;
  if ("WavPath" in o || "audio_path" in o || typeof o.audio === "string" || "messages" in o) return true;
  return isObject(o.audio) && o.audio.type === "input_audio";
}

/** The grouping key (F3.3): `conversationID` → `conversation_id` → "default", falsy values falling through. */
export function conversationIdOf(o: Json): string {
  const v = o.conversationID || o.conversation_id || "default";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The media reference of F3.2 steps 1–2: `{data, format}` or null. */
export function mediaReference(o: Json): { data: string; format: string; field: string } | null {
  if (Array.isArray(o.messages)) {
    for (const [mi, m] of o.messages.entries()) {
      if (!isObject(m) || m.role !== "user" || !Array.isArray(m.content)) continue;
      for (const [pi, part] of m.content.entries()) {
        if (!isObject(part) || part.type !== "input_audio" || !isObject(part.input_audio)) continue;
        const data = part.input_audio.data;
        if (typeof data === "string" && data !== "") {
          return { data, format: formatOf(part.input_audio.format), field: `messages[${mi}].content[${pi}].input_audio.data` };
        }
      }
    }
  }
  if (isObject(o.audio) && o.audio.type === "input_audio" && isObject(o.audio.input_audio)) {
    const data = o.audio.input_audio.data;
    if (typeof data === "string" && data !== "") return { data, format: formatOf(o.audio.input_audio.format), field: "audio.input_audio.data" };
  }
  return null;
}

function formatOf(v: unknown): string {
  return typeof v === "string" && v !== "" ? v : "wav";
}

/** The legacy path of F3.2 step 3 (`WavPath` → string `audio` → `audio_path`) and the field it came from. */
export function legacyPath(o: Json): { path: string; field: string } | null {
  if (typeof o.WavPath === "string" && o.WavPath) return { path: o.WavPath, field: "WavPath" };
  if (typeof o.audio === "string" && o.audio) return { path: o.audio, field: "audio" };
  if (typeof o.audio_path === "string" && o.audio_path) return { path: o.audio_path, field: "audio_path" };
  return null;
}

/** Question text (F3.3/F3.4): `Question` → `question` → the first user message that yields text. */
export function questionOf(o: Json): string {
  for (const k of ["Question", "question"]) if (typeof o[k] === "string" && o[k]) return o[k] as string;
  if (!Array.isArray(o.messages)) return "";
  for (const m of o.messages) {
    if (!isObject(m) || m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (!Array.isArray(m.content)) continue;
    const text = m.content
      .filter((p): p is Json => isObject(p) && p.type === "text" && typeof p.text === "string" && p.text !== "")
      .map((p) => p.text as string)
      .join(" ");
    if (text) return text;
  }
  return "";
}

/** Ground truth (F3.3): `Answer` → `answer` → `expected_output`, arrays joined with " OR ". */
export function groundTruthOf(o: Json): unknown {
  for (const k of ["Answer", "answer", "expected_output"]) {
    const v = o[k];
    if (!v || (Array.isArray(v) && v.length === 0)) continue;
    if (Array.isArray(v)) return v.filter(Boolean).map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(" OR ");
    return v;
  }
  return "";
}

/** System prompt (F3.3): `system_prompt`, else the first system message's content. */
export function systemPromptOf(o: Json): string | null {
  if (o.system_prompt) return typeof o.system_prompt === "string" ? o.system_prompt : JSON.stringify(o.system_prompt);
  if (!Array.isArray(o.messages)) return null;
  const sys = o.messages.find((m) => isObject(m) && m.role === "system");
  if (!isObject(sys) || sys.content === undefined || sys.content === null) return null;
  return typeof sys.content === "string" ? sys.content : JSON.stringify(sys.content);
}

/**
 * Resolve a legacy audio path against the dataset folder (F3.5). Relative candidates must stay inside
 * the folder, lexically and after resolving symlinks; a candidate that exists outside it is refused.
 * Absolute paths (step 1) and symlinks leaving the folder are refused too unless `allowOutside`
 * (datasets come from third parties: `/etc/passwd` is not audio). Returns null when nothing exists.
 */
export function resolveDatasetPath(datasetDir: string, path: string, context: { file: string; field: string }, allowOutside = false): string | null {
  const refuse = (candidate: string, why = "path traversal"): never => {
    throw new VoxError(
      "PATH_REFUSED",
      `audio path "${path}" resolves to ${candidate}, outside the dataset folder ${datasetDir}; refused (${why}${why === "path traversal" ? "" : "; --allow-outside-paths accepts it"})`,
      context,
    );
  };
  const checked = (candidate: string): string => {
    if (!isInside(candidate, datasetDir)) refuse(candidate);
    const real = realPathOr(candidate);
    if (!allowOutside && !isInside(real, realPathOr(datasetDir))) refuse(real, "a symlink leaves the folder");
    return candidate;
  };
  if (isAbsolute(path) && isFile(path)) {
    if (allowOutside) return path;
    const real = realPathOr(path);
    if (!isInside(real, realPathOr(datasetDir))) refuse(real, "an absolute path");
    return path;
  }
  const flat = join(datasetDir, basename(path));
  if (isFile(flat)) return checked(flat);
  const direct = resolve(datasetDir, path);
  if (isFile(direct)) return checked(direct);
  let folder = datasetDir;
  for (let depth = 0; depth < PARENT_SEARCH_DEPTH; depth++) {
    const candidate = resolve(folder, path);
    if (isFile(candidate)) return checked(candidate);
    const up = dirname(folder);
    if (up === folder) break;
    folder = up;
  }
  return null;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decode a `data:` URI as the harness does (F3.6): drop everything up to the first comma, strict base64. */
export function decodeDataUri(uri: string): Uint8Array | null {
  const comma = uri.indexOf(",");
  if (comma < 0) return null;
  const payload = uri.slice(comma + 1);
  if (!STRICT_BASE64.test(payload)) return null;
  const buf = Buffer.from(payload, "base64");
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** The user audio of one dataset record (F3.2), or null when the record has none. */
function datasetAudio(o: Json, datasetFile: string, turnNumber: number, lineField: string, allowOutside: boolean): Audio | null {
  const media = mediaReference(o);
  if (media) {
    const field = `${lineField}: ${media.field}`;
    if (media.data.startsWith("http://") || media.data.startsWith("https://")) {
      const problem = remoteUrlProblem(media.data);
      if (problem) throw new VoxError("INVALID_AUDIO", `Failed to resolve media audio for turn ${turnNumber}: ${problem}`, { file: displayPathOf(datasetFile), field });
      return new Audio(audioInit({ url: media.data }));
    }
    if (!media.data.startsWith("data:")) {
      throw new VoxError("INVALID_AUDIO", `Failed to resolve media audio for turn ${turnNumber}: only data: URIs and http(s) URLs are accepted`, { file: displayPathOf(datasetFile), field });
    }
    const bytes = decodeDataUri(media.data);
    if (!bytes) {
      throw new VoxError("INVALID_AUDIO", `Failed to resolve media audio for turn ${turnNumber}: the data: URI is not strict base64`, { file: displayPathOf(datasetFile), field });
    }
    return Audio.fromBytes(bytes, guessMimeType(media.format) ?? "audio/wav");
  }
  const legacy = legacyPath(o);
  if (!legacy) return null;
  const context = { file: displayPathOf(datasetFile), field: `${lineField}: ${legacy.field}` };
  const found = resolveDatasetPath(dirname(datasetFile), legacy.path, context, allowOutside);
  if (!found) throw new VoxError("AUDIO_NOT_FOUND", `Audio file not found: ${resolve(dirname(datasetFile), legacy.path)}`, context);
  const file = localFileReader(found);
  return new Audio(audioInit({ url: found }), () => file);
}

/**
 * One conversation of a dataset as a test case: the user side only (a dataset holds no agent
 * audio, F3.11), each user turn with its audio and reference question.
 */
function loadVoiceLiveDatasetConversation(datasetFile: string, conversationId: string, records: LineRecord[], allowOutside: boolean): LoadedCall {
  const warnings: string[] = [];
  const turns: Turn[] = [];
  let systemPrompt: string | null = null;
  for (const { value, line } of records) {
    const lineField = `line ${line}`;
    if (!isObject(value)) throw new VoxError("INVALID_JSON", "a dataset record must be a JSON object", { file: displayPathOf(datasetFile), field: lineField });
    if (turns.length === 0) systemPrompt = systemPromptOf(value);
    const turnNumber = turns.length + 1;
    const audio = datasetAudio(value, datasetFile, turnNumber, lineField, allowOutside);
    if (!audio) {
      warnings.push(`${lineField}: no audio source found; record skipped`);
      continue;
    }
    turns.push({
      role: "user",
      content: questionOf(value),
      audio,
      metadata: { turn_number: turnNumber, ground_truth: groundTruthOf(value), barge_in: Boolean(value.barge_in), dataset_line: line },
    });
  }
  if (turns.length === 0) {
    throw new VoxError("INVALID_TEST_CASE", `conversation "${conversationId}" has no record with a resolvable audio source`, { file: displayPathOf(datasetFile) });
  }
  const testCase = createTestCase({
    name: conversationId,
    turns,
    metadata: { source_format: "voicelive-dataset", conversation_id: conversationId, system_prompt: systemPrompt },
  });
  return { testCase, warnings };
}
