// A Voice Live dataset read for replay (formats.md F3): entries with their audio source, grouped into conversations as the harness groups them (F3.7).
import { readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { VoxError } from "../model/errors.js";
import { decodeDataUri, groundTruthOf, legacyPath, mediaReference, questionOf, resolveDatasetPath, systemPromptOf } from "../ingest/formats/voicelive-dataset.js";
import { DEFAULT_INSTRUCTIONS } from "./config.js";

/** How entries become sessions (the harness's `--session-mode`). */
export type GroupingMode = "per-conversation" | "per-file" | "single";
/** How dataset turns are grouped into realtime sessions: per conversation id (the harness's default), per file, or all in one. */
export const GROUPING_MODES: readonly GroupingMode[] = ["per-conversation", "per-file", "single"];

/** Where a turn's caller audio comes from. */
export type EntryAudio = { kind: "file"; path: string } | { kind: "media"; data: string; format: string; field: string };

/** One dataset entry, ready to replay. */
export interface ReplayEntry {
  /** 1-based line in the dataset file. */
  line: number;
  /** `conversationID` → `conversation_id` → "default", as in the dataset (F3.3). */
  conversationId: unknown;
  question: string;
  groundTruth: unknown;
  systemPrompt: string | null;
  /** The entry's own tool list (an object wrapped in a list), or null when it has none. */
  toolDefinitions: unknown[] | null;
  bargeIn: boolean;
  audio: EntryAudio;
}

/** One session's worth of entries. */
export interface ReplayConversation {
  /** Group key: the conversation id as text (per-conversation), `file-<i>` (per-file) or `single`. */
  key: string;
  /** The dataset file (absolute). */
  datasetPath: string;
  entries: ReplayEntry[];
  /** Instructions from the group's first entry, else the default. */
  instructions: string;
  /** Tools from the group's first entry. */
  tools: unknown[];
  /** turn_number of each entry (F3.7). */
  turnNumbers: number[];
}

export interface ReplayDataset {
  path: string;
  conversations: ReplayConversation[];
  /** Entries with an audio source (the harness's expected turns). */
  expectedTurns: number;
  /** Skipped lines and why. */
  warnings: string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** `tool_definitions`: a list as is, an object wrapped in a list, anything else (null, absent) → null. */
export function toolListOf(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (isObject(v)) return [v];
  return null;
}

/** The grouping text of a conversation id (non-strings as JSON). */
export function conversationKeyOf(id: unknown): string {
  return typeof id === "string" ? id : JSON.stringify(id);
}

/** Read a dataset file into conversations; lines without usable audio are skipped with a warning (F3.1). */
export function readReplayDataset(path: string, grouping: GroupingMode = "per-conversation"): ReplayDataset {
  const abs = resolve(path);
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (e) {
    throw new VoxError("IO_ERROR", `cannot read the dataset: ${(e as Error).message}`, { file: path });
  }
  const warnings: string[] = [];
  const entries: ReplayEntry[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let o: unknown;
    try {
      o = JSON.parse(raw);
    } catch (e) {
      warnings.push(`${path}: line ${line}: JSON syntax error (${(e as Error).message}); skipped`);
      return;
    }
    if (!isObject(o)) {
      warnings.push(`${path}: line ${line}: not a JSON object; skipped`);
      return;
    }
    let audio: EntryAudio | null = null;
    const media = mediaReference(o);
    if (media) audio = { kind: "media", data: media.data, format: media.format, field: media.field };
    else {
      const legacy = legacyPath(o);
      if (!legacy) {
        warnings.push(`${path}: line ${line}: no audio source found; skipped`);
        return;
      }
      let found: string | null;
      try {
        found = resolveDatasetPath(dirname(abs), legacy.path, { file: path, field: `line ${line}: ${legacy.field}` });
      } catch (e) {
        warnings.push(`${(e as Error).message}; skipped`);
        return;
      }
      if (!found) {
        warnings.push(`${path}: line ${line}: ${legacy.field}: audio file not found: ${resolve(dirname(abs), legacy.path)}; skipped`);
        return;
      }
      audio = { kind: "file", path: found };
    }
    entries.push({
      line,
      conversationId: o.conversationID || o.conversation_id || "default",
      question: questionOf(o),
      groundTruth: groundTruthOf(o),
      systemPrompt: systemPromptOf(o),
      toolDefinitions: toolListOf(o.tool_definitions),
      bargeIn: Boolean(o.barge_in),
      audio,
    });
  });
  return { path: abs, conversations: groupEntries(abs, entries, grouping), expectedTurns: entries.length, warnings };
}

/** Group entries (F3.7): by conversation id in order of first appearance, one per entry, or all in one. */
export function groupEntries(datasetPath: string, entries: ReplayEntry[], grouping: GroupingMode): ReplayConversation[] {
  const groups: { key: string; entries: ReplayEntry[] }[] = [];
  if (grouping === "per-file") entries.forEach((e, i) => groups.push({ key: `file-${i + 1}`, entries: [e] }));
  else if (grouping === "single") {
    if (entries.length) groups.push({ key: "single", entries });
  } else {
    const byKey = new Map<string, ReplayEntry[]>();
    for (const e of entries) {
      const key = conversationKeyOf(e.conversationId);
      let list = byKey.get(key);
      if (!list) {
        list = [];
        byKey.set(key, list);
        groups.push({ key, entries: list });
      }
      list.push(e);
    }
  }
  return groups.map(({ key, entries: list }) => ({
    key,
    datasetPath,
    entries: list,
    instructions: list[0].systemPrompt || DEFAULT_INSTRUCTIONS,
    tools: list[0].toolDefinitions ?? [],
    turnNumbers: list.map((_, i) => (grouping === "per-file" ? 1 : i + 1)),
  }));
}

/** The caller audio bytes of an entry: the file, or a strict-base64 `data:` URI (http(s) media is not fetched: the engine is offline). */
export function entryAudioBytes(entry: ReplayEntry, turnNumber: number): { bytes: Uint8Array; name: string } {
  if (entry.audio.kind === "file") return { bytes: new Uint8Array(readFileSync(entry.audio.path)), name: entry.audio.path };
  const { data, field } = entry.audio;
  const bytes = data.startsWith("data:") ? decodeDataUri(data) : null;
  if (!bytes) {
    const why = data.startsWith("http://") || data.startsWith("https://") ? "remote media is not fetched (offline engine)" : data.startsWith("data:") ? "the data: URI is not strict base64" : "only data: URIs are accepted";
    throw new VoxError("INVALID_AUDIO", `Failed to resolve media audio for turn ${turnNumber}: ${why}`, { field: `line ${entry.line}: ${field}` });
  }
  return { bytes, name: `line ${entry.line} (media)` };
}

/** The output file stem of a dataset: its name without the extension. */
export function datasetStem(path: string): string {
  return basename(path).replace(/\.[^.]+$/, "");
}
