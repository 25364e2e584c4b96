// Benchmark of the standards set: loudness + LRA + true peak vs `ffmpeg -af ebur128=peak=true`, and the whole set's real-time factor (issue 3).
//
// One run, one 1-hour 16 kHz mono speech WAV (espeak-ng calls tiled with pauses, or synthetic voiced
// bursts without espeak-ng), decoding included on both sides: ffmpeg decodes the file itself; we
// read it and convert int16 to planar float in JS. Loudness streams 1 s chunks through the meter
// (no whole-file PCM, like ffmpeg); the whole set decodes into one float buffer that is kept across
// runs, as a worker keeps its buffers (first-touch page faults of 230 MB cost ≈ 1 s on a small VM).
// Timings are medians of REPEATS runs, one thread.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { analyzeAcoustics, createLoudnessMeter, type AcousticsBlock, type LoudnessBlock } from "../src/analysis/acoustics.js";
import { measureStandardsStream } from "../src/analysis/acoustics-stream.js";
import type { PcmChunk, PcmSource } from "../src/audio/pcm-source.js";
import { decodeAudio } from "../src/audio/decode.js";
import { pcmCopyStats } from "../src/dsp/wasm.js";
import { Audio } from "../src/model/audio.js";
import { createTestCase } from "../src/model/test-case.js";
import { scoreTestCase } from "../src/scoring/score-test-case.js";
import { callWav, DEFAULT_CALL } from "../test/helpers/calls.js";
import { ESPEAK, FFMPEG, SOX, scratchDir } from "../test/helpers/tools.js";
import { readWav } from "../test/helpers/wav.js";

const SAMPLE_RATE = 16000;
const DURATION_S = 3600;
const REPEATS = 3;

/** The speech material to tile: a generated call, or synthetic voiced bursts with pauses. */
function baseSpeech(): { samples: Float32Array; source: string } {
  if (ESPEAK && SOX) return { samples: readWav(callWav({ ...DEFAULT_CALL, repeats: 2 }, SAMPLE_RATE)).channels[0], source: "espeak-ng call" };
  const samples = new Float32Array(SAMPLE_RATE * 30);
  for (let i = 0; i < samples.length; i++) {
    const t = i / SAMPLE_RATE;
    if (t % 2.5 > 1.8) continue;
    const f0 = 110 + 20 * Math.sin(2 * Math.PI * 0.7 * t);
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
    for (let h = 1; h <= 12; h++) samples[i] += (envelope * 0.15 / h) * Math.sin(2 * Math.PI * f0 * h * t);
  }
  return { samples, source: "synthetic voiced bursts" };
}

/** Write the 1-hour 16-bit mono WAV (cached) and return its path. */
function hourWav(): { path: string; source: string } {
  const { samples, source } = baseSpeech();
  const path = join(scratchDir(), `bench-hour-${SAMPLE_RATE}-${source.replace(/\W+/g, "-")}.wav`);
  const total = SAMPLE_RATE * DURATION_S;
  if (existsSync(path) && statSync(path).size === 44 + 2 * total) return { path, source };
  const fd = openSync(path, "w");
  const header = Buffer.alloc(44);
  header.write("RIFF", 0); header.writeUInt32LE(36 + 2 * total, 4); header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24); header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34); header.write("data", 36); header.writeUInt32LE(2 * total, 40);
  writeSync(fd, header);
  const pcm = new Int16Array(samples.length);
  for (let written = 0, tile = 0; written < total; tile++) {
    // Each tile gets its own gain so the programme is not one level repeated.
    const gain = 0.6 + 0.4 * Math.abs(Math.sin(tile * 1.7));
    const n = Math.min(samples.length, total - written);
    for (let i = 0; i < n; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i] * gain * 32768)));
    writeSync(fd, pcm.subarray(0, n));
    written += n;
  }
  closeSync(fd);
  return { path, source };
}

const WAV_HEADER_BYTES = 44;
const CHUNK_FRAMES = SAMPLE_RATE;

/** Stream a canonical 16-bit mono WAV in 1 s chunks, converting each to float, into `consume`. */
function streamInt16Mono(path: string, consume: (chunk: Float32Array, at: number) => void): void {
  const fd = openSync(path, "r");
  const bytes = Buffer.alloc(CHUNK_FRAMES * 2);
  const floats = new Float32Array(CHUNK_FRAMES);
  try {
    for (let position = WAV_HEADER_BYTES, at = 0; ; ) {
      const got = readSync(fd, bytes, 0, bytes.length, position);
      if (got < 2) break;
      const n = got >> 1;
      const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, n);
      for (let i = 0; i < n; i++) floats[i] = pcm[i] / 32768;
      consume(floats.subarray(0, n), at);
      position += got;
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** The canonical 16-bit mono WAV as a PcmSource read from the file in 64 Ki-frame chunks (each reading opens the file again). */
function wavFileSource(path: string): PcmSource {
  const frames = (statSync(path).size - WAV_HEADER_BYTES) >> 1;
  return {
    sampleRate: SAMPLE_RATE,
    channels: 1,
    format: "wav/pcm16",
    frames,
    warnings: [],
    *chunks(maxFrames = 65536): Iterable<PcmChunk> {
      const fd = openSync(path, "r");
      const bytes = Buffer.alloc(maxFrames * 2);
      try {
        for (let position = WAV_HEADER_BYTES; ; ) {
          const got = readSync(fd, bytes, 0, bytes.length, position);
          if (got < 2) break;
          yield { frames: got >> 1, samples: new Int16Array(bytes.buffer, bytes.byteOffset, got >> 1) };
          position += got;
        }
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Read + decode + streaming loudness, integrated + LRA + true peak. */
function measureLoudnessFromFile(path: string): LoudnessBlock {
  const meter = createLoudnessMeter(1, SAMPLE_RATE);
  streamInt16Mono(path, (chunk) => meter.addFrames([chunk]));
  return meter.result();
}

/** Read + decode the whole file into `into` (planar float). */
function decodeInto(path: string, into: Float32Array): Float32Array {
  streamInt16Mono(path, (chunk, at) => into.set(chunk, at));
  return into;
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(run: () => void): number {
  const t = performance.now();
  run();
  return (performance.now() - t) / 1000;
}

/** PCM samples copied into WebAssembly memory per sample of the clips when a call is scored with and without --acoustics. */
function copiesPerClipSample(): { acoustics: number; parityOnly: number } {
  const clips = ["agent-1", "user-1", "agent-2"].map((n) => readFileSync(join(fileURLToPath(new URL("../fixtures/sample-archive/clips/", import.meta.url)), `${n}.wav`)));
  const testCase = createTestCase({ turns: clips.map((bytes, i) => ({ role: i % 2 ? "user" : "assistant", content: "some words", audio: Audio.fromBytes(bytes, "audio/wav") })) });
  const samples = clips.reduce((n, bytes) => n + decodeAudio(bytes).samples.length, 0);
  const copied = (acoustics: boolean) => {
    const before = pcmCopyStats().samples;
    scoreTestCase(testCase, { acoustics });
    return (pcmCopyStats().samples - before) / samples;
  };
  return { acoustics: copied(true), parityOnly: copied(false) };
}

export interface AcousticsBenchResult {
  file: { path: string; durationS: number; sampleRate: number; source: string };
  ffmpegEbur128S: number | null;
  oursLoudnessS: number;
  loudnessSpeedupVsFfmpeg: number | null;
  oursStandardsSetS: number;
  standardsSetRealtimeFactor: number;
  /** The same set read from the file chunk by chunk (measureStandardsStream, two passes), in the same run. */
  streamingStandardsSetS: number;
  streamingRealtimeFactor: number;
  /** Whether the streaming result equals the whole-clip one (every field). */
  streamingEqualsWholeClip: boolean;
  loudness: LoudnessBlock;
  /** PCM copies into wasm per clip sample when scoring with / without --acoustics. */
  pcmCopies: { acoustics: number; parityOnly: number };
  ffmpegNote?: string;
}

/** Run the benchmark (≈ 1 min with ffmpeg) and return its figures. */
export async function benchAcoustics(): Promise<AcousticsBenchResult> {
  const { path, source } = hourWav();
  const pcm = new Float32Array(SAMPLE_RATE * DURATION_S);
  let loudness = measureLoudnessFromFile(path);
  const wholeBlock: AcousticsBlock = analyzeAcoustics([decodeInto(path, pcm)], SAMPLE_RATE);
  let streamBlock = measureStandardsStream(wavFileSource(path), {}, { set: "standards", perChannel: false }).acoustics;
  const ours: number[] = [], ffmpeg: number[] = [], whole: number[] = [], streaming: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    if (FFMPEG) ffmpeg.push(time(() => spawnSync(FFMPEG!, ["-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"], { stdio: "ignore" })));
    ours.push(time(() => { loudness = measureLoudnessFromFile(path); }));
    whole.push(time(() => { analyzeAcoustics([decodeInto(path, pcm)], SAMPLE_RATE); }));
    streaming.push(time(() => { streamBlock = measureStandardsStream(wavFileSource(path), {}, { set: "standards", perChannel: false }).acoustics; }));
  }
  const streamingS = median(streaming);
  const ffmpegS = FFMPEG ? median(ffmpeg) : null;
  const oursS = median(ours), wholeS = median(whole);
  const result: AcousticsBenchResult = {
    file: { path, durationS: DURATION_S, sampleRate: SAMPLE_RATE, source },
    ffmpegEbur128S: ffmpegS,
    oursLoudnessS: oursS,
    loudnessSpeedupVsFfmpeg: ffmpegS === null ? null : ffmpegS / oursS,
    oursStandardsSetS: wholeS,
    standardsSetRealtimeFactor: DURATION_S / wholeS,
    streamingStandardsSetS: streamingS,
    streamingRealtimeFactor: DURATION_S / streamingS,
    streamingEqualsWholeClip: JSON.stringify(streamBlock) === JSON.stringify(wholeBlock),
    loudness,
    pcmCopies: copiesPerClipSample(),
    ...(FFMPEG ? {} : { ffmpegNote: "ffmpeg not found (PATH or $FFMPEG_PATH): no ffmpeg comparison" }),
  };
  const lines = [
    `file: ${DURATION_S / 3600} h, ${SAMPLE_RATE} Hz mono 16-bit, ${source}; medians of ${REPEATS} runs, decoding included`,
    ffmpegS === null
      ? `loudness + LRA + true peak: ours ${oursS.toFixed(2)} s; ${result.ffmpegNote}`
      : `loudness + LRA + true peak: ours ${oursS.toFixed(2)} s vs ffmpeg ebur128=peak=true ${ffmpegS.toFixed(2)} s → ${result.loudnessSpeedupVsFfmpeg!.toFixed(1)}× faster (target ≥ 3×)`,
    `whole standards set: ${wholeS.toFixed(2)} s → ${result.standardsSetRealtimeFactor.toFixed(0)}× real time on one core (target ≥ 1000×)`,
    `streaming standards set (file read chunk by chunk, two passes): ${streamingS.toFixed(2)} s → ${result.streamingRealtimeFactor.toFixed(0)}× real time; equal to the whole-clip result: ${result.streamingEqualsWholeClip}`,
    `PCM copies into WebAssembly memory per clip sample when scoring: ${result.pcmCopies.acoustics} with --acoustics, ${result.pcmCopies.parityOnly} without`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchAcoustics();
}
