// Input detection (formats.md F0.2): what a file or folder holds, from its name and first record or header.
import { readFileSync } from "node:fs";
import { AUDIO_EXTENSIONS, extensionOf, sniffAudio } from "./files.js";
import { parseRecord, scanJsonRecords, type JsonRecords } from "./json-records.js";
import { SIM_TURN_FILE } from "./deepeval-sim.js";
import type { InputFormat } from "./types.js";
import { isVoiceLiveDatasetRecord } from "./voicelive-dataset.js";
import { isVoiceLiveOutputRecord } from "./voicelive-output.js";

/** Records examined when the first ones do not parse. */
const DETECTION_RECORDS = 20;

/** What a file holds. `format` is null when it is not a call (a sidecar, a summary, a clip inside a folder…). */
export interface FileDetection {
  format: InputFormat | null;
  /** Why the file is no call, or why it cannot be read at all (with `corrupt`). */
  reason?: string;
  /** Nothing in the file can be read: one error record when the file was asked for. */
  corrupt?: boolean;
  /** An audio file whose channel count only decoding tells: read as a recording when named directly. */
  undetermined?: boolean;
  /** The file's bytes and records, for JSON files (discovery goes on from them). */
  bytes?: Uint8Array;
  records?: JsonRecords;
}

/** True when the name is a JSON or JSONL file. */
export function isJsonName(name: string): boolean {
  const ext = extensionOf(name);
  return ext === "json" || ext === "jsonl";
}

/** True when the name is an audio file. */
export function isAudioName(name: string): boolean {
  return AUDIO_EXTENSIONS.has(extensionOf(name));
}

/** True when a folder directly holds deepeval turn files (one simulated conversation). */
export function isSimConversationFolder(names: string[]): boolean {
  return names.some((n) => SIM_TURN_FILE.test(n));
}

/** Classify one parsed record (F0.2 orders 2–4). */
export function classifyRecord(value: unknown, jsonl: boolean): InputFormat | null {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    if ("turns" in value) return jsonl ? "deepeval-jsonl" : "deepeval-json";
    if (isVoiceLiveOutputRecord(value)) return "voicelive-output";
    if (isVoiceLiveDatasetRecord(value)) return "voicelive-dataset";
  }
  return null;
}

/** Detect a JSON/JSONL file's format from its first readable record (a `turns` key of any type means a test case); `forced` skips the test. */
export function detectJsonFile(path: string, forced?: InputFormat): FileDetection {
  const bytes = readFileSync(path);
  const records = scanJsonRecords(bytes, extensionOf(path) === "jsonl");
  const jsonl = records.container === "lines";
  if (forced) return { format: forced, bytes, records };
  const decoder = new TextDecoder();
  let parsed = 0;
  let firstError = "";
  for (const [start, end] of records.ranges.slice(0, DETECTION_RECORDS)) {
    let value: unknown;
    try {
      value = parseRecord(decoder.decode(bytes.subarray(start, end)));
    } catch (e) {
      firstError ||= (e as Error).message;
      continue;
    }
    parsed++;
    const format = classifyRecord(value, jsonl);
    if (format) return { format, bytes, records };
    break;
  }
  if (records.ranges.length === 0) return { format: null, corrupt: true, reason: "the file holds no JSON record" };
  if (parsed === 0) return { format: null, corrupt: true, reason: `not valid JSON (${firstError})` };
  return { format: null, reason: "no deepeval test case (turns), Voice Live dataset or Voice Live output record" };
}

/** Detect an audio file: ≥ 2 channels is a dual-channel recording, 1 a single clip; unknown for headers we do not sniff. */
export function detectAudioFile(path: string, forced?: InputFormat): FileDetection {
  if (forced) return { format: forced };
  const { container, channels } = sniffAudio(path);
  if (channels === null) {
    return container === "wav"
      ? { format: null, corrupt: true, reason: "unreadable WAV header (no fmt chunk)" }
      : { format: null, undetermined: true, reason: `the channel count of this ${container === "other" ? "audio" : container} file is only known after decoding (name it directly or use --input-format dual-channel)` };
  }
  if (channels >= 2) return { format: "dual-channel" };
  return { format: "wav", reason: "a mono clip, not a call recording (score reads dual-channel recordings; use `analyze` for clips)" };
}
