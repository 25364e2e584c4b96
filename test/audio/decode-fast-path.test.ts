// The direct 16-bit PCM reader gives exactly what the general (wavefile) path gives, and declines every file that is not canonical.
import { describe, expect, it } from "vitest";
import { decodeAudio, decodeCanonicalPcm16, decodeWideGeneral, writeWavPcm16 } from "../../src/audio/index.js";
import { seededRandom } from "../helpers/random.js";
import { buildWav } from "./wav-builder.js";

function randomPcm(rnd: () => number, count: number): Int16Array {
  return Int16Array.from({ length: count }, () => Math.floor(rnd() * 65536) - 32768);
}

/** The bytes at an odd offset of a larger buffer (as a slice of a pooled Buffer can be). */
function atOddOffset(bytes: Uint8Array): Uint8Array {
  const host = new Uint8Array(bytes.length + 1);
  host.set(bytes, 1);
  return host.subarray(1);
}

describe("canonical 16-bit PCM fast path", () => {
  it("matches the wavefile path on random files (rates, channels, lengths, extra chunks, odd offsets)", () => {
    const rnd = seededRandom(2026);
    const rates = [8000, 11025, 16000, 22050, 24000, 44100, 48000, 7919];
    let checked = 0;
    for (let k = 0; k < 120; k++) {
      const channels = 1 + Math.floor(rnd() * 3);
      const frames = [1, 2, 3, 159, 160, 161, 4000][k % 7] + Math.floor(rnd() * 50);
      const pcm = randomPcm(rnd, frames * channels);
      const spec = { channels, sampleRate: rates[k % rates.length], data: new Uint8Array(pcm.buffer) };
      const variants = [
        buildWav(spec),
        buildWav({ ...spec, before: [["JUNK", new Uint8Array(28)]] }),
        buildWav({ ...spec, between: [["LIST", new Uint8Array(26)]] }),
      ];
      for (const bytes of [...variants, ...variants.map(atOddOffset)]) {
        const fast = decodeCanonicalPcm16(bytes);
        expect(fast, `variant ${k}`).not.toBeNull();
        const general = decodeWideGeneral(bytes);
        expect({ ...fast!, samples: Array.from(fast!.samples) }).toEqual({ ...general, samples: Array.from(general.samples) });
        expect(Array.from(fast!.samples)).toEqual(Array.from(pcm));
        checked++;
      }
    }
    expect(checked).toBe(720);
  });

  it("the engine's own writer produces canonical files, read without a copy when aligned", () => {
    const pcm = randomPcm(seededRandom(7), 2 * 8000);
    const bytes = writeWavPcm16(pcm, 16000, 2);
    const fast = decodeCanonicalPcm16(bytes)!;
    expect(fast.samples.buffer).toBe(bytes.buffer);
    expect(Array.from(fast.samples)).toEqual(Array.from(pcm));
    expect(decodeAudio(bytes).samples.buffer).toBe(bytes.buffer);
  });

  it("declines everything else, which the general path still reads or refuses as before", () => {
    const pcm = new Uint8Array(randomPcm(seededRandom(3), 400).buffer);
    const odd = (b: Uint8Array) => {
      const c = b.slice();
      new DataView(c.buffer).setUint32(4, c.length - 9, true);
      return c;
    };
    const declined: Array<[string, Uint8Array]> = [
      ["24-bit", buildWav({ bits: 24, data: pcm.subarray(0, 399) })],
      ["8-bit", buildWav({ bits: 8, data: pcm })],
      ["float", buildWav({ format: 3, bits: 32, data: pcm })],
      ["extensible", buildWav({ data: pcm, extensibleSubformat: 1 })],
      ["partial frame", buildWav({ channels: 2, data: pcm.subarray(0, 398) })],
      ["odd data size", buildWav({ data: pcm.subarray(0, 399) })],
      ["odd extra chunk", buildWav({ data: pcm, between: [["LIST", new Uint8Array(5)]] })],
      ["data before fmt", buildWav({ data: pcm, dataBeforeFmt: true })],
      ["truncated data", buildWav({ data: pcm, dataSize: pcm.length + 100 })],
      ["RIFF size mismatch", odd(buildWav({ data: pcm }))],
      ["streaming size", buildWav({ data: pcm, dataSize: 0xffffffff })],
      ["empty data", buildWav({ data: new Uint8Array(0) })],
      ["not RIFF", new Uint8Array(64)],
    ];
    for (const [what, bytes] of declined) expect(decodeCanonicalPcm16(bytes), what).toBeNull();
    // Two data chunks: the general path decides which one counts.
    const one = buildWav({ data: pcm });
    const two = new Uint8Array(one.length + 8 + 4);
    two.set(one);
    two.set([0x64, 0x61, 0x74, 0x61, 4, 0, 0, 0, 1, 0, 2, 0], one.length);
    new DataView(two.buffer).setUint32(4, two.length - 8, true);
    expect(decodeCanonicalPcm16(two), "second data chunk").toBeNull();
  });
});
