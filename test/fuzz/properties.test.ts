// Property-based tests (fast-check) of the three parsers every input goes through: the WAV readers, the test-case JSON codec and base64.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio, decodeCanonicalPcm16, decodeWideGeneral } from "../../src/audio/decode.js";
import { DecodeError } from "../../src/audio/errors.js";
import { CompatWavError, readCompatWav } from "../../src/audio/wav-compat.js";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { decodeBase64Python, encodeBase64 } from "../../src/model/base64.js";
import { parseTestCaseText, testCaseFromJson, testCaseToJson } from "../../src/model/codec.js";
import { VoxError } from "../../src/model/errors.js";
import { scanJsonRecords } from "../../src/model/json-records.js";

const RUNS = 300;

// Inputs that would go to ffmpeg fail fast with FFMPEG_MISSING here: these properties are about the in-process parsers.
let savedFfmpeg: string | undefined;
beforeAll(() => {
  savedFfmpeg = process.env.FFMPEG_PATH;
  process.env.FFMPEG_PATH = "/nonexistent/ffmpeg";
});
afterAll(() => {
  if (savedFfmpeg === undefined) delete process.env.FFMPEG_PATH;
  else process.env.FFMPEG_PATH = savedFfmpeg;
});

/** A well-formed 16-bit PCM WAV and what it holds. */
const pcmWav = fc
  .record({ channels: fc.integer({ min: 1, max: 4 }), rate: fc.integer({ min: 1000, max: 96000 }), frames: fc.integer({ min: 1, max: 200 }), seed: fc.integer() })
  .map(({ channels, rate, frames, seed }) => {
    const samples = Int16Array.from({ length: frames * channels }, (_, i) => ((Math.imul(seed ^ i, 2654435761) >>> 0) % 65536) - 32768);
    return { channels, rate, samples, bytes: writeWavPcm16(samples, rate, channels) };
  });

/** A WAV header field overwritten with an arbitrary value, a byte flipped, or the file cut short. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant("u16" as const), at: fc.constantFrom(20, 22, 32, 34), value: fc.integer({ min: 0, max: 0xffff }) }),
  fc.record({ kind: fc.constant("u32" as const), at: fc.constantFrom(4, 16, 24, 28, 40), value: fc.integer({ min: 0, max: 0xffffffff }) }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), value: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat(), value: fc.constant(0) }),
);

function mutate(bytes: Uint8Array, muts: Array<{ kind: "u16" | "u32" | "flip" | "cut"; at: number; value: number }>): Uint8Array {
  let b = Uint8Array.from(bytes);
  for (const m of muts) {
    const v = new DataView(b.buffer);
    if (m.kind === "u16" && m.at + 2 <= b.length) v.setUint16(m.at, m.value, true);
    else if (m.kind === "u32" && m.at + 4 <= b.length) v.setUint32(m.at, m.value, true);
    else if (m.kind === "flip" && b.length > 0) b[m.at % b.length] ^= m.value;
    else if (m.kind === "cut") b = b.slice(0, m.at % (b.length + 1));
  }
  return b;
}

describe("WAV parser properties", () => {
  it("a well-formed PCM16 WAV decodes to exactly its samples, by the fast path and the general path alike", () => {
    fc.assert(
      fc.property(pcmWav, ({ channels, rate, samples, bytes }) => {
        const fast = decodeCanonicalPcm16(bytes)!;
        const general = decodeWideGeneral(bytes);
        for (const d of [fast, general]) {
          expect(d.channels).toBe(channels);
          expect(d.sampleRate).toBe(rate);
          expect(Array.from(d.samples)).toEqual(Array.from(samples));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("any mutation of a WAV header or body: decodeAudio returns whole frames or throws a DecodeError naming the clip, never anything else", () => {
    fc.assert(
      fc.property(pcmWav, fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.constantFrom("voxmetrics" as const, "deepeval" as const), ({ bytes }, muts, compat) => {
        const input = mutate(bytes, muts);
        try {
          const d = decodeAudio(input, { compat, name: "clip.wav" });
          expect(d.channels).toBeGreaterThanOrEqual(1);
          expect(d.channels).toBeLessThanOrEqual(32);
          expect(d.samples.length).toBeGreaterThanOrEqual(d.frames * d.channels);
          expect(d.sampleRate).toBeGreaterThan(0);
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError);
          expect((e as DecodeError).message).toMatch(/^clip\.wav: /);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("readCompatWav on arbitrary bytes behind a RIFF/WAVE prefix: a result or a CompatWavError", () => {
    const riff = new TextEncoder().encode("RIFF\x00\x00\x00\x00WAVE");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(0xffffffff), (body, size) => {
        const bytes = new Uint8Array(riff.length + body.length);
        bytes.set(riff);
        bytes.set(body, riff.length);
        new DataView(bytes.buffer).setUint32(4, size, true);
        try {
          const w = readCompatWav(bytes);
          expect(w.channels).toBeGreaterThan(0);
          expect(w.data.length % (w.channels * w.sampleWidth)).toBe(0);
        } catch (e) {
          expect(e).toBeInstanceOf(CompatWavError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("a header declaring more channels than the budget is always LIMIT_EXCEEDED, before any sample is read", () => {
    fc.assert(
      fc.property(pcmWav, fc.integer({ min: 33, max: 0xffff }), ({ bytes }, channels) => {
        const b = Uint8Array.from(bytes);
        new DataView(b.buffer).setUint16(22, channels, true);
        expect(() => decodeAudio(b, { name: "x.wav" })).toThrow(expect.objectContaining({ code: "LIMIT_EXCEEDED" }));
      }),
      { numRuns: 100 },
    );
  });
});

/** A valid test case in deepeval's JSON shape. */
const turnJson = fc.record(
  {
    role: fc.constantFrom("user", "assistant"),
    content: fc.string({ maxLength: 40 }),
    audio: fc.option(
      fc.record({ dataBase64: fc.uint8Array({ minLength: 1, maxLength: 30 }).map(encodeBase64), mimeType: fc.constant("audio/wav"), start_time: fc.option(fc.double({ min: 0, max: 1e4, noNaN: true }), { nil: null }) }),
      { nil: undefined },
    ),
    metadata: fc.option(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
  },
  { requiredKeys: ["role", "content"] },
);
const testCaseJson = fc.record({ name: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }), turns: fc.array(turnJson, { minLength: 1, maxLength: 5 }) }, { requiredKeys: ["turns"] });

describe("JSON codec properties", () => {
  it("round trip: a valid test case dumped and read back is the same test case", () => {
    fc.assert(
      fc.property(testCaseJson, (value) => {
        const once = testCaseToJson(testCaseFromJson(JSON.parse(JSON.stringify(value))));
        const twice = testCaseToJson(testCaseFromJson(JSON.parse(JSON.stringify(once))));
        expect(twice).toEqual(once);
        expect((once.turns as unknown[]).length).toBe(value.turns.length);
      }),
      { numRuns: RUNS },
    );
  });

  it("any JSON value (wrong types, nesting, odd strings): a test case or a VoxError naming the file, never another error", () => {
    const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 4 }), testCaseJson.chain((tc) => fc.jsonValue({ maxDepth: 3 }).map((junk) => ({ ...tc, turns: [...tc.turns, junk] }))));
    fc.assert(
      fc.property(anyJson, (value) => {
        try {
          testCaseFromJson(value, { file: "f.json" });
        } catch (e) {
          expect(e).toBeInstanceOf(VoxError);
          expect((e as VoxError).message).toMatch(/^f\.json: /);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("any text as a JSONL file: one entry per non-blank line, each a test case or an error (the other lines still load)", () => {
    const line = fc.oneof(testCaseJson.map((v) => JSON.stringify(v)), fc.string({ maxLength: 30 }).map((s) => s.replace(/\n/g, " ")), fc.constant("null"), fc.constant("{\"turns\": [}"));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const text = lines.join("\n");
        const expected = scanJsonRecords(new TextEncoder().encode(text), true).ranges.length;
        const parsed = parseTestCaseText(text, { jsonl: true, file: "f.jsonl" });
        if (expected === 0) {
          // A file without a record is (at most) one error entry saying so.
          expect(parsed.length).toBeLessThanOrEqual(1);
          expect(parsed.every((p) => p.error)).toBe(true);
        } else {
          expect(parsed).toHaveLength(expected);
        }
        for (const p of parsed) expect(Boolean(p.testCase) !== Boolean(p.error)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("base64 properties", () => {
  it("decode(encode(bytes)) is the bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(Array.from(decodeBase64Python(encodeBase64(bytes)))).toEqual(Array.from(bytes));
      }),
      { numRuns: RUNS },
    );
  });

  it("characters outside the alphabet anywhere (whitespace, URL-safe -_, punctuation) are discarded, as Python's non-strict decoder does", () => {
    const junk = fc.string({ unit: fc.constantFrom(" ", "\n", "\t", "-", "_", "!", "*", "é", "\u0000"), minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), fc.array(fc.tuple(fc.nat(), junk), { minLength: 1, maxLength: 5 }), (bytes, inserts) => {
        let text = encodeBase64(bytes);
        for (const [at, s] of inserts) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + s + text.slice(i);
        }
        expect(decodeBase64Python(text)).toEqual(bytes);
      }),
      { numRuns: RUNS },
    );
  });

  it("any string: bytes (at most 3 per 4 characters) or Python's padding error, nothing else", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        try {
          expect(decodeBase64Python(text).length).toBeLessThanOrEqual(Math.floor((text.length * 3) / 4));
        } catch (e) {
          expect((e as Error).message).toMatch(/^(Incorrect padding|Invalid base64-encoded string: number of data characters cannot be 1 more than a multiple of 4)$/);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
