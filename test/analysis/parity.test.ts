// analyzeParity against deepeval's reference vectors: the §8.1 signals (hash-checked) give §8.2, and the shared parity WAVs give expected.jsonl's measurements.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeParity } from "../../src/analysis/parity.js";
import type { ParityMeasurements } from "../../src/analysis/types.js";
import { compareDeep } from "../helpers/compare.js";
import { sharedDir } from "../helpers/shared.js";

/** First 16 hex digits of SHA-256 over the little-endian int16 bytes (§8.1). */
function sampleHash(x: Int16Array): string {
  return createHash("sha256").update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)).digest("hex").slice(0, 16);
}

/** T(f, d) of §8.1: 8 kHz tone with 160-sample linear fades (envelope × amplitude first, then × sine). */
function fixtureTone(hz: number, seconds: number): Int16Array {
  const count = Math.trunc(seconds * 8000);
  return Int16Array.from({ length: count }, (_, i) =>
    Math.trunc(6000 * Math.max(0, Math.min(1, i / 160, (count - i - 1) / 160)) * Math.sin((2 * Math.PI * hz * i) / 8000)),
  );
}

/** S201 of §8.1: 16 kHz 201 Hz tone with 320-sample fades and samples 8000…9599 zeroed. */
function s201(): Int16Array {
  const n = 16000;
  const x = Int16Array.from({ length: n }, (_, i) =>
    Math.trunc(8000 * Math.max(0, Math.min(1, i / 320, (n - i - 1) / 320)) * Math.sin((2 * Math.PI * 201 * i) / 16000)),
  );
  return x.fill(0, 8000, 9600);
}

/** SAW1 / SAW075 of §8.1. */
function sawtooth(n: number): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => (i % 100) * 80 - 4000);
}

/** TRI of §8.1: five 6000-sample integer triangle "syllables", each followed by 3600 samples of LCG noise. */
function triangleSyllables(): Int16Array {
  const out: number[] = [];
  let x = 12345n;
  for (const period of [200, 171, 150, 185, 218]) {
    for (let i = 0; i < 6000; i++) {
      const phase = (i % period) / period;
      out.push(Math.floor(6000 * (phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase)));
    }
    for (let j = 0; j < 3600; j++) {
      x = (1103515245n * x + 12345n) % 2n ** 31n;
      out.push(Number((x * 300n) / 2n ** 31n) - 150);
    }
  }
  return Int16Array.from(out);
}

/** §7.4: |a − b| ≤ 1e−9·max(1, |b|) for floats; everything else exact. */
function expectWithinSpec(actual: ParityMeasurements, expected: Partial<ParityMeasurements>, label: string): void {
  for (const [key, want] of Object.entries(expected)) {
    const got = actual[key as keyof ParityMeasurements];
    if (typeof want === "number" && typeof got === "number") {
      expect(Math.abs(got - want), `${label} ${key}: ${got} vs ${want}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
    } else {
      expect(got, `${label} ${key}`).toBe(want);
    }
  }
}

describe("§8.1 signals reproduce their sample hashes", () => {
  it.each([
    ["T(160, 0.3)", () => fixtureTone(160, 0.3), 2400, "52d1e30ae326e600"],
    ["T(180, 0.3)", () => fixtureTone(180, 0.3), 2400, "1344e3f7b2bac30f"],
    ["T(190, 0.3)", () => fixtureTone(190, 0.3), 2400, "7d1026ed6fdac105"],
    ["T(165, 0.3)", () => fixtureTone(165, 0.3), 2400, "aec4069e19e86d46"],
    ["T(192, 0.3)", () => fixtureTone(192, 0.3), 2400, "839f07c603de86d0"],
    ["T(160, 1.0)", () => fixtureTone(160, 1.0), 8000, "64699bfea5d151da"],
    ["T(190, 2.0)", () => fixtureTone(190, 2.0), 16000, "9ff8cf7d97852c8e"],
    ["T(165, 0.5)", () => fixtureTone(165, 0.5), 4000, "f64ba1b4801f38e7"],
    ["T(192, 1.0)", () => fixtureTone(192, 1.0), 8000, "eaae96512fe2dd9d"],
    ["S201", s201, 16000, "5fde7f3ac277f975"],
    ["SAW1", () => sawtooth(8000), 8000, "2417ed82597aaa73"],
    ["SAW075", () => sawtooth(6000), 6000, "fa3cc1e11b26e3f9"],
    ["TRI", triangleSyllables, 48000, "9dac45c855b45582"],
    ["Z16", () => new Int16Array(16000), 16000, "0c92bddb4e96f3ea"],
  ] as const)("%s", (_name, make, n, hash) => {
    const x = make();
    expect(x.length).toBe(n);
    expect(sampleHash(x)).toBe(hash);
  });
});

describe("§8.2 per-clip measurements", () => {
  const T = true;
  const F = false;
  const row = (
    rms_dbfs: number,
    silence_fraction: number,
    longest_silence_ms: number,
    dropout_events: number,
    loop_events: number,
    estimated_snr_db: number,
    zero_crossing_rate: number,
    pitch_mean_hz: number | null,
    pitch_variation_hz: number | null,
    starts_abruptly: boolean,
    ends_abruptly: boolean,
    duration: number,
  ): Partial<ParityMeasurements> => ({
    duration,
    rms_dbfs,
    clipping_fraction: 0.0,
    silence_fraction,
    longest_silence_ms,
    dropout_events,
    loop_events,
    estimated_snr_db,
    zero_crossing_rate,
    pitch_mean_hz,
    pitch_variation_hz,
    starts_abruptly,
    ends_abruptly,
  });
  it.each([
    ["T(190, 0.3)", () => fixtureTone(190, 0.3), 8000, row(-18.16312405823833, 0.0, 0, 0, 0, 40.0, 0.04751979991663193, 191.0569105691057, 1.5364409471919798, T, T, 0.3)],
    ["T(192, 0.3)", () => fixtureTone(192, 0.3), 8000, row(-18.163097805412743, 0.0, 0, 0, 0, 40.0, 0.04835348061692372, 193.37979094076655, 2.2491192486686495, T, T, 0.3)],
    ["S201", s201, 16000, row(-15.844879773100873, 0.1, 100, 1, 0, 40.0, 0.02262641415088443, 200.0, 0.0, T, T, 1.0)],
    ["SAW1", () => sawtooth(8000), 8000, row(-23.03814291771524, 0.0, 0, 0, 3, 40.0, 0.019877484685585697, 80.0, 0.0, T, T, 1.0)],
    ["SAW075", () => sawtooth(6000), 8000, row(-23.03814291771524, 0.0, 0, 0, 2, 40.0, 0.019836639439906652, 80.0, 0.0, T, T, 0.75)],
    ["TRI", triangleSyllables, 24000, row(-21.554514644198886, 0.35, 140, 4, 0, 32.255837891966415, 0.195524906768891, 133.99446541744612, 17.026565898289128, T, F, 2.0)],
    ["Z16", () => new Int16Array(16000), 16000, row(-96.0, 1.0, 1000, 0, 0, 0.0, 0.0, null, null, F, F, 1.0)],
  ] as const)("%s", (name, make, sampleRate, expected) => {
    const actual = analyzeParity(make(), sampleRate);
    expect(Object.keys(actual)).toEqual(Object.keys(expected));
    expectWithinSpec(actual, expected, name);
  });
});

describe("edge clips", () => {
  it("one sample: no frames (silence 1.0), SNR 0, no pitch, edges over the whole clip", () => {
    expect(analyzeParity(Int16Array.of(-32768), 8000)).toEqual({
      duration: 1 / 8000,
      rms_dbfs: 0,
      clipping_fraction: 1,
      silence_fraction: 1.0,
      longest_silence_ms: 0,
      dropout_events: 0,
      loop_events: 0,
      estimated_snr_db: 0.0,
      zero_crossing_rate: 0,
      pitch_mean_hz: null,
      pitch_variation_hz: null,
      starts_abruptly: true,
      ends_abruptly: true,
    });
  });

  it("a clean tone padded with digital silence has exactly 40 dB SNR; quiet frames set the noise level instead", () => {
    const tone = Int16Array.from({ length: 8000 }, (_, i) => (i < 4000 ? Math.trunc(8000 * Math.sin((2 * Math.PI * 200 * i) / 8000)) : 0));
    expect(analyzeParity(tone, 8000).estimated_snr_db).toBe(40.0);
    const withNoise = (amplitude: number) => Int16Array.from(tone, (v, i) => (i < 4000 ? v : ((i % 7) - 3) * amplitude));
    expect(analyzeParity(withNoise(1), 8000).estimated_snr_db).toBeGreaterThan(60);
    expect(analyzeParity(withNoise(80), 8000).estimated_snr_db).toBeLessThan(40);
  });

  it("counts a 100 ms gap between voiced frames as one dropout, but not a gap at either end", () => {
    const burst = (n: number) => Array.from({ length: n }, (_, i) => Math.trunc(5000 * Math.sin((2 * Math.PI * 150 * i) / 8000)));
    const silence = (n: number) => new Array<number>(n).fill(0);
    const middle = Int16Array.from([...burst(1600), ...silence(800), ...burst(1600)]);
    const edges = Int16Array.from([...silence(800), ...burst(1600), ...silence(800)]);
    expect(analyzeParity(middle, 8000).dropout_events).toBe(1);
    expect(analyzeParity(edges, 8000).dropout_events).toBe(0);
    expect(analyzeParity(edges, 8000).longest_silence_ms).toBe(100);
  });
});

const shared = sharedDir();

/**
 * Minimal RIFF/WAVE reader for the parity set: 16-bit PCM (format tag 1) with the §2.3 truncating
 * downmix; null for anything deepeval cannot decode (those turns expect an error entry instead).
 */
function readPcm16Wav(bytes: Buffer): { pcm: Int16Array; sampleRate: number } | null {
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "RIFF" || bytes.toString("latin1", 8, 12) !== "WAVE") return null;
  let format: { tag: number; channels: number; sampleRate: number; bits: number } | null = null;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = bytes.toString("latin1", at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === "fmt ") {
      format = { tag: bytes.readUInt16LE(body), channels: bytes.readUInt16LE(body + 2), sampleRate: bytes.readUInt32LE(body + 4), bits: bytes.readUInt16LE(body + 14) };
    } else if (id === "data") {
      if (!format || format.tag !== 1 || format.bits !== 16 || format.sampleRate === 0) return null;
      const channels = format.channels;
      const end = Math.min(bytes.length, body + size);
      const frames = Math.floor((end - body) / (2 * channels));
      if (frames === 0) return null;
      const pcm = new Int16Array(frames);
      for (let f = 0; f < frames; f++) {
        let sum = 0;
        for (let c = 0; c < channels; c++) sum += bytes.readInt16LE(body + 2 * (f * channels + c));
        pcm[f] = Math.trunc(sum / channels);
      }
      return { pcm, sampleRate: format.sampleRate };
    }
    at = body + size + (size & 1);
  }
  return null;
}

interface CaseTurn {
  audio: { url?: string; dataBase64?: string } | null;
}

describe.skipIf(!shared)("shared parity set: analyzeParity vs expected.jsonl measurements", () => {
  if (!shared) return;
  const root = join(shared, "parity");
  const expected = new Map<string, Record<string, Record<string, unknown>>>(
    readFileSync(join(root, "expected.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { name: string; measurements: Record<string, Record<string, unknown>> })
      .map((c) => [c.name, c.measurements]),
  );
  const caseFiles = [
    join(root, "deepeval-sim", "call.json"),
    join(root, "deepeval-sim", "conversation-mix.json"),
    ...readdirSync(join(root, "synthetic"))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => join(root, "synthetic", f)),
  ];

  for (const file of caseFiles) {
    const testCase = JSON.parse(readFileSync(file, "utf8")) as { name: string; turns: CaseTurn[] };
    it(testCase.name, () => {
      const want = expected.get(testCase.name);
      expect(want, `${testCase.name} in expected.jsonl`).toBeDefined();
      const measured: string[] = [];
      testCase.turns.forEach((turn, index) => {
        if (!turn.audio) return;
        const label = `${testCase.name} turn ${index}`;
        const expectedTurn = want![String(index)];
        expect(expectedTurn, label).toBeDefined();
        const decoded = turn.audio.url ? readPcm16Wav(readFileSync(join(dirname(file), turn.audio.url))) : null;
        if (!decoded) {
          expect(expectedTurn, `${label}: deepeval cannot decode it either`).toHaveProperty("error");
          return;
        }
        const actual = analyzeParity(decoded.pcm, decoded.sampleRate);
        expect(compareDeep(actual, expectedTurn, `${label}`), label).toEqual([]);
        measured.push(String(index));
      });
      expect(measured.length + Object.values(want!).filter((m) => "error" in m).length).toBe(Object.keys(want!).length);
    });
  }
});

describe.skipIf(shared)("shared parity set", () => {
  it.skip("../shared/parity is absent: the WAV parity comparison was skipped (the §8 vectors above still run)", () => {});
});
