// The error hierarchy: every error carries a stable `code`, and where known the file and field it is about.

/** The stable code of every error voxmetrics raises (the `error.code` of error records). */
export type ErrorCode =
  | "INVALID_JSON"
  | "INVALID_TEST_CASE"
  | "INVALID_TURN"
  | "INVALID_AUDIO"
  | "AUDIO_NOT_FOUND"
  | "DECODE_ERROR"
  | "FFMPEG_MISSING"
  | "UNSUPPORTED_INPUT"
  | "PATH_REFUSED"
  | "IO_ERROR"
  | "INVALID_OPTION"
  | "WORKER_CRASHED"
  | "KERNEL_ERROR"
  | "LIMIT_EXCEEDED"
  | "CALL_TIMEOUT"
  | "OUTPUT_LOCKED"
  | "TOOL_MISSING"
  | "MODEL_FAILED"
  | "MODEL_TIMEOUT"
  | "MODEL_UNREACHABLE"
  | "MODEL_HTTP_ERROR"
  | "MODEL_BAD_RESPONSE"
  | "ABORTED"
  | "CONNECT_FAILED"
  | "PROTOCOL_ERROR"
  | "AGENT_HANGUP"
  | "NOT_SUPPORTED"
  | "TTS_UNAVAILABLE"
  | "INVALID_SCRIPT"
  | "MERGE_REFUSED"
  | "INTERNAL";

export interface ErrorContext {
  /** The file the problem is in (as given by the user, or resolved). */
  file?: string;
  /** A path to the offending field, e.g. `turns[2].audio.start_time`. */
  field?: string;
}

/** Base class of every error voxmetrics raises on purpose. */
export class VoxError extends Error {
  readonly code: ErrorCode;
  readonly file?: string;
  readonly field?: string;
  /** The message without the file/field prefix (for deepeval-compatible texts). */
  readonly detail: string;

  constructor(code: ErrorCode, detail: string, context: ErrorContext = {}) {
    super(formatLocated(detail, context));
    this.name = "VoxError";
    this.code = code;
    this.detail = detail;
    this.file = context.file;
    this.field = context.field;
  }

  /** The same error located in a file (keeps an existing file). */
  inFile(file: string): VoxError {
    if (this.file) return this;
    return new VoxError(this.code, this.detail, { file, field: this.field });
  }

  toJSON(): { code: ErrorCode; message: string; file?: string; field?: string } {
    return { code: this.code, message: this.message, file: this.file, field: this.field };
  }
}

function formatLocated(detail: string, { file, field }: ErrorContext): string {
  const where = [file, field].filter(Boolean).join(": ");
  return where ? `${where}: ${detail}` : detail;
}

/** Wrap anything thrown into a VoxError (unknown errors become INTERNAL). */
export function toVoxError(err: unknown, context: ErrorContext = {}): VoxError {
  if (err instanceof VoxError) return context.file ? err.inFile(context.file) : err;
  const message = err instanceof Error ? err.message : String(err);
  return new VoxError("INTERNAL", message, context);
}
