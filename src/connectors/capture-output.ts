// Writes captured calls: `<name>.json` (deepeval test case), the §L11 simulation folder with deepeval-conversation.wav, a stereo recording, the manifest.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { allocateWavPcm16 } from "../audio/wav-writer.js";
import { testCaseToJson } from "../model/codec.js";
import { CAPTURE_MANIFEST_FILE, CAPTURE_MANIFEST_FORMAT, type CaptureManifest, type CaptureManifestCall } from "../ingest/capture-manifest.js";
import { writeFileAtomic } from "../ingest/files.js";
import type { BuiltCapture, CapturedClip } from "./capture.js";

/** Python's round() of a float (half to even), as deepeval's render uses it. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 ? f + 1 : d < 0.5 ? f : f % 2 === 0 ? f : f + 1;
}

/**
 * Mix clips into `channels` int16 channels: each clip summed at its sample offset (relative to the
 * first clip when `fromFirst`) in an int32 buffer, then clamped (formats.md §F2.4 steps 5–6).
 */
function mixClips(clips: readonly CapturedClip[], rate: number, channelOf: (c: CapturedClip) => number, channels: number, fromFirst: boolean): Int16Array {
  if (clips.length === 0) return new Int16Array(0);
  const origin = fromFirst ? Math.min(...clips.map((c) => c.startSample)) : 0;
  // Offsets through seconds and round_half_even, as the render computes them from start_time.
  const offset = (c: CapturedClip) => roundHalfEven(((c.startSample - origin) / rate) * rate);
  const length = Math.max(...clips.map((c) => offset(c) + c.pcm.length));
  const acc = new Int32Array(length * channels);
  for (const c of clips) {
    const ch = channelOf(c);
    const o = offset(c);
    for (let i = 0; i < c.pcm.length; i++) acc[(o + i) * channels + ch] += c.pcm[i];
  }
  const out = new Int16Array(acc.length);
  for (let i = 0; i < acc.length; i++) out[i] = acc[i] > 32767 ? 32767 : acc[i] < -32768 ? -32768 : acc[i];
  return out;
}

/** deepeval-conversation.wav (§F2.4): a mono mix from the first clip on. */
export function renderConversationWav(capture: BuiltCapture): Uint8Array | null {
  if (capture.clips.length === 0) return null;
  return wavOf(mixClips(capture.clips, capture.sampleRate, () => 0, 1, true), capture.sampleRate, 1);
}

/** The stereo recording (§F5 convention): caller left, agent right, on the call clock. */
export function renderStereoWav(capture: BuiltCapture): Uint8Array | null {
  if (capture.clips.length === 0) return null;
  return wavOf(mixClips(capture.clips, capture.sampleRate, (c) => (c.role === "user" ? 0 : 1), 2, false), capture.sampleRate, 2);
}

function wavOf(samples: Int16Array, rate: number, channels: number): Uint8Array {
  const { bytes, samples: data } = allocateWavPcm16(samples.length, rate, channels);
  data.set(samples);
  return bytes;
}

/** One run's output folder. */
export interface CaptureRun {
  outDir: string;
  /** `simulation-YYYY-MM-DD_HH-MM-SS`, taken once per run (local time). */
  simulationFolder: string;
  /** The run has more than one call: each gets a sub-folder named after it (§L11). */
  perCallFolders: boolean;
}

/** A run folder name that does not exist yet (a second run in the same second takes the next second). */
export function startCaptureRun(outDir: string, calls: number, now = new Date()): CaptureRun {
  mkdirSync(outDir, { recursive: true });
  const t = new Date(now);
  for (;;) {
    const p = (n: number) => String(n).padStart(2, "0");
    const name = `simulation-${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}_${p(t.getHours())}-${p(t.getMinutes())}-${p(t.getSeconds())}`;
    if (!existsSync(join(outDir, name))) {
      mkdirSync(join(outDir, name));
      return { outDir, simulationFolder: name, perCallFolders: calls > 1 };
    }
    t.setSeconds(t.getSeconds() + 1);
  }
}

/** File-safe form of a call name. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "").slice(0, 120) || "call";
}

const posix = (p: string) => p.split("\\").join("/");

/**
 * Write one call: turn WAVs named as deepeval names them (n counts user turns; a later assistant
 * turn with the same n keeps the name and the earlier one is written as `.<k>.wav`, so the JSON
 * still points at its own audio), the combined render, the stereo recording, `<name>.json` whose
 * audio urls point at the turn WAVs, then the manifest (atomically). Returns the manifest entry.
 */
export function writeCallCapture(run: CaptureRun, name: string, capture: BuiltCapture): CaptureManifestCall {
  const file = safeName(name);
  const simDir = run.perCallFolders ? join(run.outDir, run.simulationFolder, file) : join(run.outDir, run.simulationFolder);
  mkdirSync(simDir, { recursive: true });
  const json = testCaseToJson(capture.testCase);
  const turnsJson = json.turns as Array<Record<string, unknown>>;
  const clipOf = new Map(capture.clips.map((c) => [c.turnIndex, c]));
  const names: string[] = [];
  let n = 0;
  capture.testCase.turns.forEach((t, i) => {
    if (t.role === "user") n++;
    names.push(`deepeval-turn-${n}-${t.role}`);
  });
  const used = new Map<string, number>();
  for (let i = names.length - 1; i >= 0; i--) {
    if (!clipOf.has(i)) continue;
    const k = used.get(names[i]) ?? 0;
    used.set(names[i], k + 1);
    const fileName = k === 0 ? `${names[i]}.wav` : `${names[i]}.${k}.wav`;
    const audio = capture.testCase.turns[i].audio!;
    writeFileSync(join(simDir, fileName), audio.getBytes());
    const a = turnsJson[i].audio as Record<string, unknown>;
    a.dataBase64 = null;
    a.url = posix(relative(run.outDir, join(simDir, fileName)));
  }
  const mix = renderConversationWav(capture);
  if (mix) writeFileSync(join(simDir, "deepeval-conversation.wav"), mix);
  const stereo = renderStereoWav(capture);
  const recordingsDir = join(run.outDir, "recordings");
  mkdirSync(recordingsDir, { recursive: true });
  if (stereo) writeFileSync(join(recordingsDir, `${file}.wav`), stereo);
  writeFileAtomic(join(run.outDir, `${file}.json`), `${JSON.stringify(json, null, 2)}\n`);
  const entry: CaptureManifestCall = {
    name,
    test_case: `${file}.json`,
    simulation: posix(relative(run.outDir, simDir)),
    recording: posix(relative(run.outDir, join(recordingsDir, `${file}.wav`))),
  };
  const manifestPath = join(run.outDir, CAPTURE_MANIFEST_FILE);
  let manifest: CaptureManifest = { format: CAPTURE_MANIFEST_FORMAT, version: 1, calls: [] };
  if (existsSync(manifestPath)) {
    try {
      const old = JSON.parse(readFileSync(manifestPath, "utf8")) as CaptureManifest;
      if (old.format === CAPTURE_MANIFEST_FORMAT && Array.isArray(old.calls)) manifest = old;
    } catch {
      // an unreadable manifest is replaced
    }
  }
  manifest.calls = [...manifest.calls.filter((c) => c.test_case !== entry.test_case), entry];
  writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return entry;
}
