// Dual-channel call recordings (formats.md F5): speech activity per channel becomes turns with start times on the call clock; one call per recording.
import { readFileSync, statSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { basename, dirname, join } from "node:path";
import { standardsSampleRateProblem } from "../../analysis/acoustics.js";
import { segmentsFromRuns, speechRunOptions } from "../../analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../analysis/acoustics-options.js";
import { openRecordingReader, type RecordingReader } from "../../audio/wav-range.js";
import { speechRunsOfChannels } from "../../dsp/recording-stream.js";
import { VoxError } from "../../model/errors.js";
import { createTestCase, type Role, type Turn } from "../../model/test-case.js";
import { regularFileProblem } from "../file-kind.js";
import { displayPathOf, isFile } from "../files.js";
import { RecordingHandle, RecordingSpanAudio } from "../recording-span.js";
import { DEFAULT_INGEST_OPTIONS, type Candidate, type CandidateContext, type CallRef, type FileRef, type IngestOptions, type InputFormat, type LoadedCall } from "../types.js";

/** A recording (F0.2 order 5): an audio file whose header says it has two channels or more. */
export function detect(c: Candidate): InputFormat | null {
  return c.kind === "audio" && c.sniff.channels !== null && c.sniff.channels >= 2 ? "dual-channel" : null;
}

/** The recording is one call. */
export function discover(c: Candidate, { id, displayPath }: CandidateContext): CallRef[] {
  return [{ id, format: "dual-channel", path: c.path, displayPath }];
}

/** The recording cut into party turns (F5.2). */
export function load(ref: FileRef, options: IngestOptions): LoadedCall {
  return loadDualChannel(ref.path, options);
}

/** Speech segments [start_s, end_s] of each of `channels` of a recording, read in one pass chunk by chunk, with the engine's speech-activity defaults (acoustics.md §2.3). */
function detectChannelSpeech(recording: RecordingReader, channels: number[]): SpeechSegment[][] {
  if (recording.frames === 0) return channels.map(() => []);
  return speechRunsOfChannels(recording, channels, speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS)).map((runs) => segmentsFromRuns(runs, DEFAULT_ACOUSTICS_OPTIONS));
}

/** A speech segment [start, end] in seconds. */
export type SpeechSegment = [number, number];

export interface PartyTurnOptions {
  /**
   * A party's segments separated by a gap shorter than this stay one turn (unless the other party starts inside the gap).
   * @defaultValue 1.0 (seconds)
   */
  maxInternalGap?: number;
}

export const DEFAULT_PARTY_TURN_OPTIONS: Readonly<Required<PartyTurnOptions>> = Object.freeze({ maxInternalGap: 1.0 });

/** One party turn on the call clock. */
export interface PartyTurn {
  role: Role;
  start: number;
  end: number;
  segments: SpeechSegment[];
}

/**
 * Group each party's speech segments into turns (F5.2): a turn is a maximal run of one party's
 * segments whose internal gaps are all < maxInternalGap and inside which the other party does not
 * start speaking. Turns are ordered by start, caller (user) first on ties.
 */
export function buildPartyTurns(caller: SpeechSegment[], agent: SpeechSegment[], options: PartyTurnOptions = {}): PartyTurn[] {
  const maxGap = options.maxInternalGap ?? DEFAULT_PARTY_TURN_OPTIONS.maxInternalGap;
  const group = (role: Role, own: SpeechSegment[], other: SpeechSegment[]): PartyTurn[] => {
    const otherStarts = other.map(([s]) => s);
    const turns: PartyTurn[] = [];
    for (const seg of own) {
      const last = turns[turns.length - 1];
      const gapStart = last?.end ?? 0;
      const interrupted = last !== undefined && otherStarts.some((s) => s > gapStart && s < seg[0]);
      if (last && seg[0] - last.end < maxGap && !interrupted) {
        last.end = Math.max(last.end, seg[1]);
        last.segments.push(seg);
      } else {
        turns.push({ role, start: seg[0], end: seg[1], segments: [seg] });
      }
    }
    return turns;
  };
  return [...group("user", caller, agent), ...group("assistant", agent, caller)].sort(
    (a, b) => a.start - b.start || (a.role === b.role ? 0 : a.role === "user" ? -1 : 1),
  );
}

/** The optional sidecar JSON of F5.3. */
interface Sidecar {
  caller_channel?: number;
  agent_channel?: number;
  end_reason?: string;
  name?: string;
  transcript?: Array<{ role: Role; start: number; end: number; text: string }>;
}

/**
 * Heap a sidecar may take per byte of its JSON text: the text itself, then its objects (about twice
 * the text for transcript segments). A sidecar needing more than the worker has left is refused
 * before it is read: JSON.parse cannot be stopped at the heap limit, and overrunning it there ends
 * the whole process, not just the worker.
 */
const SIDECAR_HEAP_PER_BYTE = 4;

function readSidecar(recording: string): Sidecar | null {
  const path = join(dirname(recording), basename(recording).replace(/\.[^.]+$/, "") + ".json");
  if (!isFile(path)) return null;
  const size = statSync(path).size;
  const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
  if (size * SIDECAR_HEAP_PER_BYTE > limit - used) {
    const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
    throw new VoxError("LIMIT_EXCEEDED", `the sidecar JSON is ${mb(size)}; reading it needs about ${mb(size * SIDECAR_HEAP_PER_BYTE)} of heap, more than the ${mb(limit - used)} this worker has left (--worker-heap-mb)`, { file: displayPathOf(path) });
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new VoxError("INVALID_JSON", `sidecar JSON syntax error: ${(e as Error).message}`, { file: displayPathOf(path) });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new VoxError("INVALID_JSON", "the sidecar must be a JSON object", { file: displayPathOf(path) });
  }
  const s = value as Sidecar;
  for (const key of ["caller_channel", "agent_channel"] as const) {
    if (s[key] !== undefined && (!Number.isInteger(s[key]) || (s[key] as number) < 0)) {
      throw new VoxError("INVALID_OPTION", `must be a channel index ≥ 0, got ${JSON.stringify(s[key])}`, { file: displayPathOf(path), field: key });
    }
  }
  return s;
}

/** Turn text from sidecar transcript segments whose midpoint falls inside the turn. */
function transcriptFor(turn: PartyTurn, sidecar: Sidecar | null): string {
  if (!sidecar?.transcript) return "";
  return sidecar.transcript
    .filter((t) => t.role === turn.role && (t.start + t.end) / 2 >= turn.start && (t.start + t.end) / 2 <= turn.end)
    .map((t) => t.text)
    .join(" ");
}

/** Longest natural decay kept after a turn's detected speech end (s). */
const TRAILING_DECAY_MAX_S = 0.3;
/** deepeval's edge window (20 ms) and the edge RMS above which a clip "ends abruptly" (voice-metrics.md §3.1). */
const EDGE_WINDOW_S = 0.02;
const EDGE_RMS = 1000;

/**
 * The first frame e in [speechEnd, limit] (stepping 1 ms) where the channel's last edge window
 * before e is at or below the abrupt-end level: the end of the voice's natural decay. `speechEnd`
 * itself when no such point comes before `limit` (the turn really is cut off).
 */
function decayEnd(recording: RecordingReader, channel: number, from: number, speechEnd: number, limit: number, rate: number, scratch: Int16Array): number {
  if (limit <= speechEnd) return speechEnd;
  const window = Math.max(1, Math.trunc(rate * EDGE_WINDOW_S));
  const lo = Math.max(from, speechEnd - window);
  const pcm = scratch.length >= limit - lo ? scratch.subarray(0, limit - lo) : new Int16Array(limit - lo);
  recording.readInt16(channel, lo, limit, pcm);
  const step = Math.max(1, Math.round(rate / 1000));
  for (let e = speechEnd; e <= limit; e += step) {
    const start = Math.max(from, e - window);
    let sum = 0;
    for (let k = start; k < e; k++) sum += pcm[k - lo] * pcm[k - lo];
    if (e > start && Math.sqrt(sum / (e - start)) <= EDGE_RMS) return e;
  }
  return speechEnd;
}

/**
 * Read a dual-channel recording into a test case whose turns are cut from each party's channel. The
 * recording stays on disk (read chunk by chunk for speech activity, by frame range for each turn);
 * each turn's clip is cut again when analysis asks for it. Dispose the loaded call when done.
 */
export function loadDualChannel(path: string, options: IngestOptions = {}, reading: { chunkFrames?: number } = {}): LoadedCall {
  const file = displayPathOf(path);
  // Never open a FIFO, device or socket: opening or reading one can block forever.
  const special = regularFileProblem(path);
  if (special?.code === "UNSUPPORTED_INPUT") throw new VoxError("UNSUPPORTED_INPUT", special.why, { file });
  const readerOptions = { compat: options.compat, name: file, limits: options.limits, chunkFrames: reading.chunkFrames };
  const recording = openRecordingReader(path, readerOptions);
  const handle = new RecordingHandle(path, readerOptions, recording);
  let call: Omit<LoadedCall, "dispose">;
  try {
    call = cutTurns(path, file, recording, handle, options);
  } catch (e) {
    handle.dispose();
    throw e;
  }
  // Made here, not where the turns are cut: a closure keeps its whole scope alive (the party turns of a call of hours, too).
  return { ...call, dispose: () => handle.dispose() };
}

function cutTurns(path: string, file: string, recording: RecordingReader, handle: RecordingHandle, options: IngestOptions): Omit<LoadedCall, "dispose"> {
  const sidecar = readSidecar(path);
  const warnings = [...recording.warnings];
  if (recording.channels < 2) {
    throw new VoxError("UNSUPPORTED_INPUT", `a dual-channel recording needs 2 channels, this one has ${recording.channels}`, { file });
  }
  const defaultAgent = (options.agentChannel ?? DEFAULT_INGEST_OPTIONS.agentChannel) === "left" ? 0 : 1;
  const mapped = sidecar?.caller_channel !== undefined && sidecar?.agent_channel !== undefined;
  if (recording.channels > 2 && !mapped) {
    throw new VoxError("UNSUPPORTED_INPUT", `${recording.channels} channels: name caller_channel and agent_channel in the sidecar JSON`, { file });
  }
  const other = (channel: number) => (channel === 0 ? 1 : 0);
  const callerChannel = sidecar?.caller_channel ?? other(sidecar?.agent_channel ?? defaultAgent);
  const agentChannel = sidecar?.agent_channel ?? other(callerChannel);
  if (agentChannel === callerChannel || agentChannel >= recording.channels || callerChannel >= recording.channels) {
    throw new VoxError("INVALID_OPTION", `caller channel ${callerChannel} and agent channel ${agentChannel} must be distinct channels of ${recording.channels}`, { file });
  }
  if (recording.channels > 2) warnings.push(`${recording.channels - 2} channel(s) beyond the caller and agent channels ignored`);
  // Turns are cut where each party speaks, found by the standards set's speech activity: its rate range applies.
  const rateProblem = standardsSampleRateProblem(recording.sampleRate);
  if (rateProblem) throw new VoxError("UNSUPPORTED_INPUT", `${rateProblem} (a recording's turns are found by speech activity)`, { file });

  const rate = recording.sampleRate;
  const frames = recording.frames;
  // Each channel's speech activity is read from the file chunk by chunk (the exact floats of a float source, else int16 / 32768).
  const [callerSegments, agentSegments] = detectChannelSpeech(recording, [callerChannel, agentChannel]);
  const parties = buildPartyTurns(callerSegments, agentSegments);
  if (parties.length === 0) throw new VoxError("INVALID_AUDIO", "no speech found on either channel", { file });

  // One scratch array for every turn's decay search (the edge window before the speech end, and at most TRAILING_DECAY_MAX_S after it).
  const decayScratch = new Int16Array(Math.max(1, Math.trunc(rate * EDGE_WINDOW_S)) + Math.round(TRAILING_DECAY_MAX_S * rate) + 1);
  const turns: Turn[] = parties.map((p, index) => {
    const channel = p.role === "user" ? callerChannel : agentChannel;
    const from = Math.max(0, Math.round(p.start * rate));
    const speechEnd = Math.min(frames, Math.round(p.end * rate));
    // The clip keeps the voice's natural decay after the detected speech end (up to the next turn),
    // so a turn cut cleanly from a recording does not look like one that ends abruptly.
    const nextStart = index + 1 < parties.length ? Math.round(parties[index + 1].start * rate) : frames;
    const limit = Math.min(frames, nextStart, speechEnd + Math.round(TRAILING_DECAY_MAX_S * rate));
    const to = decayEnd(recording, channel, from, speechEnd, limit, rate, decayScratch);
    // The clip is a span of the recording: its WAV bytes (a self-contained deepeval Audio) are cut when analysis reads them.
    return {
      role: p.role,
      content: transcriptFor(p, sidecar),
      audio: new RecordingSpanAudio(handle, channel, from, to, rate, { start_time: from / rate, duration: (to - from) / rate }),
      metadata: { speech_segments: p.segments },
    };
  });
  const testCase = createTestCase({
    name: sidecar?.name ?? null,
    turns,
    metadata: {
      source_format: "dual-channel",
      caller_channel: callerChannel,
      agent_channel: agentChannel,
      sample_rate: rate,
      duration: frames / rate,
      caller_speech_segments: callerSegments,
      agent_speech_segments: agentSegments,
      ...(sidecar?.end_reason ? { end_reason: sidecar.end_reason } : {}),
    },
  });
  return { testCase, warnings };
}
