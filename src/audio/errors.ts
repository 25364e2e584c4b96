// Decode failures: deepeval's exact message (what the parity metrics surface) plus a precise detail for people.
import { VoxError, type ErrorContext } from "../model/errors.js";

/** deepeval's three decode-failure strings (voice-metrics.md §2.4). */
export const DECODE_MESSAGES = {
  notDecodable: "Audio is not a decodable PCM WAV.",
  noSamples: "Audio contains no decodable PCM samples.",
  oddBytes: "bytes length not a multiple of item size",
} as const;

export type DecodeMessage = (typeof DECODE_MESSAGES)[keyof typeof DECODE_MESSAGES];

/** A clip that cannot be decoded. `metricMessage` is what the metrics report; `message` says exactly why. */
export class DecodeError extends VoxError {
  readonly metricMessage: DecodeMessage;
  constructor(metricMessage: DecodeMessage, detail: string, context: ErrorContext = {}, code: VoxError["code"] = "DECODE_ERROR") {
    super(code, detail, context);
    this.name = "DecodeError";
    this.metricMessage = metricMessage;
  }
}
