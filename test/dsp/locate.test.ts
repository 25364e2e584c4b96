// Clip-location kernels (assembly/kernels/locate.ts via src/dsp/locate.ts) against their plain-TS twin on random renders: same offsets, candidates, anchors and residuals.
import { describe, expect, it } from "vitest";
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status.js";
import { ClipLocatorSession, locateClipsInMix } from "../../src/dsp/locate.js";
import { withArena } from "../../src/dsp/wasm.js";
import {
  anchorPositionsReference,
  locateClipsInMixReference,
  ResidualIndexReference,
  saturatedSamplesReference,
  subtractClipReference,
} from "../../src/dsp/reference/locate.js";
import { clipLength, firstDifference, makeClip, makeScenario, pick, randomInt, render, SHORT_LENGTHS, type Scenario } from "./locate-scenarios.js";
import { noise, seededRandom } from "./parity-signals.js";

describe("locateClipsInMix (wasm) against its twin", () => {
  it("gives the same offsets on random renders with overlaps, clamping, repeats, absent and altered clips", () => {
    const random = seededRandom(20260115);
    let placed = 0, unplaced = 0;
    for (let s = 0; s < 400; s++) {
      const { mix, clips } = makeScenario(random);
      const expected = locateClipsInMixReference(mix, clips);
      expect(locateClipsInMix(mix, clips), `scenario ${s}`).toEqual(expected);
      placed += expected.filter((o) => o !== null).length;
      unplaced += expected.filter((o) => o === null).length;
    }
    // The generator must exercise both outcomes, or the comparison proves little.
    expect(placed).toBeGreaterThan(300);
    expect(unplaced).toBeGreaterThan(100);
  });

  it("handles empty renders, empty and one-sample clips, and clips as long as the render", () => {
    const random = seededRandom(7);
    const a = noise(random, 5000, 9000);
    const cases: Scenario[] = [
      { mix: new Int16Array(0), clips: [] },
      { mix: new Int16Array(0), clips: [a, null, new Int16Array(0)] },
      { mix: a, clips: [] },
      { mix: a, clips: [new Int16Array(0), a.subarray(0, 1), a.subarray(100, 101)] },
      { mix: a, clips: [a] },
      { mix: a, clips: [a, a] },
      { mix: a.subarray(0, 23), clips: [a.subarray(0, 23)] },
      { mix: a.subarray(0, 24), clips: [a.subarray(0, 24)] },
      { mix: a.subarray(0, 25), clips: [a.subarray(0, 24), a.subarray(1, 25)] },
      { mix: a, clips: [a.subarray(0, 4999), a.subarray(1)] },
      { mix: new Int16Array(6000).fill(32767), clips: [a, new Int16Array(3000).fill(32767)] },
      { mix: new Int16Array(6000), clips: [new Int16Array(3000)] },
    ];
    for (const [i, { mix, clips }] of cases.entries()) {
      expect(locateClipsInMix(mix, clips), `case ${i}`).toEqual(locateClipsInMixReference(mix, clips));
    }
  });

  it("places identical clips in turn order only when the render holds exactly as many copies", () => {
    const random = seededRandom(11);
    const a = noise(random, 4000, 8000);
    const b = noise(random, 3000, 8000);
    for (const copies of [1, 2, 3, 4]) {
      for (const listed of [1, 2, 3, 4]) {
        const offsets = Array.from({ length: copies }, (_, i) => 500 + 6000 * i);
        const mix = render([...Array.from({ length: copies }, () => a), b], [...offsets, 6000 * copies + 1000], 6000 * copies + 5000);
        const clips = [...Array.from({ length: listed }, () => Int16Array.from(a)), b];
        expect(locateClipsInMix(mix, clips), `${copies} copies, ${listed} listed`).toEqual(locateClipsInMixReference(mix, clips));
      }
    }
  });

  it("places a clip on its free part only with more than twice the matches of any rival offset", () => {
    // Two copies of a, each partly covered by audio nobody lists (never 0, so a covered sample never
    // matches), so neither matches whole: 12000 − covered samples match at each copy.
    const random = seededRandom(13);
    const a = noise(random, 12000, 6000);
    const cover = (n: number) => Int16Array.from(noise(random, n, 6000), (x) => x || 1);
    for (const firstCovered of [1200, 3600, 6000, 9480, 9600, 9720]) {
      for (const secondCovered of [3600, 6000, 6599, 6600, 6601, 7200, 7800, 10800, 12000]) {
        const second = 20000;
        const mix = render([a, a, cover(firstCovered), cover(secondCovered)], [0, second, a.length - firstCovered, second], second + a.length + 10);
        const clips = [a, random() < 0.5 ? null : noise(random, 3000, 6000)];
        expect(locateClipsInMix(mix, clips), `covered ${firstCovered} and ${secondCovered}`).toEqual(locateClipsInMixReference(mix, clips));
      }
    }
  });

  it("keeps the 8 smallest distinct candidates of a clip repeated many times", () => {
    const random = seededRandom(12);
    const a = noise(random, 3000, 8000);
    const offsets = Array.from({ length: 12 }, (_, i) => 3100 * i + randomInt(random, 0, 50));
    const mix = render(offsets.map(() => a), offsets, 3100 * 12 + 100);
    for (const listed of [8, 9, 12]) {
      const clips = Array.from({ length: listed }, () => a);
      expect(locateClipsInMix(mix, clips), `${listed} listed`).toEqual(locateClipsInMixReference(mix, clips));
    }
  });
});

describe("twins (the same samples in two turn files)", () => {
  it("are placed in turn order when the earlier copy is overlapped, not the first one at the only offset seen so far", () => {
    const random = seededRandom(21);
    const a = noise(random, 4000, 6000);
    const b = noise(random, 3000, 6000);
    // a, then b barging in on a's end, then a again, clean, later on.
    const offsets = [1000, 4200, 12000];
    const mix = render([a, b, a], offsets, 17000);
    for (const clips of [[a, b, Int16Array.from(a)], [Int16Array.from(a), a, b]]) {
      const want = clips[2] === b ? [1000, 12000, 4200] : offsets;
      expect(locateClipsInMix(mix, clips)).toEqual(want);
      expect(locateClipsInMixReference(mix, clips)).toEqual(want);
      expect(locateClipsInMix(mix, clips, { windowSamples: 4096 })).toEqual(want);
    }
    // One copy in the render for two turn files: which turn it is cannot be told; neither is placed.
    const once = render([a, b], offsets.slice(0, 2), 9000);
    expect(locateClipsInMix(once, [a, b, Int16Array.from(a)])).toEqual([null, 4200, null]);
  });
});

describe("locate kernels step by step", () => {
  it("anchors match anchorPositionsReference for every count and length around the window", () => {
    const random = seededRandom(3);
    withArena((arena) => {
      const s = new ClipLocatorSession(arena, new Int16Array(0), []);
      const out = s.arena.allocI32(64);
      for (let t = 0; t < 600; t++) {
        const clip = makeClip(random, t < 200 ? pick(random, SHORT_LENGTHS) : clipLength(random));
        const ptr = s.arena.copyPcm(clip);
        for (const count of [0, 1, 2, 3, 16, 64]) {
          const n = s.k.locateAnchors(ptr, clip.length, count, out);
          expect(Array.from(s.arena.i32(out, n)), `clip ${t}, count ${count}`).toEqual(anchorPositionsReference(clip, count));
        }
      }
    });
  });

  it("the residual, saturation mask and candidates follow the twin through a sequence of placements", () => {
    const random = seededRandom(4);
    for (let t = 0; t < 40; t++) {
      const { mix } = makeScenario(random);
      if (mix.length < 24) continue;
      const clips = Array.from({ length: 6 }, () => {
        // Pieces of the render itself, so anchors have real matches, or fresh noise.
        const len = randomInt(random, 1, Math.min(mix.length, 6000));
        const start = randomInt(random, 0, mix.length - len);
        return random() < 0.8 ? mix.slice(start, start + len) : makeClip(random, len);
      });
      // Any clip may be placed in every round: reserve index room for six placements of each.
      withArena((arena) => {
        const session = new ClipLocatorSession(arena, mix, Array.from({ length: 6 }, () => clips).flat());
        const reference = new ResidualIndexReference(mix, Array.from({ length: 6 }, () => clips.map((c) => c.length)).flat());
        const wild = saturatedSamplesReference(mix);
        const same = () => {
          expect(firstDifference(session.arena.i32(session.residual, mix.length), reference.residual)).toBe(-1);
          expect(firstDifference(new Uint8Array(session.k.memory.buffer, session.wild, mix.length), wild)).toBe(-1);
        };
        same();
        const out = session.arena.allocI32(8);
        const clipPtrs = clips.map((c) => session.arena.copyPcm(c));
        for (let round = 0; round < 6; round++) {
          clips.forEach((clip, i) => {
            for (const p of anchorPositionsReference(clip, 4)) {
              const n = session.k.locateCandidates(session.state, clipPtrs[i], clip.length, p, out);
              expect(Array.from(session.arena.i32(out, n)), `render ${t}, round ${round}, clip ${i}, anchor ${p}`).toEqual(reference.candidates(clip, p));
            }
          });
          const i = randomInt(random, 0, clips.length - 1);
          const o = randomInt(random, 0, mix.length - clips[i].length);
          session.place(i, o);
          subtractClipReference(reference.residual, wild, clips[i], o);
          reference.update(o, clips[i].length);
          same();
          // Windows across both edges of the peeled span must be found again: probe with pieces of the new residual there.
          for (const edge of [o, o + clips[i].length]) {
            const start = Math.max(0, edge - randomInt(random, 0, 40));
            const piece = reference.residual.slice(start, Math.min(mix.length, start + randomInt(random, 24, 80)));
            if (piece.length < 24 || piece.some((x) => x < -32768 || x > 32767)) continue;
            const clip = Int16Array.from(piece);
            const ptr = session.arena.copyPcm(clip);
            for (let p = 0; p + 24 <= clip.length; p++) {
              const n = session.k.locateCandidates(session.state, ptr, clip.length, p, out);
              expect(Array.from(session.arena.i32(out, n)), `render ${t}, round ${round}, edge ${edge}, anchor ${p}`).toEqual(reference.candidates(clip, p));
            }
          }
        }
      });
    }
  });

  it("rejects out-of-range arguments with a negative status", () => {
    const random = seededRandom(5);
    const mix = noise(random, 1000, 5000);
    withArena((arena) => {
      const s = new ClipLocatorSession(arena, mix, [mix.subarray(0, 100)]);
      const clip = s.arena.copyPcm(mix.subarray(0, 100));
      const out = s.arena.allocI32(8);
      expect(s.k.locateFullMatches(s.state, clip, 0, 0, out)).toBeLessThan(0);
      expect(s.k.locateFullMatches(s.state, clip, 1001, 0, out)).toBeLessThan(0);
      expect(s.k.locateFullMatches(s.state, clip, 100, 77, out)).toBe(BAD_ARGUMENT);
      expect(s.k.locatePlace(s.state, clip, 100, 901)).toBeLessThan(0);
      expect(s.k.locatePlace(s.state, clip, 100, -1)).toBe(BAD_ARGUMENT);
      // Through the wrapper a refused argument is a KernelError naming the kernel and the status.
      expect(() => s.place(0, 901)).toThrow(expect.objectContaining({ code: "KERNEL_ERROR", failure: "BAD_ARGUMENT", kernel: "locatePlace" }));
      expect(s.k.locateFullMatches(s.state, clip, 100, 0, out)).toBe(1);
    });
  });
});
