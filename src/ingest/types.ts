// Shared types of the ingest layer: input formats, call references (cheap, main thread) and loaded calls (worker).
import type { CompatMode } from "../model/codec.js";
import type { ErrorCode } from "../model/errors.js";
import type { LoadedCall } from "../analysis/call.js";

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

export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Which channel of a dual-channel recording carries the agent (the caller is on the other one). */
export type AgentChannel = "left" | "right";

export interface IngestOptions {
  /** `deepeval` accepts audio exactly as deepeval does; `voxmetrics` (default) is wider. */
  compat?: CompatMode;
  /** Skip detection and read every input file (or every candidate file of a folder) as this format. */
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
  /** Absolute paths never taken as inputs (e.g. the run's own output files). */
  exclude?: string[];
}

/** A byte range [start, end) of one JSON record inside a file. */
export type ByteRange = [number, number];

/** A call found by discovery: where it lives and how to read it, small enough to send to a worker. */
export interface CallRef {
  /** Unique within a run and stable across runs: what `--resume` matches. */
  id: string;
  format: InputFormat;
  /** Absolute path of the file or folder holding the call. */
  path: string;
  /** The path as reported in results (relative to the working directory when inside it). */
  displayPath: string;
  /** 0-based record index for JSON containers. */
  index?: number;
  /** Byte ranges of the records that make up the call (JSON/JSONL formats). */
  ranges?: ByteRange[];
  /** 1-based line numbers matching `ranges` (JSONL files). */
  lines?: number[];
  /** Conversation id for Voice Live files. */
  conversationId?: string;
  /** Set when discovery already knows the call cannot be read; it becomes an error record. */
  error?: { code: ErrorCode; message: string };
}

export type { LoadedCall };

/** The outcome of discovery. */
export interface Discovery {
  calls: CallRef[];
  /** Files passed over (mono clips inside folders, unreadable sidecars…), one line each. */
  warnings: string[];
}

/** The resolved defaults. */
export const DEFAULT_INGEST_OPTIONS: Readonly<Required<Omit<IngestOptions, "inputFormat" | "exclude">>> = Object.freeze({
  compat: "voxmetrics",
  agentChannel: "right",
  inferStartTimes: true,
});
