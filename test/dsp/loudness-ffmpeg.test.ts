// Loudness, LRA and true peak vs ffmpeg `ebur128=peak=true` on real and generated speech (acoustics.md §1.8).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LoudnessMeter } from "../../src/dsp/loudness.js";
import { callWav, DEFAULT_CALL } from "../helpers/calls.js";
import { ESPEAK, FFMPEG, SOX, ffmpegEbur128 } from "../helpers/tools.js";
import { readWav } from "../helpers/wav.js";
import { report } from "../helpers/report.js";

const PARITY_DIR = "/work/shared/parity/deepeval-sim";
const TOLERANCE = { integratedLufs: 0.1, loudnessRangeLu: 0.5, truePeakDbtp: 0.2 };

function compare(path: string) {
  const audio = readWav(path);
  const meter = new LoudnessMeter(audio.channels.length, audio.sampleRate);
  meter.addFrames(audio.channels);
  const ours = meter.result();
  const theirs = ffmpegEbur128(path);
  // ffmpeg prints one decimal: allow its rounding (±0.05) on top of the tolerance.
  expect(Math.abs(ours.integratedLufs! - theirs.integratedLufs), `I of ${path}`).toBeLessThanOrEqual(TOLERANCE.integratedLufs + 0.05);
  expect(Math.abs(ours.truePeakDbtp! - theirs.truePeakDbtp), `TP of ${path}`).toBeLessThanOrEqual(TOLERANCE.truePeakDbtp + 0.05);
  if (ours.loudnessRangeLu !== null) {
    expect(Math.abs(ours.loudnessRangeLu - theirs.loudnessRangeLu), `LRA of ${path}`).toBeLessThanOrEqual(TOLERANCE.loudnessRangeLu + 0.05);
  }
  return { ours, theirs };
}

describe.skipIf(!FFMPEG)("loudness vs ffmpeg ebur128", () => {
  if (!FFMPEG) console.warn("ffmpeg not found (PATH or $FFMPEG_PATH): ffmpeg cross-checks skipped");

  const parityFiles = existsSync(PARITY_DIR) ? readdirSync(PARITY_DIR).filter((f) => f.endsWith(".wav")) : [];
  if (!parityFiles.length) console.warn(`${PARITY_DIR} not found: real-speech cross-checks skipped`);
  it.skipIf(!parityFiles.length).each(parityFiles)("real speech %s", (file) => {
    compare(join(PARITY_DIR, file));
  });

  const generated = Boolean(ESPEAK && SOX);
  if (!generated) console.warn("espeak-ng or sox not found: generated-call cross-checks skipped");
  const cases = [8000, 16000, 24000, 44100, 48000].flatMap((rate) => [1, 2].map((channels) => [rate, channels] as const));
  it.skipIf(!generated).each(cases)("generated call at %i Hz, %i channel(s)", (rate, channels) => {
    const { ours, theirs } = compare(callWav({ ...DEFAULT_CALL, channels: channels as 1 | 2, repeats: 2 }, rate));
    report(`${rate} Hz ${channels}ch: I ${ours.integratedLufs!.toFixed(2)}/${theirs.integratedLufs} LRA ${ours.loudnessRangeLu?.toFixed(2)}/${theirs.loudnessRangeLu} TP ${ours.truePeakDbtp!.toFixed(2)}/${theirs.truePeakDbtp}`);
  }, 60000);
});
