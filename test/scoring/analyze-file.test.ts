// File analysis (`voxmetrics analyze`): the same measurements as the public analysis functions, per channel too, every set, errors that name the file, one PCM copy per file (two for float sources).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeAcoustics, analyzeLoudness } from "../../src/analysis/acoustics.js";
import { analyzeParity } from "../../src/analysis/parity.js";
import { downmixTruncating } from "../../src/audio/convert.js";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { toFloatPlanar } from "../../src/dsp/reference/interleaved.js";
import { pcmCopyStats } from "../../src/dsp/wasm.js";
import { analyzeFile, analyzeFileAt, resolveAnalyzeFileOptions } from "../../src/scoring/analyze-file.js";
import { buildWav } from "../audio/wav-builder.js";
import { seededRandom } from "../helpers/random.js";

const RATE = 16000;
const random = seededRandom(515);
const tmp = mkdtempSync(join(tmpdir(), "vx-analyze-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Interleaved int16 speech-like bursts (a tone switched on and off) with a little noise, `channels` different channels. */
function bursts(seconds: number, channels: number): Int16Array {
  const frames = Math.round(seconds * RATE);
  const x = new Int16Array(frames * channels);
  for (let c = 0; c < channels; c++) {
    const f0 = 120 + 60 * c;
    for (let k = 0; k < frames; k++) {
      const on = Math.floor(k / (0.4 * RATE)) % 2 === c % 2;
      const tone = on ? 9000 * Math.sin((2 * Math.PI * f0 * k) / RATE) + 3000 * Math.sin((2 * Math.PI * 3 * f0 * k) / RATE) : 0;
      x[k * channels + c] = Math.round(tone + 40 * (random() - 0.5));
    }
  }
  return x;
}

function copiesDuring(run: () => void): number {
  const before = pcmCopyStats().samples;
  run();
  return pcmCopyStats().samples - before;
}

describe("analyzeFile", () => {
  it("a mono WAV: parity set and standards set as analyzeParity and analyzeAcoustics give them; the PCM is copied into wasm once", () => {
    const pcm = bursts(2.5, 1);
    const bytes = writeWavPcm16(pcm, RATE, 1);
    let result!: ReturnType<typeof analyzeFile>;
    expect(copiesDuring(() => (result = analyzeFile(bytes, { path: "a.wav" })))).toBe(pcm.length);
    expect(result).toMatchObject({ path: "a.wav", status: "ok", error: null, format: "wav/pcm16", sample_rate: RATE, channels: 1, duration: 2.5 });
    expect(result.measurements).toEqual(analyzeParity(pcm, RATE));
    expect(result.acoustics).toEqual(analyzeAcoustics(toFloatPlanar({ samples: pcm, channels: 1 }), RATE));
    expect(result).not.toHaveProperty("channels_acoustics");
  });

  it("a stereo WAV: deepeval's mono mix for parity, all channels together and each channel alone for the standards set", () => {
    const pcm = bursts(2, 2);
    const planar = toFloatPlanar({ samples: pcm, channels: 2 });
    let result!: ReturnType<typeof analyzeFile>;
    expect(copiesDuring(() => (result = analyzeFile(writeWavPcm16(pcm, RATE, 2), { path: "s.wav" })))).toBe(pcm.length);
    expect(result.measurements).toEqual(analyzeParity(downmixTruncating(pcm, 2), RATE));
    expect(result.acoustics).toEqual(analyzeAcoustics(planar, RATE));
    expect(result.channels_acoustics).toEqual(planar.map((c) => analyzeAcoustics([c], RATE)));
  });

  it("a float WAV: the standards set reads the exact floats (copied in once more), parity the int16 conversion", () => {
    const frames = RATE;
    const floats = Float32Array.from({ length: frames }, (_, k) => 0.3 * Math.sin((2 * Math.PI * 200 * k) / RATE) * (Math.floor(k / 3000) % 2));
    const bytes = buildWav({ format: 3, bits: 32, sampleRate: RATE, data: new Uint8Array(floats.buffer) });
    let result!: ReturnType<typeof analyzeFile>;
    expect(copiesDuring(() => (result = analyzeFile(bytes, { path: "f.wav" })))).toBe(2 * frames);
    expect(result.format).toBe("wav/float32");
    expect(result.acoustics).toEqual(analyzeAcoustics([floats], RATE));
    // deepeval's acceptance refuses float WAVs: an error result naming the file, no measurements.
    const refused = analyzeFile(bytes, { path: "f.wav", compat: "deepeval" });
    expect(Object.keys(refused)).toEqual(["path", "format", "sample_rate", "channels", "duration", "status", "error"]);
    expect(refused).toMatchObject({ status: "error", error: { code: "DECODE_ERROR", message: expect.stringMatching(/^f\.wav: /) } });
  });

  it("computes only the set asked for", () => {
    const pcm = bursts(1, 1);
    const bytes = writeWavPcm16(pcm, RATE, 1);
    const parity = analyzeFile(bytes, { path: "a.wav", set: "parity" });
    expect(parity.measurements).toBeDefined();
    expect(parity).not.toHaveProperty("acoustics");
    const loudness = analyzeFile(bytes, { path: "a.wav", set: "loudness" });
    expect(loudness).not.toHaveProperty("measurements");
    expect(loudness.acoustics).toEqual(analyzeLoudness(toFloatPlanar({ samples: pcm, channels: 1 }), RATE));
    expect(Object.keys(loudness.acoustics!)).toEqual(["integrated_lufs", "momentary_max_lufs", "short_term_max_lufs", "lra_lu", "sample_peak_dbfs", "true_peak_dbtp"]);
    const standards = analyzeFile(bytes, { path: "a.wav", set: "standards" });
    expect(standards).not.toHaveProperty("measurements");
    expect(Object.keys(standards.acoustics!)).toContain("pauses");
  });

  it("a file that cannot be read is an IO_ERROR result naming it; an unknown set is refused by name", () => {
    expect(analyzeFileAt(join(tmp, "missing.wav"))).toEqual({
      path: join(tmp, "missing.wav"),
      status: "error",
      error: { code: "IO_ERROR", message: `${join(tmp, "missing.wav")}: cannot read the file (ENOENT)` },
      format: null,
      sample_rate: null,
      channels: null,
      duration: null,
    });
    expect(() => resolveAnalyzeFileOptions({ set: "everything" as "all" })).toThrow(expect.objectContaining({ code: "INVALID_OPTION", field: "set" }));
  });
});
