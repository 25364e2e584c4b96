// Single mono clips (formats.md F0.2 order 6): measured by `analyze`, never scored as calls; detected so that they are skipped (or refused when named) rather than mistaken for recordings.
import { VoxError } from "../../model/errors.js";
import type { Candidate, CandidateContext, CallRef, FileRef, IngestOptions, InputFormat, LoadedCall } from "../types.js";

const NOT_A_CALL = "a mono clip, not a call recording (score reads dual-channel recordings; use `analyze` for clips)";

/** An audio file whose header says it has one channel (or none). */
export function detect(c: Candidate): InputFormat | null {
  return c.kind === "audio" && c.sniff.channels !== null && c.sniff.channels < 2 ? "wav" : null;
}

/** No call: a clip found inside a folder is skipped (and counted); one named directly is an error record. */
export function discover(c: Candidate, { id, displayPath, explicit }: CandidateContext): CallRef[] {
  return explicit ? [{ id, format: "wav", path: c.path, displayPath, error: { code: "UNSUPPORTED_INPUT", message: `${displayPath}: ${NOT_A_CALL}` } }] : [];
}

/** A clip reference cannot be scored. */
export function load(ref: FileRef, _options: IngestOptions): LoadedCall {
  throw new VoxError("UNSUPPORTED_INPUT", NOT_A_CALL, { file: ref.displayPath });
}
