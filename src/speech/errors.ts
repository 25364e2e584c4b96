// Errors of speech and chat models (local tools and HTTP services), with stable codes and never a secret in the text.
import { VoxError, type ErrorCode } from "../model/errors.js";

/** Codes a model call can fail with (see docs/speech-models.md for what each means). */
export type SpeechModelErrorCode = Extract<
  ErrorCode,
  "TOOL_MISSING" | "MODEL_FAILED" | "MODEL_TIMEOUT" | "MODEL_UNREACHABLE" | "MODEL_HTTP_ERROR" | "MODEL_BAD_RESPONSE" | "ABORTED" | "INVALID_OPTION" | "INVALID_AUDIO" | "DECODE_ERROR"
>;

export interface SpeechModelErrorContext {
  /** The model (or tool) that failed, e.g. `gpt-4o-transcribe`, `pocketsphinx-en-us`. */
  model: string;
  /** `POST https://host/v1/audio/speech` for HTTP calls, the tool path for local ones. */
  endpoint?: string;
  /** HTTP status of the last response, when there was one. */
  status?: number;
  /** Requests or runs made before giving up. */
  attempts?: number;
}

/** A model call that failed; `code` says how, the message says what to do about it. */
export class SpeechModelError extends VoxError {
  readonly model: string;
  readonly endpoint?: string;
  readonly status?: number;
  readonly attempts?: number;

  constructor(code: SpeechModelErrorCode, detail: string, context: SpeechModelErrorContext) {
    super(code, detail);
    this.name = "SpeechModelError";
    this.model = context.model;
    this.endpoint = context.endpoint;
    this.status = context.status;
    this.attempts = context.attempts;
  }

  override toJSON(): ReturnType<VoxError["toJSON"]> & { model: string; endpoint?: string; status?: number; attempts?: number } {
    return { ...super.toJSON(), model: this.model, endpoint: this.endpoint, status: this.status, attempts: this.attempts };
  }
}
