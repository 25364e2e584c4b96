// CallAnalysis: each clip analysed once, the standards set only when asked (as analyzeAcoustics measures it), decoded clips of a loaded call reused only in their own mode, one PCM copy per clip.
import { describe, expect, it } from "vitest";
import { analyzeAcoustics } from "../../src/analysis/acoustics.js";
import { resolveAcousticsOptions } from "../../src/analysis/acoustics-options.js";
import { CallAnalysis, type LoadedCall } from "../../src/analysis/call.js";
import { analyzeParity } from "../../src/analysis/parity.js";
import { decodeAudio } from "../../src/audio/decode.js";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { toFloatPlanar } from "../../src/dsp/reference/interleaved.js";
import { pcmCopyStats } from "../../src/dsp/wasm.js";
import { Audio } from "../../src/model/audio.js";
import { createTestCase } from "../../src/model/test-case.js";

const RATE = 8000;

function tone(seconds: number, hz: number, amplitude: number): Int16Array {
  return Int16Array.from({ length: Math.round(seconds * RATE) }, (_, k) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * k) / RATE) * (Math.floor(k / 2000) % 2)));
}

const clips = [tone(1.5, 150, 8000), tone(2, 220, 12000)];
const testCase = createTestCase({
  turns: [
    { role: "user", content: "hello there", audio: Audio.fromBytes(writeWavPcm16(clips[0], RATE), "audio/wav", { start_time: 0 }) },
    { role: "assistant", content: "" },
    { role: "assistant", content: "how can I help you today", audio: Audio.fromBytes(writeWavPcm16(clips[1], RATE), "audio/wav", { start_time: 2 }) },
  ],
});

describe("CallAnalysis", () => {
  it("measures each clip once; with acoustics options, the block analyzeAcoustics gives (transcript words included)", () => {
    const acoustics = resolveAcousticsOptions();
    const analysis = new CallAnalysis(testCase, { acoustics });
    const before = pcmCopyStats();
    const first = analysis.clip(2)!;
    expect(analysis.clip(2)).toBe(first);
    expect(analysis.clip(1)).toBeUndefined();
    // One copy of the clip's PCM for both measurement sets.
    expect(pcmCopyStats().copies - before.copies).toBe(1);
    expect(pcmCopyStats().samples - before.samples).toBe(clips[1].length);
    expect(first.measurements).toEqual(analyzeParity(clips[1], RATE));
    expect(first.acoustics).toEqual(analyzeAcoustics(toFloatPlanar({ samples: clips[1], channels: 1 }), RATE, {}, "how can I help you today"));
    expect(first.acoustics!.words_per_minute).not.toBeNull();
    expect(first.timelineDuration).toBe(2);
    expect(new CallAnalysis(testCase).clip(2)!.acoustics).toBeUndefined();
  });

  it("reuses the clips a loaded call already decoded, only when they were decoded in the analysis mode", () => {
    // A stand-in decoded clip that differs from the turn's bytes shows which one was measured.
    const standIn = decodeAudio(writeWavPcm16(tone(1, 400, 3000), RATE));
    const loaded: LoadedCall = { testCase, warnings: [], decoded: { compat: "voxmetrics", byTurn: new Map([[0, standIn]]) } };
    expect(new CallAnalysis(loaded, { compat: "voxmetrics" }).clip(0)!.measurements).toEqual(analyzeParity(standIn.samples, RATE));
    expect(new CallAnalysis(loaded, { compat: "deepeval" }).clip(0)!.measurements).toEqual(analyzeParity(clips[0], RATE));
    expect(new CallAnalysis(testCase).clip(0)!.measurements).toEqual(analyzeParity(clips[0], RATE));
  });
});
