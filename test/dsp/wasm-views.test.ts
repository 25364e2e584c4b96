// The arena's whole-memory views: one per type while memory stays the same, made again after memory.grow, reading what the per-call views read.
import { describe, expect, it } from "vitest";
import { withArena } from "../../src/dsp/wasm.js";

describe("Arena whole-memory views", () => {
  it("are cached while memory keeps its buffer, and follow it when an allocation grows memory", () => {
    withArena((arena) => {
      const ptr = arena.allocF32(4);
      arena.f32(ptr, 4).set([1.5, -2, 3, 4]);
      const f32 = arena.memF32();
      expect(arena.memF32() === f32).toBe(true);
      expect(Array.from(f32.subarray(ptr >>> 2, (ptr >>> 2) + 4))).toEqual([1.5, -2, 3, 4]);
      expect(arena.memU8()[ptr + 3]).toBe(arena.u8(ptr, 4)[3]);
      // Grow memory by more than it holds: the old buffer is detached, the cached views are made again over the new one.
      const before = arena.k.memory.buffer.byteLength;
      arena.alloc(before + 65536);
      expect(arena.k.memory.buffer.byteLength).toBeGreaterThan(before);
      expect(f32.length).toBe(0);
      const grown = arena.memF32();
      expect(grown === f32).toBe(false);
      expect(grown.buffer).toBe(arena.k.memory.buffer);
      expect(Array.from(grown.subarray(ptr >>> 2, (ptr >>> 2) + 4))).toEqual([1.5, -2, 3, 4]);
      const i32 = arena.memI32(), i16 = arena.memI16(), f64 = arena.memF64();
      i32[ptr >>> 2] = -7;
      expect(arena.i32(ptr, 1)[0]).toBe(-7);
      i16[(ptr >>> 1) + 2] = 1234;
      expect(arena.i16(ptr, 3)[2]).toBe(1234);
      f64[(ptr + 8) >>> 3] = Math.PI;
      expect(arena.f64(ptr + 8, 1)[0]).toBe(Math.PI);
    });
  });

  it("copyPcmTo writes through them at the pointer given (int16 and float)", () => {
    withArena((arena) => {
      const a = arena.allocI16(5), b = arena.allocF32(3);
      arena.copyPcmTo(a, Int16Array.of(1, -2, 3, -4, 5));
      arena.copyPcmTo(b, Float32Array.of(0.25, -0.5, 1));
      expect(Array.from(arena.i16(a, 5))).toEqual([1, -2, 3, -4, 5]);
      expect(Array.from(arena.f32(b, 3))).toEqual([0.25, -0.5, 1]);
    });
  });
});
