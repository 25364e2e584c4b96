// deepeval voice-simulation output folders (formats.md F2): turn files in order, start times recovered from the combined render; one call per folder.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeAudio, downmixTruncating, type DecodedAudio } from "../../audio/index.js";
import { openCompatRecordingReader, type RecordingReader } from "../../audio/wav-range.js";
import { locateClipsInMix, type MixSource } from "../../dsp/locate.js";
import { Audio, guessMimeType } from "../../model/audio.js";
import type { CompatMode } from "../../model/codec.js";
import { VoxError } from "../../model/errors.js";
import { createTestCase, type Role, type Turn } from "../../model/test-case.js";
import { isFile, readFileBytes } from "../files.js";
import { DEFAULT_INGEST_OPTIONS, type Candidate, type CandidateContext, type CallRef, type FileRef, type IngestOptions, type InputFormat, type LoadedCall } from "../types.js";

/** A turn file name: `deepeval-turn-<n>-<role>.<ext>` (F2.1). */
const SIM_TURN_FILE = /^deepeval-turn-(\d+)-(user|assistant)\.(wav|mp3|opus|aac|flac|pcm)$/;
/** The combined render (F2.4). */
const SIM_CONVERSATION_FILE = "deepeval-conversation.wav";

/** A conversation folder (F0.2 order 1): it directly holds deepeval turn files. */
export function detect(c: Candidate): InputFormat | null {
  return c.kind === "folder" && c.names.some((n) => SIM_TURN_FILE.test(n)) ? "deepeval-sim-folder" : null;
}

/** The folder is one call. */
export function discover(c: Candidate, { id, displayPath }: CandidateContext): CallRef[] {
  return [{ id, format: "deepeval-sim-folder", path: c.path, displayPath }];
}

/** The folder's turns, start times recovered from the render (F2.5). */
export function load(ref: FileRef, options: IngestOptions): LoadedCall {
  return loadSimConversation(ref.path, options);
}

export interface SimTurnFile {
  n: number;
  role: Role;
  ext: string;
  name: string;
}

/** The turn files a folder holds directly, in conversation order (n ascending, user before assistant). */
export function listSimTurnFiles(dir: string, names: string[] = readdirSync(dir)): SimTurnFile[] {
  const out: SimTurnFile[] = [];
  for (const name of names) {
    const m = SIM_TURN_FILE.exec(name);
    if (m) out.push({ n: Number(m[1]), role: m[2] as Role, ext: m[3], name });
  }
  return out.sort((a, b) => a.n - b.n || (a.role === b.role ? a.name.localeCompare(b.name) : a.role === "user" ? -1 : 1));
}

/** Read one conversation folder into a test case (F2.5), recovering start times when the render is there. */
export function loadSimConversation(dir: string, options: IngestOptions = {}, reading: { chunkFrames?: number } = {}): LoadedCall {
  const files = listSimTurnFiles(dir);
  if (files.length === 0) {
    throw new VoxError("UNSUPPORTED_INPUT", "the folder holds no deepeval-turn-<n>-<role>.<ext> files", { file: dir });
  }
  const warnings: string[] = [];
  const bytes = files.map((f) => readFileBytes(join(dir, f.name)));
  const mixPath = join(dir, SIM_CONVERSATION_FILE);
  let starts: Array<number | null> = files.map(() => null);
  const compat = options.compat ?? DEFAULT_INGEST_OPTIONS.compat;
  const clips = new Map<number, DecodedAudio>();
  if (options.inferStartTimes ?? DEFAULT_INGEST_OPTIONS.inferStartTimes) {
    if (isFile(mixPath)) {
      starts = recoverStartTimes(mixPath, bytes, compat, clips, warnings, reading.chunkFrames);
      const missing = files.filter((_, i) => starts[i] === null).map((f) => f.name);
      if (missing.length > 0) warnings.push(`start_time left null for ${missing.join(", ")}: not placeable exactly in ${SIM_CONVERSATION_FILE}`);
    } else {
      warnings.push(`no ${SIM_CONVERSATION_FILE}: start times unknown, turn-taking is skipped`);
    }
  }
  const turns: Turn[] = files.map((f, i) => ({
    role: f.role,
    content: "",
    audio: Audio.fromBytes(bytes[i], guessMimeType(f.ext) ?? "audio/wav", { start_time: starts[i] }),
    metadata: { source_file: f.name },
  }));
  return { testCase: createTestCase({ turns, metadata: { source_format: "deepeval-sim-folder" } }), warnings, decoded: { compat, byTurn: clips } };
}

/**
 * Clip offsets (seconds) inside the render, null where a clip cannot be placed exactly. Clips are
 * decoded as deepeval reads them; under `--compat deepeval` that is also how analysis decodes them,
 * so they are kept in `decoded` (by turn index) instead of being decoded a second time. The render
 * is read from its file chunk by chunk, mixed down to mono (deepeval's truncating mix) and written
 * straight into the locator's WebAssembly memory, a window at a time (read a second time only when
 * the layout needs the whole-render search): JavaScript never holds it whole. The clips are held
 * decoded while locating (decoding them again when needed cost more peak memory: garbage).
 */
function recoverStartTimes(
  mixPath: string,
  clipBytes: Uint8Array[],
  compat: CompatMode,
  decoded: Map<number, DecodedAudio>,
  warnings: string[],
  chunkFrames?: number,
): Array<number | null> {
  let mix: RecordingReader;
  try {
    mix = openCompatRecordingReader(mixPath, { name: SIM_CONVERSATION_FILE, chunkFrames });
  } catch (e) {
    // A file the system will not read is the call's error, as before; an undecodable render only costs the start times.
    if ((e as NodeJS.ErrnoException).syscall !== undefined) throw e;
    warnings.push(`${SIM_CONVERSATION_FILE} is not readable (${(e as Error).message}); start times unknown`);
    return clipBytes.map(() => null);
  }
  try {
    const clips = clipBytes.map((b, i) => {
      try {
        const d = decodeAudio(b, { compat: "deepeval" });
        if (compat === "deepeval") decoded.set(i, d);
        return d.sampleRate === mix.sampleRate ? downmixTruncating(d.samples, d.channels) : null;
      } catch {
        return null;
      }
    });
    const render: MixSource = {
      length: mix.frames,
      fill: (put) => {
        for (const c of mix.chunks()) put(downmixTruncating(c.samples.subarray(0, c.frames * mix.channels), mix.channels));
      },
    };
    return locateClipsInMix(render, clips).map((o) => (o === null ? null : o / mix.sampleRate));
  } finally {
    mix.dispose();
  }
}
