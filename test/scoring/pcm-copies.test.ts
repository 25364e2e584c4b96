// PCM copies into WebAssembly memory per call, on every input path of the sample archive: analysis copies each clip once (--acoustics or not), ingest at most the source once more.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeAudio } from "../../src/audio/decode.js";
import { pcmCopyStats } from "../../src/dsp/wasm.js";
import { discoverCalls, loadCall, type CallRef } from "../../src/ingest/index.js";
import { resolveScoreOptions } from "../../src/scoring/options.js";
import { scoreCall } from "../../src/scoring/score-call.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");

/** Samples of every decodable clip of a call (its exact floats too, when it has them). */
function clipSamples(ref: CallRef): number {
  let total = 0;
  for (const turn of loadCall(ref).testCase.turns) {
    if (!turn.audio?.hasBytes) continue;
    try {
      const d = decodeAudio(turn.audio.getBytes());
      total += d.frames * d.channels * (d.floatChannels ? 2 : 1);
    } catch {
      continue;
    }
  }
  return total;
}

/** Samples of the source PCM ingest itself reads into wasm: the recording of a dual-channel call; the render and the clips of a simulation folder. */
function ingestSamples(ref: CallRef, clips: number): number {
  if (ref.format === "dual-channel") {
    const d = decodeAudio(readFileSync(ref.path));
    return d.frames * d.channels;
  }
  if (ref.format === "deepeval-sim-folder") return decodeAudio(readFileSync(join(ref.path, "deepeval-conversation.wav"))).samples.length + clips;
  return 0;
}

function copiedBy(run: () => void): number {
  const before = pcmCopyStats().samples;
  run();
  return pcmCopyStats().samples - before;
}

describe("PCM copies into wasm per call", () => {
  const { calls } = discoverCalls([ARCHIVE]);
  const withAcoustics = resolveScoreOptions({ acoustics: true });
  const parityOnly = resolveScoreOptions();

  it.each(calls.map((c) => [c.format, c.id, c] as const))("%s %s: analysis copies every clip once, ingest its source at most once", (_format, _id, ref) => {
    const clips = clipSamples(ref);
    const ingest = ingestSamples(ref, clips);
    // A text-only call copies nothing; every other call of the archive has audio.
    expect(clips > 0).toBe(bareId(ref.id) !== "more.jsonl#2");
    const copied = copiedBy(() => expect(scoreCall({ ref, ingest: {}, score: withAcoustics }).status).toBe("ok"));
    expect(copied).toBe(ingest + clips);
    // --acoustics costs no extra copy.
    expect(copiedBy(() => scoreCall({ ref, ingest: {}, score: parityOnly }))).toBe(copied);
    // At most two copies of each clip sample: the clips (or the recording they are cut from) once in ingest, once in analysis.
    if (ref.format === "dual-channel") expect(clips).toBeLessThanOrEqual(ingest);
  });
});
