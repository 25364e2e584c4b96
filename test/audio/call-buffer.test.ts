// The per-call buffer: files and clips of one call share a reused buffer inside the scope, fresh memory outside it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { takeCallBytes, withCallBuffer } from "../../src/audio/call-buffer.js";
import { allocateWavPcm16, decodeAudio, writeWavPcm16 } from "../../src/audio/index.js";
import { readFileBytes } from "../../src/ingest/files.js";
import { seededRandom } from "../helpers/random.js";

const dir = mkdtempSync(join(tmpdir(), "vox-callbuf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

function randomBytes(seed: number, n: number): Uint8Array {
  const rnd = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
}

describe("call buffer", () => {
  it("gives nothing outside a scope", () => {
    expect(takeCallBytes(16)).toBeNull();
  });

  it("lays a call's requests out one after the other, 16-byte aligned, without overlap", () => {
    withCallBuffer(() => {
      const a = takeCallBytes(3)!;
      const b = takeCallBytes(100)!;
      const c = takeCallBytes(1)!;
      for (const x of [a, b, c]) expect(x.byteOffset % 16).toBe(0);
      expect(a.buffer).toBe(b.buffer);
      expect(b.byteOffset).toBeGreaterThanOrEqual(a.byteOffset + a.length);
      expect(c.byteOffset).toBeGreaterThanOrEqual(b.byteOffset + b.length);
      a.fill(1);
      b.fill(2);
      c.fill(3);
      expect([...a]).toEqual([1, 1, 1]);
      expect(b.every((v) => v === 2)).toBe(true);
    });
  });

  it("reuses the buffer in the next scope (what a call read is valid only inside its scope)", () => {
    const first = withCallBuffer(() => takeCallBytes(64)!);
    const second = withCallBuffer(() => takeCallBytes(64)!);
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset);
  });

  it("keeps earlier views intact when a call outgrows the buffer, and nested scopes join the outer one", () => {
    withCallBuffer(() => {
      const early = takeCallBytes(1000)!;
      early.fill(7);
      const big = withCallBuffer(() => takeCallBytes(3 << 20)!);
      expect(big).not.toBeNull();
      expect(big.buffer).not.toBe(early.buffer);
      big.fill(9);
      expect(early.every((v) => v === 7)).toBe(true);
      // The inner scope did not end the outer one.
      expect(takeCallBytes(8)).not.toBeNull();
    });
  });

  it("declines a request larger than the buffer cap (the caller takes fresh memory)", () => {
    withCallBuffer(() => expect(takeCallBytes((32 << 20) + 1)).toBeNull());
  });

  it("ends the scope when the callback throws", () => {
    expect(() => withCallBuffer(() => { throw new Error("boom"); })).toThrow("boom");
    expect(takeCallBytes(16)).toBeNull();
  });
});

describe("readFileBytes", () => {
  it("gives readFileSync's bytes inside and outside a scope, for several files of one call", () => {
    const paths = [1, 2, 777, 70_000, 1_500_000].map((n, i) => file(`f${i}.bin`, randomBytes(n, n)));
    const outside = paths.map((p) => readFileBytes(p));
    withCallBuffer(() => {
      const inside = paths.map((p) => readFileBytes(p));
      paths.forEach((p, i) => {
        const want = new Uint8Array(readFileSync(p));
        expect(Buffer.compare(inside[i], want)).toBe(0);
        expect(Buffer.compare(outside[i], want)).toBe(0);
      });
    });
  });

  it("reads empty files and reports missing ones as readFileSync does", () => {
    const empty = file("empty.bin", new Uint8Array(0));
    withCallBuffer(() => {
      expect(readFileBytes(empty).length).toBe(0);
      expect(() => readFileBytes(join(dir, "missing.wav"))).toThrow(/ENOENT/);
    });
  });

  it("decodes WAVs read into the buffer in place, the same samples as from a fresh read", () => {
    const rnd = seededRandom(11);
    const pcm = Int16Array.from({ length: 8001 }, () => Math.floor(rnd() * 65536) - 32768);
    const p = file("clip.wav", writeWavPcm16(pcm, 8000, 1));
    for (const compat of ["voxmetrics", "deepeval"] as const) {
      const fresh = decodeAudio(readFileSync(p), { compat });
      withCallBuffer(() => {
        takeCallBytes(5); // an odd-sized request before: alignment keeps the samples viewable in place
        const bytes = readFileBytes(p);
        const decoded = decodeAudio(bytes, { compat });
        expect(decoded.samples.buffer).toBe(bytes.buffer);
        expect([...decoded.samples]).toEqual([...fresh.samples]);
      });
    }
  });
});

describe("allocateWavPcm16 in a call scope", () => {
  it("writes the same file as outside a scope, its data zeroed even over reused memory", () => {
    const outside = allocateWavPcm16(300, 16000, 2);
    withCallBuffer(() => takeCallBytes(2000)!.fill(0xaa));
    withCallBuffer(() => {
      const inside = allocateWavPcm16(300, 16000, 2);
      expect(inside.bytes.buffer).not.toBe(outside.bytes.buffer);
      expect(Buffer.compare(inside.bytes, outside.bytes)).toBe(0);
      expect(inside.samples.byteOffset).toBe(inside.bytes.byteOffset + 44);
      inside.samples.fill(-1);
      expect(decodeAudio(inside.bytes).samples.every((v) => v === -1)).toBe(true);
    });
  });
});
