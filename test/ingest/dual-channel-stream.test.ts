// Dual-channel recordings read from disk (speech activity chunk by chunk, turns by frame range, clips cut on demand) give exactly what decoding the whole recording gave: the same test case, the same scores.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LoadedCall } from "../../src/analysis/call.js";
import { findFfmpeg, writeWavPcm16 } from "../../src/audio/index.js";
import { loadDualChannel } from "../../src/ingest/formats/dual-channel.js";
import { resolveScoreOptions } from "../../src/scoring/options.js";
import { scoreLoadedCall } from "../../src/scoring/score-test-case.js";
import { buildWav } from "../audio/wav-builder.js";
import { loadDualChannelWhole } from "../helpers/dual-channel-whole.js";
import { seededRandom } from "../helpers/random.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-dual-stream-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * A two-party call as float channels: voiced bursts (a harmonic tone with a syllable-rate envelope)
 * alternating between the channels with pauses, sometimes overlapping, over faint noise; some
 * bursts clip hard and some end abruptly.
 */
function conversation(rate: number, seconds: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const frames = Math.round(seconds * rate);
  const ch = [new Float32Array(frames), new Float32Array(frames)];
  for (const c of ch) for (let i = 0; i < frames; i++) c[i] = (random() - 0.5) * 0.002;
  let t = 0.3 + random();
  let side = 0;
  while (t < seconds - 1) {
    const length = 0.6 + 2.4 * random();
    const f0 = side === 0 ? 120 + 40 * random() : 190 + 50 * random();
    const gain = random() < 0.15 ? 1.6 : 0.2 + 0.4 * random();
    const abrupt = random() < 0.3;
    const start = Math.round(t * rate);
    const n = Math.min(frames - start, Math.round(length * rate));
    for (let k = 0; k < n; k++) {
      const s = k / rate;
      const attack = Math.min(1, s / 0.03);
      const release = abrupt ? 1 : Math.min(1, (n - k) / rate / 0.15);
      const syllables = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4.3 * s);
      let v = 0;
      for (let h = 1; h <= 5; h++) v += Math.sin(2 * Math.PI * f0 * h * s) / h;
      const x = gain * attack * release * syllables * v * 0.5;
      ch[side][start + k] += Math.max(-1.2, Math.min(1.2, x));
    }
    // Most turns hand over after a pause; some overlap the other party's end.
    t += length + (random() < 0.2 ? -0.4 * random() : 0.25 + 1.5 * random());
    side = random() < 0.8 ? 1 - side : side;
  }
  return ch;
}

function interleavedInt16(ch: Float32Array[]): Int16Array {
  const out = new Int16Array(ch[0].length * ch.length);
  for (let i = 0; i < ch[0].length; i++) for (let c = 0; c < ch.length; c++) out[i * ch.length + c] = Math.max(-32768, Math.min(32767, Math.round(ch[c][i] * 32767)));
  return out;
}

function encoded(ch: Float32Array[], rate: number, encoding: "pcm16" | "pcm24" | "float32"): Uint8Array {
  if (encoding === "pcm16") return writeWavPcm16(interleavedInt16(ch), rate, ch.length);
  const frames = ch[0].length;
  const width = encoding === "pcm24" ? 3 : 4;
  const data = new Uint8Array(frames * ch.length * width);
  const v = new DataView(data.buffer);
  for (let i = 0, o = 0; i < frames; i++) {
    for (let c = 0; c < ch.length; c++, o += width) {
      if (encoding === "float32") v.setFloat32(o, ch[c][i], true);
      else {
        const s = Math.max(-8388608, Math.min(8388607, Math.round(ch[c][i] * 8388607)));
        data[o] = s & 0xff;
        data[o + 1] = (s >> 8) & 0xff;
        data[o + 2] = (s >> 16) & 0xff;
      }
    }
  }
  return buildWav({ format: encoding === "float32" ? 3 : 1, channels: ch.length, sampleRate: rate, bits: width * 8, data, between: [["LIST", new Uint8Array(26)]] });
}

/** Everything a loaded call says: the test case with every clip's bytes, and the warnings. */
function described(loaded: LoadedCall): unknown {
  return {
    turns: loaded.testCase.turns.map((t) => ({ role: t.role, content: t.content, metadata: t.metadata, audio: { ...t.audio!.toJSON(), bytes: Buffer.from(t.audio!.getBytes()).toString("base64") } })),
    metadata: loaded.testCase.metadata,
    name: loaded.testCase.name,
    warnings: loaded.warnings,
  };
}

const scoring = resolveScoreOptions({ acoustics: true, profile: "voxmetrics" });
const parity = resolveScoreOptions();

function expectSameAsWhole(path: string, chunkFrames?: number): LoadedCall {
  const whole = loadDualChannelWhole(path);
  const streamed = loadDualChannel(path, {}, { chunkFrames });
  try {
    expect(streamed.testCase.turns.length).toBeGreaterThan(3);
    expect(described(streamed)).toEqual(described(whole));
    for (const options of [scoring, parity]) expect(scoreLoadedCall(streamed, options)).toEqual(scoreLoadedCall(whole, options));
  } finally {
    streamed.dispose?.();
  }
  return streamed;
}

describe("dual-channel recordings streamed from disk ≡ decoded whole", () => {
  const cases: Array<[number, "pcm16" | "pcm24" | "float32", number]> = [
    [8000, "pcm16", 1],
    [16000, "pcm24", 2],
    [24000, "pcm16", 3],
    [44100, "float32", 4],
    [48000, "pcm16", 5],
  ];
  for (const [rate, encoding, seed] of cases) {
    it(`${rate} Hz ${encoding}: the same turns, clips and scores (default chunks)`, () => {
      const path = join(tmp, `call-${rate}-${encoding}.wav`);
      writeFileSync(path, encoded(conversation(rate, 40, seed), rate, encoding));
      expectSameAsWhole(path);
    });
  }

  it("at small forced chunk sizes (1, 7 and 4099 frames) the result is the same", () => {
    const rate = 16000;
    const path = join(tmp, "call-small-chunks.wav");
    writeFileSync(path, encoded(conversation(rate, 14, 11), rate, "pcm16"));
    for (const chunkFrames of [1, 7, 4099]) expectSameAsWhole(path, chunkFrames);
    const floats = join(tmp, "call-small-chunks-f32.wav");
    writeFileSync(floats, encoded(conversation(rate, 12, 12), rate, "float32"));
    expectSameAsWhole(floats, 3);
  });

  it("a float recording holding a NaN is refused with decodeAudio's error before anything else is read (a broken sidecar beside it too)", () => {
    const rate = 16000;
    const ch = conversation(rate, 10, 41);
    ch[1][5 * rate + 17] = Number.NaN;
    const path = join(tmp, "call-nan.wav");
    writeFileSync(path, encoded(ch, rate, "float32"));
    writeFileSync(join(tmp, "call-nan.json"), "{ not json");
    let want = "";
    try {
      loadDualChannelWhole(path);
    } catch (e) {
      want = (e as Error).message;
    }
    expect(want).toMatch(/non-finite value/);
    expect(() => loadDualChannel(path)).toThrow(want.replace(path, "call-nan.wav").slice(want.indexOf(":") + 2));
  });

  it("--compat deepeval: the recording is read from disk too, with the same turns, clips and scores as decoded whole", () => {
    const rate = 16000;
    const path = join(tmp, "call-compat.wav");
    writeFileSync(path, encoded(conversation(rate, 30, 51), rate, "pcm16"));
    const whole = loadDualChannelWhole(path);
    const compat = resolveScoreOptions({ compat: "deepeval" });
    for (const chunkFrames of [undefined, 7]) {
      const streamed = loadDualChannel(path, { compat: "deepeval" }, { chunkFrames });
      try {
        expect(streamed.testCase.turns.length).toBeGreaterThan(3);
        expect(described(streamed)).toEqual(described(whole));
        expect(scoreLoadedCall(streamed, compat)).toEqual(scoreLoadedCall(whole, compat));
      } finally {
        streamed.dispose?.();
      }
    }
  });

  it("a clip read after the call was disposed is read again from the file", () => {
    const rate = 8000;
    const path = join(tmp, "call-dispose.wav");
    writeFileSync(path, encoded(conversation(rate, 20, 21), rate, "pcm16"));
    const streamed = loadDualChannel(path);
    const first = Buffer.from(streamed.testCase.turns[1].audio!.getBytes());
    streamed.dispose?.();
    expect(Buffer.from(streamed.testCase.turns[1].audio!.getBytes())).toEqual(first);
    streamed.dispose?.();
  });
});

describe.skipIf(!findFfmpeg())("a compressed dual-channel recording (decoded once to a temporary WAV)", () => {
  it("FLAC: the same turns, clips and scores as decoding it whole", () => {
    const rate = 24000;
    const wav = join(tmp, "call-flac-src.wav");
    writeFileSync(wav, encoded(conversation(rate, 30, 31), rate, "pcm16"));
    const flac = join(tmp, "call.flac");
    expect(spawnSync(findFfmpeg()!, ["-hide_banner", "-loglevel", "error", "-i", wav, "-c:a", "flac", "-y", flac]).status).toBe(0);
    expectSameAsWhole(flac);
  });
});
