// deepeval voice-simulation output folders (formats.md F2): turn files in order, start times recovered from the combined render; one call per folder.
import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { basename, join } from "node:path";
import { decodeAudio, downmixTruncating, type DecodedAudio } from "../../audio/index.js";
import { openCompatRecordingReader, type RecordingReader } from "../../audio/wav-range.js";
import { LOCATE_MAX_SEARCH_SAMPLES, locateClipsInMix, type ClipReader, type MixSource } from "../../dsp/locate.js";
import { Audio, audioInit, guessMimeType } from "../../model/audio.js";
import { encodeBase64 } from "../../model/base64.js";
import type { CompatMode } from "../../model/codec.js";
import { VoxError } from "../../model/errors.js";
import { createTestCase, type Role, type Turn } from "../../model/test-case.js";
import { isFile, localFileReader } from "../files.js";
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

/** The (never read) inline bytes every turn hands its Audio. */
const NO_BYTES = new Uint8Array(0);

/**
 * A turn file as deepeval's in-memory Audio (`Audio.fromBytes`: inline, no url), whose bytes are
 * read from the file each time they are asked for instead of being held: a folder of hours of turns
 * is never in memory at once. The bytes stay valid until the next turn of the same folder is read
 * (one buffer per folder): read or copy them before asking for another turn's bytes.
 */
export class SimTurnAudio extends Audio {
  constructor(
    private readonly files: TurnFileReader,
    private readonly file: string,
    mimeType: string,
    start_time: number | null,
  ) {
    super(audioInit({ mimeType, start_time }), undefined, NO_BYTES);
  }

  override getBytes(): Uint8Array {
    return this.files.read(this.file);
  }

  override getBase64(): string | null {
    return encodeBase64(this.getBytes());
  }
}

/**
 * Bytes of clips decoded while locating that are kept for analysis under `--compat deepeval` (each
 * clip, in file order, that still fits in this many bytes of samples); analysis decodes the others
 * again from their files.
 */
export const KEEP_DECODED_BYTES = 16 << 20;

/** Turn-file buffers grow in steps of this many bytes. */
const READ_GRAIN = 64 << 10;

/**
 * Reads the turn files of one folder into one buffer (as large as the largest file so far), valid
 * until the next read: the locator reads every clip at least twice and analysis once more, and fresh
 * memory for each would only be garbage.
 */
export class TurnFileReader {
  private buffer = new ArrayBuffer(0);

  read(path: string): Uint8Array {
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      if (this.buffer.byteLength < size) this.buffer = new ArrayBuffer(Math.ceil(size / READ_GRAIN) * READ_GRAIN);
      const bytes = new Uint8Array(this.buffer, 0, size);
      let got = 0;
      for (let n = 1; got < size && n > 0; got += n) n = readSync(fd, bytes, got, size - got, got);
      return bytes.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }
}

/** Read one conversation folder into a test case (F2.5), recovering start times when the render is there. */
export function loadSimConversation(dir: string, options: IngestOptions = {}, reading: { chunkFrames?: number; keepDecodedBytes?: number } = {}): LoadedCall {
  const files = listSimTurnFiles(dir);
  if (files.length === 0) {
    throw new VoxError("UNSUPPORTED_INPUT", "the folder holds no deepeval-turn-<n>-<role>.<ext> files", { file: dir });
  }
  const warnings: string[] = [];
  // Each turn file is checked as reading it checks it (the same errors, now), and read only when its samples are needed.
  const paths = files.map((f) => localFileReader(join(dir, f.name)).path);
  const reader = new TurnFileReader();
  const mixPath = join(dir, SIM_CONVERSATION_FILE);
  let starts: Array<number | null> = files.map(() => null);
  const compat = options.compat ?? DEFAULT_INGEST_OPTIONS.compat;
  const clips = new Map<number, DecodedAudio>();
  if (options.inferStartTimes ?? DEFAULT_INGEST_OPTIONS.inferStartTimes) {
    if (isFile(mixPath)) {
      const overBudget = new Set<number>();
      starts = recoverStartTimes(mixPath, paths, reader, compat, clips, warnings, overBudget, reading.chunkFrames, reading.keepDecodedBytes);
      // The turns a warning already named (the search could not hold enough of the render) are not named twice.
      const missing = files.filter((_, i) => starts[i] === null && !overBudget.has(i)).map((f) => f.name);
      if (missing.length > 0) warnings.push(`start_time left null for ${missing.join(", ")}: not placeable exactly in ${SIM_CONVERSATION_FILE}`);
    } else {
      warnings.push(`no ${SIM_CONVERSATION_FILE}: start times unknown, turn-taking is skipped`);
    }
  }
  const turns: Turn[] = files.map((f, i) => ({
    role: f.role,
    content: "",
    audio: new SimTurnAudio(reader, paths[i], guessMimeType(f.ext) ?? "audio/wav", starts[i]),
    metadata: { source_file: f.name },
  }));
  return { testCase: createTestCase({ turns, metadata: { source_format: "deepeval-sim-folder" } }), warnings, decoded: { compat, byTurn: clips } };
}

/**
 * Clip offsets (seconds) inside the render, null where a clip cannot be placed exactly. Clips are
 * decoded as deepeval reads them, one at a time from their files, whenever the locator needs their
 * samples (it keeps only their lengths and anchors in between); under `--compat deepeval` that is
 * also how analysis decodes them, so those that fit in KEEP_DECODED_BYTES are kept in `decoded` (by
 * turn index) instead of being decoded a second time. The render is read from its file chunk by
 * chunk, mixed down to mono (deepeval's truncating mix) and written straight into the locator's
 * WebAssembly memory, a window at a time (read a second time only when the layout needs the
 * whole-render search): JavaScript never holds it whole.
 */
function recoverStartTimes(
  mixPath: string,
  clipPaths: string[],
  files: TurnFileReader,
  compat: CompatMode,
  decoded: Map<number, DecodedAudio>,
  warnings: string[],
  overBudget: Set<number>,
  chunkFrames?: number,
  keepDecodedBytes = KEEP_DECODED_BYTES,
): Array<number | null> {
  let mix: RecordingReader;
  try {
    mix = openCompatRecordingReader(mixPath, { name: SIM_CONVERSATION_FILE, chunkFrames });
  } catch (e) {
    // A file the system will not read is the call's error, as before; an undecodable render only costs the start times.
    if ((e as NodeJS.ErrnoException).syscall !== undefined) throw e;
    warnings.push(`${SIM_CONVERSATION_FILE} is not readable (${(e as Error).message}); start times unknown`);
    return clipPaths.map(() => null);
  }
  try {
    let kept = 0;
    const clips = clipPaths.map((path, i): ClipReader => () => {
      let d = decoded.get(i);
      if (!d) {
        try {
          d = decodeAudio(files.read(path), { compat: "deepeval" });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).syscall !== undefined) throw e;
          return null;
        }
        // A clip kept for analysis gets its own samples (they may be a view on the reader's buffer).
        if (compat === "deepeval" && kept + d.samples.byteLength <= keepDecodedBytes) {
          d = { ...d, samples: d.samples.slice() };
          decoded.set(i, d);
          kept += d.samples.byteLength;
        }
      }
      return d.sampleRate === mix.sampleRate ? downmixTruncating(d.samples, d.channels) : null;
    });
    const render: MixSource = {
      length: mix.frames,
      fill: (put) => {
        for (const c of mix.chunks()) put(downmixTruncating(c.samples.subarray(0, c.frames * mix.channels), mix.channels));
      },
    };
    const names = clipPaths.map((p) => basename(p));
    const onOverBudget = (left: number[], samples: number) => {
      for (const i of left) overBudget.add(i);
      warnings.push(
        `start_time left null for ${left.map((i) => names[i]).join(", ")}: their audio recurs across ${(samples / mix.sampleRate).toFixed(1)} s of ${SIM_CONVERSATION_FILE}, more than the clip search holds at once (${(LOCATE_MAX_SEARCH_SAMPLES / mix.sampleRate).toFixed(1)} s)`,
      );
    };
    return locateClipsInMix(render, clips, { onOverBudget }).map((o) => (o === null ? null : o / mix.sampleRate));
  } finally {
    mix.dispose();
  }
}
