// Bad clips inside a test case: deepeval's semantics (the call is still scored, the breakdown carries deepeval's
// string) plus a `detail` naming the file and the reason; a bad call never stops the others.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scoreArchive, writeWavPcm16 } from "../../src/index.js";
import type { ResultRecord } from "../../src/scoring/record.js";
import { buildWav } from "../audio/wav-builder.js";

const dir = mkdtempSync(join(tmpdir(), "vox-badclips-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.min(1, i / 400, (7999 - i) / 400) * Math.sin((2 * Math.PI * 197 * i) / 8000)));
writeFileSync(join(dir, "good.wav"), writeWavPcm16(tone, 8000));
writeFileSync(join(dir, "not-a-wav.wav"), "this is text, not audio");
writeFileSync(join(dir, "truncated.wav"), writeWavPcm16(tone, 8000).subarray(0, 5001));
writeFileSync(join(dir, "nan.wav"), buildWav({ format: 3, bits: 32, data: new Uint8Array(new Float32Array([0.1, NaN, 0.2]).buffer) }));
writeFileSync(join(dir, "inf.wav"), buildWav({ format: 3, bits: 32, data: new Uint8Array(new Float32Array([0.1, -Infinity]).buffer) }));
writeFileSync(join(dir, "zero.wav"), writeWavPcm16(new Int16Array(0), 8000));

const call = (clip: string) => ({
  name: clip,
  turns: [
    { role: "user", content: "Hello?", audio: { url: "good.wav", start_time: 0 } },
    { role: "assistant", content: "Hi there", audio: { url: clip, start_time: 1.5 } },
  ],
});
const CLIPS = ["not-a-wav.wav", "truncated.wav", "nan.wav", "inf.wav", "zero.wav"];
const lines = [...CLIPS, "good.wav"].map((c) => JSON.stringify(call(c)));
writeFileSync(join(dir, "calls.jsonl"), `${lines.join("\n")}\n`);

describe("bad clips in score", () => {
  it("scores every call; each bad clip is a measurement error naming the file and the reason", async () => {
    const out = join(dir, "out.jsonl");
    await scoreArchive({ inputs: [join(dir, "calls.jsonl")], out, pool: { workers: 0 } });
    const records = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
    expect(records).toHaveLength(6);
    const byName = new Map(records.map((r) => [r.name, r]));
    const expectations: Record<string, [string, RegExp]> = {
      "not-a-wav.wav": ["Audio is not a decodable PCM WAV.", /not-a-wav\.wav: .*ffmpeg could not decode it|not-a-wav\.wav: .*ffmpeg/],
      "truncated.wav": ["Audio is not a decodable PCM WAV.", /truncated\.wav: truncated WAV/],
      "nan.wav": ["Audio is not a decodable PCM WAV.", /nan\.wav: .*NaN/],
      "inf.wav": ["Audio is not a decodable PCM WAV.", /inf\.wav: .*Infinity/],
      "zero.wav": ["Audio contains no decodable PCM samples.", /zero\.wav: .*zero-length/],
    };
    for (const [clip, [metricMessage, detail]] of Object.entries(expectations)) {
      const r = byName.get(clip)!;
      expect(r.status, clip).toBe("ok");
      const turn = r.turns!.find((t) => t.index === 1)!;
      expect((turn.measurements as { error: string }).error, clip).toBe(metricMessage);
      expect((turn.measurements as { detail: string }).detail, clip).toMatch(detail);
      const integrity = r.metrics!["Audio Integrity"];
      expect(integrity.score).toBe(0);
      expect(integrity.reason).toBe("A critical audio-integrity failure occurred: audio_undecodable.");
    }
    expect(byName.get("good.wav")!.metrics!["Audio Integrity"].score).toBeGreaterThan(0);
  });
});
