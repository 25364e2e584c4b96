// deepeval voice-simulation output folders (formats.md F2): turn files in order, start times recovered from the combined render.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeAudio, downmixTruncating } from "../audio/index.js";
import { Audio } from "../model/audio.js";
import { VoxError } from "../model/errors.js";
import { createTestCase, type Role, type Turn } from "../model/test-case.js";
import { isFile, mimeForExtension } from "./files.js";
import type { IngestOptions, LoadedCall } from "./types.js";

/** A turn file name: `deepeval-turn-<n>-<role>.<ext>` (F2.1). */
export const SIM_TURN_FILE = /^deepeval-turn-(\d+)-(user|assistant)\.(wav|mp3|opus|aac|flac|pcm)$/;
/** A simulator run folder name (F2.1). */
export const SIM_RUN_FOLDER = /^simulation-\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}$/;
/** The combined render (F2.4). */
export const SIM_CONVERSATION_FILE = "deepeval-conversation.wav";

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
export function loadSimConversation(dir: string, options: IngestOptions = {}): LoadedCall {
  const files = listSimTurnFiles(dir);
  if (files.length === 0) {
    throw new VoxError("UNSUPPORTED_INPUT", "the folder holds no deepeval-turn-<n>-<role>.<ext> files", { file: dir });
  }
  const warnings: string[] = [];
  const bytes = files.map((f) => readFileSync(join(dir, f.name)));
  const mixPath = join(dir, SIM_CONVERSATION_FILE);
  let starts: Array<number | null> = files.map(() => null);
  if (options.inferStartTimes !== false) {
    if (isFile(mixPath)) {
      starts = recoverStartTimes(readFileSync(mixPath), bytes, warnings);
      const missing = files.filter((_, i) => starts[i] === null).map((f) => f.name);
      if (missing.length > 0) warnings.push(`start_time left null for ${missing.join(", ")}: not placeable exactly in ${SIM_CONVERSATION_FILE}`);
    } else {
      warnings.push(`no ${SIM_CONVERSATION_FILE}: start times unknown, turn-taking is skipped`);
    }
  }
  const turns: Turn[] = files.map((f, i) => ({
    role: f.role,
    content: "",
    audio: Audio.fromBytes(bytes[i], mimeForExtension(f.ext), { start_time: starts[i] }),
    metadata: { source_file: f.name },
  }));
  return { testCase: createTestCase({ turns, metadata: { source_format: "deepeval-sim-folder" } }), warnings };
}

/** Clip offsets (seconds) inside the render, null where a clip cannot be placed exactly. */
function recoverStartTimes(mixBytes: Uint8Array, clipBytes: Uint8Array[], warnings: string[]): Array<number | null> {
  let mix;
  try {
    mix = decodeAudio(mixBytes, { compat: "deepeval", name: SIM_CONVERSATION_FILE });
  } catch (e) {
    warnings.push(`${SIM_CONVERSATION_FILE} is not readable (${(e as Error).message}); start times unknown`);
    return clipBytes.map(() => null);
  }
  const mixMono = downmixTruncating(mix.samples, mix.channels);
  const clips = clipBytes.map((b) => {
    try {
      const d = decodeAudio(b, { compat: "deepeval" });
      return d.sampleRate === mix.sampleRate ? downmixTruncating(d.samples, d.channels) : null;
    } catch {
      return null;
    }
  });
  return locateClipsInMix(mixMono, clips).map((o) => (o === null ? null : o / mix.sampleRate));
}

/** Anchor window length in samples: long enough that a chance match in speech is practically impossible. */
const ANCHOR_SAMPLES = 24;
/** A sample counts as distinctive (usable in an anchor) from this magnitude on. */
const DISTINCT_LEVEL = 64;
/** Anchors tried per clip when only part of it can match (the rest overlaps another clip). */
const PARTIAL_ANCHORS = 16;
/** Candidate offsets examined per anchor. */
const CANDIDATES_PER_ANCHOR = 8;
/** A partial placement needs this share of the clip's samples to match exactly… */
const PARTIAL_MIN_SHARE = 0.2;
/** …including at least this many distinctive samples. */
const PARTIAL_MIN_DISTINCT = 2000;

/**
 * Locate clips inside deepeval's combined render, which is a clamped int32 sum of the clips at their
 * offsets (F2.4). Clips that match the residual exactly are placed and subtracted ("peeled") one by
 * one; a clip overlapped by another is placed on its non-overlapped part when that part matches
 * exactly at one offset, which usually frees its partner for an exact match. Saturated mix samples
 * match anything (the clamp destroyed them). Identical clips (the same audio in k turn files) that
 * match at exactly k offsets are placed in turn order, since turn numbers grow with time. Returns
 * sample offsets, null where no exact, unique placement exists (null clips are skipped).
 */
export function locateClipsInMix(mix: Int16Array, clips: Array<Int16Array | null>): Array<number | null> {
  const residual = Int32Array.from(mix);
  const wild = new Uint8Array(mix.length);
  for (let i = 0; i < mix.length; i++) if (mix[i] === 32767 || mix[i] === -32768) wild[i] = 1;
  const offsets: Array<number | null> = clips.map(() => null);
  const pending = new Set(clips.flatMap((c, i) => (c && c.length > 0 && c.length <= mix.length ? [i] : [])));
  const twinsOf = (i: number) => [...pending].filter((j) => sameSamples(clips[i] as Int16Array, clips[j] as Int16Array));

  const place = (i: number, o: number) => {
    const clip = clips[i] as Int16Array;
    for (let k = 0; k < clip.length; k++) if (!wild[o + k]) residual[o + k] -= clip[k];
    offsets[i] = o;
    pending.delete(i);
  };

  for (;;) {
    let progress = false;
    for (const i of [...pending]) {
      if (!pending.has(i)) continue;
      const hits = findFullMatches(residual, wild, clips[i] as Int16Array);
      if (hits.length === 0) continue;
      const twins = hits.length === 1 ? [i] : twinsOf(i);
      if (twins.length !== hits.length) continue;
      twins.forEach((j, k) => place(j, hits[k]));
      progress = true;
    }
    if (progress) continue;
    for (const i of [...pending]) {
      const o = findPartialMatch(residual, wild, clips[i] as Int16Array);
      if (o !== null) {
        place(i, o);
        progress = true;
        break;
      }
    }
    if (!progress) return offsets;
  }
}

function sameSamples(a: Int16Array, b: Int16Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Start positions of distinctive anchor windows in a clip, at most `count`, spread over its length. */
function anchorPositions(clip: Int16Array, count: number): number[] {
  const out: number[] = [];
  const last = clip.length - ANCHOR_SAMPLES;
  if (last < 0) return out;
  const step = Math.max(1, Math.floor(last / count));
  for (let start = 0; start <= last && out.length < count; start += step) {
    for (let p = start; p <= Math.min(last, start + step - 1); p++) {
      if (isDistinctWindow(clip, p)) {
        out.push(p);
        break;
      }
    }
  }
  return out;
}

function isDistinctWindow(clip: Int16Array, p: number): boolean {
  let loud = 0;
  for (let k = 0; k < ANCHOR_SAMPLES; k++) {
    const x = clip[p + k];
    if (x >= DISTINCT_LEVEL || x <= -DISTINCT_LEVEL) loud++;
  }
  return loud * 2 >= ANCHOR_SAMPLES;
}

/** Offsets o where the anchor window clip[p…p+W) equals residual[o+p…]. */
function anchorCandidates(residual: Int32Array, clip: Int16Array, p: number): number[] {
  const out: number[] = [];
  const first = clip[p];
  const lastStart = residual.length - clip.length + p;
  for (let i = p; i <= lastStart; i++) {
    if (residual[i] !== first) continue;
    let k = 1;
    while (k < ANCHOR_SAMPLES && residual[i + k] === clip[p + k]) k++;
    if (k === ANCHOR_SAMPLES) {
      out.push(i - p);
      if (out.length >= CANDIDATES_PER_ANCHOR) break;
    }
  }
  return out;
}

/** Every offset (ascending) where all samples of the clip match the residual. */
function findFullMatches(residual: Int32Array, wild: Uint8Array, clip: Int16Array): number[] {
  const [p] = anchorPositions(clip, 1);
  if (p === undefined) return [];
  return anchorCandidates(residual, clip, p).filter((o) => {
    for (let k = 0; k < clip.length; k++) if (!wild[o + k] && residual[o + k] !== clip[k]) return false;
    return true;
  });
}

/** The offset where a large, distinctive part of the clip matches exactly and no other offset comes close. */
function findPartialMatch(residual: Int32Array, wild: Uint8Array, clip: Int16Array): number | null {
  const tried = new Set<number>();
  let best: { o: number; matched: number } | null = null;
  let second = 0;
  for (const p of anchorPositions(clip, PARTIAL_ANCHORS)) {
    for (const o of anchorCandidates(residual, clip, p)) {
      if (tried.has(o)) continue;
      tried.add(o);
      let matched = 0;
      let distinct = 0;
      for (let k = 0; k < clip.length; k++) {
        const x = clip[k];
        if (wild[o + k] || residual[o + k] !== x) continue;
        matched++;
        if (x >= DISTINCT_LEVEL || x <= -DISTINCT_LEVEL) distinct++;
      }
      if (distinct < PARTIAL_MIN_DISTINCT || matched < PARTIAL_MIN_SHARE * clip.length) continue;
      if (!best || matched > best.matched) {
        second = best ? best.matched : second;
        best = { o, matched };
      } else {
        second = Math.max(second, matched);
      }
    }
  }
  return best && second * 2 < best.matched ? best.o : null;
}
