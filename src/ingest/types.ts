// Shared types of the ingest layer: input formats, what discovery finds (candidates), call references (cheap, main thread), loaded calls (worker) and the contract of a format module.
import type { LoadedCall } from "../analysis/call.js";
import type { AudioLimits } from "../audio/limits.js";
import type { AudioSniff } from "../audio/sniff.js";
import type { CompatMode } from "../model/codec.js";
import { VoxError, type ErrorCode } from "../model/errors.js";
import type { ByteRange, JsonRecords } from "../model/json-records.js";

/** Format ids of formats.md §F0.2 (also the values of `--input-format`). */
export const INPUT_FORMATS = [
  "deepeval-json",
  "deepeval-jsonl",
  "deepeval-sim-folder",
  "voicelive-dataset",
  "voicelive-output",
  "dual-channel",
  "wav",
] as const;

/** An input format id (the values of `--input-format` and `source.format`). */
export type InputFormat = (typeof INPUT_FORMATS)[number];

/**
 * The formats `inputFormat` / `--input-format` can force: every call format. `wav` (a single mono
 * clip) is detected only so that clips are skipped or refused; it holds no call, so forcing it is refused.
 */
export const FORCIBLE_INPUT_FORMATS: readonly InputFormat[] = INPUT_FORMATS.filter((f) => f !== "wav");

/** Why `wav` cannot be forced. */
export const WAV_NOT_FORCIBLE =
  '"wav" (a single mono clip) holds no call: score reads two-channel call recordings (--input-format dual-channel); `voxmetrics analyze` measures clips';

/** Which channel of a dual-channel recording carries the agent (the caller is on the other one). */
export type AgentChannel = "left" | "right";

/** Every option of ingest; defaults in DEFAULT_INGEST_OPTIONS. */
export interface IngestOptions {
  /**
   * Audio acceptance while reading: `deepeval` accepts audio exactly as deepeval does.
   * @defaultValue "voxmetrics"
   */
  compat?: CompatMode;
  /**
   * Skip detection and read every input file (or every candidate file of a folder) as this format.
   * @defaultValue undefined (detect)
   */
  inputFormat?: InputFormat;
  /**
   * Agent side of dual-channel recordings.
   * @defaultValue "right"
   */
  agentChannel?: AgentChannel;
  /**
   * Recover deepeval simulation start times from `deepeval-conversation.wav` by exact sample matching.
   * @defaultValue true
   */
  inferStartTimes?: boolean;
  /**
   * Absolute paths never taken as inputs (e.g. the run's own output files).
   * @defaultValue []
   */
  exclude?: string[];
  /**
   * The decoded-size budget of recordings decoded while reading (dual-channel files, simulation mixes).
   * @defaultValue DEFAULT_AUDIO_LIMITS
   */
  limits?: Partial<AudioLimits>;
  /**
   * Voice Live datasets: accept audio paths that are absolute or that leave the dataset folder
   * through symlinks (datasets come from third parties: refused by default). Relative `../` paths
   * that leave it stay refused (formats.md F3.5).
   * @defaultValue false
   */
  allowOutsidePaths?: boolean;
  /**
   * The audio `url`s of deepeval test cases must resolve, symlinks followed, inside this folder;
   * anything outside is a PATH_REFUSED error record. Null resolves urls as deepeval does (relative
   * to the JSON file, anywhere).
   * @defaultValue null
   */
  confinePaths?: string | null;
  /**
   * The file holding what was read from standard input, read for the input `-` (deepeval JSON or
   * JSONL only; relative audio urls resolve against the working directory).
   * @defaultValue undefined (an input `-` is then an error record)
   */
  stdinPath?: string;
}

/** The input that means standard input, and how it is shown in ids and messages. */
export const STDIN_INPUT = "-";
/** How standard input is named in ids and messages. */
export const STDIN_DISPLAY = "<stdin>";

/** The resolved defaults. */
export const DEFAULT_INGEST_OPTIONS: Readonly<Required<Omit<IngestOptions, "inputFormat" | "exclude" | "limits" | "stdinPath">>> = Object.freeze({
  compat: "voxmetrics",
  agentChannel: "right",
  inferStartTimes: true,
  allowOutsidePaths: false,
  confinePaths: null,
});

/** Defaults overlaid with `partial`; an unknown format, mode or side is an INVALID_OPTION naming the option. */
export function resolveIngestOptions(partial: IngestOptions = {}): Required<Omit<IngestOptions, "inputFormat" | "limits" | "stdinPath">> & Pick<IngestOptions, "inputFormat" | "limits" | "stdinPath"> {
  const o = {
    compat: partial.compat ?? DEFAULT_INGEST_OPTIONS.compat,
    agentChannel: partial.agentChannel ?? DEFAULT_INGEST_OPTIONS.agentChannel,
    inferStartTimes: partial.inferStartTimes ?? DEFAULT_INGEST_OPTIONS.inferStartTimes,
    inputFormat: partial.inputFormat,
    exclude: partial.exclude ?? [],
    limits: partial.limits,
    allowOutsidePaths: partial.allowOutsidePaths ?? DEFAULT_INGEST_OPTIONS.allowOutsidePaths,
    confinePaths: partial.confinePaths ?? DEFAULT_INGEST_OPTIONS.confinePaths,
    stdinPath: partial.stdinPath,
  };
  const bad = (field: string, detail: string): never => {
    throw new VoxError("INVALID_OPTION", detail, { field });
  };
  if (o.compat !== "voxmetrics" && o.compat !== "deepeval") bad("compat", `must be voxmetrics or deepeval, got ${String(o.compat)}`);
  if (o.agentChannel !== "left" && o.agentChannel !== "right") bad("agentChannel", `must be left or right, got ${String(o.agentChannel)}`);
  if (typeof o.inferStartTimes !== "boolean") bad("inferStartTimes", `must be true or false, got ${String(o.inferStartTimes)}`);
  if (typeof o.allowOutsidePaths !== "boolean") bad("allowOutsidePaths", `must be true or false, got ${String(o.allowOutsidePaths)}`);
  if (o.confinePaths !== null && (typeof o.confinePaths !== "string" || o.confinePaths === "")) bad("confinePaths", `must be a folder path or null, got ${String(o.confinePaths)}`);
  if (o.inputFormat === "wav") bad("inputFormat", WAV_NOT_FORCIBLE);
  if (o.inputFormat !== undefined && !INPUT_FORMATS.includes(o.inputFormat)) bad("inputFormat", `must be one of ${FORCIBLE_INPUT_FORMATS.join(", ")}, got ${String(o.inputFormat)}`);
  return o;
}

export type { ByteRange };

/** What every call reference carries: its id and where it lives. */
interface RefLocation {
  /** Unique within a run and stable across runs: what `--resume` matches. */
  id: string;
  /** Absolute path of the file or folder holding the call. */
  path: string;
  /** The path as reported in results (relative to the working directory when inside it). */
  displayPath: string;
}

/** One test case of a deepeval JSON or JSONL file. */
export interface RecordRef extends RefLocation {
  format: "deepeval-json" | "deepeval-jsonl";
  error?: undefined;
  /** 0-based position of the record in its file. */
  index: number;
  range: ByteRange;
  /** 1-based line of the record in a JSONL file, null for JSON containers. */
  line: number | null;
  /** The folder relative audio urls resolve against, when not the file's own (stdin: the working directory). */
  baseDir?: string;
}

/** One conversation of a Voice Live dataset or output file: its records, in file order. */
export interface ConversationRef extends RefLocation {
  format: "voicelive-dataset" | "voicelive-output";
  error?: undefined;
  conversationId: string;
  ranges: ByteRange[];
  /** 1-based line of each record. */
  lines: number[];
}

/** A call that is a whole file or folder: a simulation folder, a dual-channel recording (or a mono clip). */
export interface FileRef extends RefLocation {
  format: "deepeval-sim-folder" | "dual-channel" | "wav";
  error?: undefined;
}

/** An input discovery already knows cannot be read: it becomes an error record carrying the format it was detected as. */
export interface UnreadableRef extends RefLocation {
  /** The format detected, null when none could be (a missing path, an unknown file type, no recognisable record). */
  format: InputFormat | null;
  error: { code: ErrorCode; message: string };
}

/** A call found by discovery: where it lives and how to read it, small enough to send to a worker. */
export type CallRef = RecordRef | ConversationRef | FileRef | UnreadableRef;

/** The outcome of discovery. */
export interface Discovery {
  calls: CallRef[];
  /** Files passed over that may be a mistake (a JSON file holding no call…), one line each, naming the file. */
  warnings: string[];
  /** Files passed over as expected (mono clips inside folders: a call's audio, not a call), one line each, naming the file. */
  skipped: string[];
}

/** What discovery found under an input, read just far enough to tell its format. */
export type Candidate =
  | { kind: "folder"; path: string; names: string[] }
  | { kind: "json"; path: string; bytes: Uint8Array; records: JsonRecords; first: FirstRecord }
  | { kind: "audio"; path: string; sniff: AudioSniff };

/** The first readable record of a JSON file (F0.2 classifies a file by it), or why none was. */
export type FirstRecord = { value: unknown } | { value?: undefined; error: string };

/** How discovery reports a candidate's calls: the format (detected or forced), the id base and displayed path, whether the user named it. */
export interface CandidateContext {
  format: InputFormat;
  id: string;
  displayPath: string;
  /** Named by the user (not found inside a folder): a file that holds no call is then an error record. */
  explicit: boolean;
  /** The folder relative paths resolve against, when not the file's own (stdin: the working directory). */
  baseDir?: string;
}

/** The reference each format's calls have. */
export interface RefByFormat {
  "deepeval-json": RecordRef;
  "deepeval-jsonl": RecordRef;
  "deepeval-sim-folder": FileRef;
  "voicelive-dataset": ConversationRef;
  "voicelive-output": ConversationRef;
  "dual-channel": FileRef;
  wav: FileRef;
}

/**
 * An input format: one module per format exports these three functions (formats.md F0.2–F5), and
 * the table in ./formats/index.ts dispatches to them.
 */
export interface InputFormatModule<R extends CallRef = CallRef> {
  /** Which of this module's formats the candidate holds (the detection test of F0.2), or null. */
  detect(candidate: Candidate): InputFormat | null;
  /** The calls of a candidate of this format (detected or forced), error references included. */
  discover(candidate: Candidate, context: CandidateContext): CallRef[];
  /** Read one call of this format into a test case (runs in the worker); throws a VoxError naming the file and field. */
  load(ref: R, options: IngestOptions): LoadedCall;
}

export type { LoadedCall };
