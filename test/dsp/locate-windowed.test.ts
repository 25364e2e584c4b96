// The windowed clip search (WindowedClipLocator in src/dsp/locate.ts) gives exactly the whole-render search's offsets, falls back to it when the layout needs it, and holds a bounded arena whatever the render's length.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeAudio, downmixTruncating } from "../../src/audio/index.js";
import { listSimTurnFiles } from "../../src/ingest/formats/deepeval-sim.js";
import { sharedDir } from "../helpers/shared.js";
import { ClipLocatorSession, locateClipsInMix, type LocateClip, type LocateOptions, type MixSource } from "../../src/dsp/locate.js";
import { anchorPositionsReference } from "../../src/dsp/reference/locate.js";
import { pcmCopyStats, withArena } from "../../src/dsp/wasm.js";
import { makeClip, makeScenario, randomInt, render } from "./locate-scenarios.js";
import { seededRandom, type Random } from "./parity-signals.js";

/** A turn-like clip: a noisy tone under a syllable envelope, as TTS speech is for the locator (loud, never periodic). */
function speech(random: Random, samples: number, rate = 24000, level = 6000): Int16Array {
  const f = 120 + 200 * random();
  return Int16Array.from({ length: samples }, (_, k) => Math.round((0.5 + 0.5 * Math.sin((2 * Math.PI * 4 * k) / rate)) * (level * Math.sin((2 * Math.PI * f * k) / rate) + (level / 4) * (random() - 0.5))));
}

/** The render as a MixSource giving pieces of random sizes (what a file reader gives), counting its fills. */
function source(mix: Int16Array, random: Random): MixSource & { fills: number } {
  const s = {
    length: mix.length,
    fills: 0,
    fill(put: (piece: Int16Array) => void) {
      s.fills++;
      for (let at = 0; at < mix.length; ) {
        const n = Math.min(mix.length - at, randomInt(random, 1, 70000));
        put(Int16Array.from(mix.subarray(at, at + n)));
        at += n;
      }
    },
  };
  return s;
}

/** Offsets of the windowed search and which search answered. */
function windowed(mix: Int16Array | MixSource, clips: LocateClip[], options: LocateOptions = {}): { offsets: Array<number | null>; search: string } {
  let search = "";
  const offsets = locateClipsInMix(mix, clips, { ...options, onSearch: (s) => (search = s) });
  return { offsets, search };
}

/** Every folder under `dir` holding a combined render. */
function simFolders(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const here = entries.some((e) => e.isFile() && e.name === "deepeval-conversation.wav") ? [dir] : [];
  return [...here, ...entries.filter((e) => e.isDirectory()).flatMap((e) => simFolders(join(dir, e.name)))];
}

const shared = sharedDir();

const whole = (mix: Int16Array, clips: Array<Int16Array | null>) => locateClipsInMix(mix, clips, { search: "whole" });

interface Layout {
  clips: Int16Array[];
  offsets: number[];
  length: number;
}

/** Turns one after another: gaps drawn from `gap` (negative: the next turn barges in), the render ending `tail` samples after the last turn. */
function conversation(random: Random, turns: number, clipSamples: () => number, gap: (i: number) => number, first = 0, tail = 0, level = 6000): Layout {
  const clips: Int16Array[] = [];
  const offsets: number[] = [];
  let at = first;
  for (let i = 0; i < turns; i++) {
    const c = speech(random, clipSamples(), 24000, level);
    clips.push(c);
    offsets.push(at);
    at = Math.max(0, at + c.length + gap(i));
  }
  const length = Math.max(...clips.map((c, i) => offsets[i] + c.length)) + tail;
  return { clips, offsets, length };
}

describe("windowed clip search", () => {
  it("gives the whole search's offsets on random renders (overlaps, clamping, repeats, absent, altered, reordered clips), as an array and as pieces", () => {
    for (const seed of [20260115, 77]) {
      const random = seededRandom(seed);
      const used = { windowed: 0, component: 0, whole: 0 };
      let placed = 0;
      for (let s = 0; s < 1000; s++) {
        const { mix, clips } = makeScenario(random);
        const want = whole(mix, clips);
        const got = windowed(s % 2 ? source(mix, random) : mix, clips, { windowSamples: 4096, onOverBudget: () => expect.fail(`seed ${seed}, scenario ${s}: over the budget`) });
        expect(got.offsets, `seed ${seed}, scenario ${s}, ${got.search}`).toEqual(want);
        if (got.search) used[got.search as "whole"]++;
        placed += want.filter((o) => o !== null).length;
      }
      // Every path must be exercised, or the comparison proves little: windows alone, tangled
      // segments searched again (repeated clips), and the whole search (renders within one window).
      expect(used.windowed).toBeGreaterThan(500);
      expect(used.component).toBeGreaterThan(40);
      expect(used.whole).toBeGreaterThan(60);
      expect(placed).toBeGreaterThan(1300);
    }
  });

  it("places turns windowed with overlaps, silences longer than the window, clips at both ends, a clip longer than the window and clamped sums", () => {
    const random = seededRandom(5);
    const window = 8192;
    const layouts: Array<[string, Layout]> = [
      ["back to back from sample 0 to the last sample", conversation(random, 30, () => randomInt(random, 2000, 7000), () => 0)],
      ["gaps and barge-ins", conversation(random, 40, () => randomInt(random, 2000, 7000), (i) => (i % 3 === 2 ? -randomInt(random, 200, 1500) : randomInt(random, 0, 3000)), 500, 700)],
      ["silences longer than the window", conversation(random, 12, () => randomInt(random, 1000, 5000), (i) => (i % 2 ? 3 * window + randomInt(random, 0, 999) : randomInt(random, 0, 100)), 0, 2 * window)],
      ["long clips (over the window) among short ones", conversation(random, 10, () => (random() < 0.4 ? randomInt(random, window + 1, 3 * window) : randomInt(random, 500, 3000)), (i) => (i % 4 === 3 ? -400 : 1000))],
      ["loud turns clamped where they overlap", conversation(random, 24, () => randomInt(random, 3000, 6000), (i) => (i % 2 ? -randomInt(random, 500, 2500) : 50), 0, 0, 30000)],
    ];
    for (const [name, { clips, offsets, length }] of layouts) {
      const mix = render(clips, offsets, length);
      const want = whole(mix, clips);
      if (name.startsWith("loud")) expect(mix.some((x) => x === 32767 || x === -32768), name).toBe(true);
      if (name.startsWith("back")) expect([offsets[0], offsets.at(-1)! + clips.at(-1)!.length], name).toEqual([0, mix.length]);
      // The layout is placed (a comparison of two empty results would prove nothing)…
      expect(want.filter((o) => o !== null).length, name).toBeGreaterThanOrEqual(clips.length - 2);
      for (const order of ["file", "reversed"]) {
        const list = order === "file" ? clips : [...clips].reverse();
        const expected = order === "file" ? want : [...want].reverse();
        for (const input of [mix, source(mix, random)]) {
          const copiedBefore = pcmCopyStats().samples;
          const got = windowed(input, list, { windowSamples: window });
          // Each render sample and each clip sample enters WebAssembly memory at most once.
          const copied = pcmCopyStats().samples - copiedBefore;
          expect(copied, name).toBeGreaterThanOrEqual(mix.length);
          expect(copied, name).toBeLessThanOrEqual(mix.length + clips.reduce((sum, c) => sum + c.length, 0));
          // …by the windowed search, with the whole search's offsets, in turn order or not.
          expect(got, `${name}, ${order} order`).toEqual({ offsets: expected, search: "windowed" });
          if (input !== mix) expect((input as { fills: number }).fills, name).toBe(1);
        }
      }
    }
  });

  it("clips given as readers (samples in one buffer that the next read overwrites): the same offsets, each clip read once up front and again only to enter the arena", () => {
    /** Readers of `clips` that all write into one shared buffer, counting their reads. */
    const readers = (clips: Array<Int16Array | null>) => {
      const shared = new Int16Array(Math.max(1, ...clips.map((c) => c?.length ?? 0)));
      const reads = clips.map(() => 0);
      const list = clips.map((c, i) => () => {
        reads[i]++;
        if (!c) return null;
        shared.fill(12345);
        shared.set(c);
        return shared.subarray(0, c.length);
      });
      return { list, reads };
    };
    const random = seededRandom(12);
    let readersWindowed = 0;
    for (let s = 0; s < 300; s++) {
      const { mix, clips } = makeScenario(random);
      const want = whole(mix, clips);
      for (const search of ["windowed", "whole"] as const) {
        const { list, reads } = readers(clips);
        let used = "";
        const got = locateClipsInMix(s % 2 ? source(mix, random) : mix, list, { windowSamples: 4096, search, onSearch: (x) => (used = x) });
        expect(got, `scenario ${s}, ${search}`).toEqual(want);
        if (used === "windowed") readersWindowed++;
        // Read once into the catalog; the whole search reads each clip it copies once more.
        if (used === "whole" && search === "whole") reads.forEach((r, i) => expect(r, `scenario ${s}, clip ${i}`).toBeLessThanOrEqual(clips[i] && clips[i]!.length > 0 && clips[i]!.length <= mix.length ? 2 : 1));
      }
    }
    expect(readersWindowed).toBeGreaterThan(100);
    // Distinct turns windowed: every clip read at most twice (its summary, then its samples where it is tried).
    const r = seededRandom(13);
    const { clips, offsets, length } = conversation(r, 60, () => randomInt(r, 3000, 9000), (i) => (i % 3 === 2 ? -randomInt(r, 300, 1500) : randomInt(r, 30, 900)));
    const mix = render(clips, offsets, length);
    const { list, reads } = readers(clips);
    expect(windowed(mix, list, { windowSamples: 1 << 14 })).toEqual({ offsets: whole(mix, clips), search: "windowed" });
    expect(Math.max(...reads)).toBeLessThanOrEqual(2);
    expect(Math.min(...reads)).toBeGreaterThanOrEqual(1);
    // Clips that agree in length and anchors but not in every sample are told apart (the twins' rule
    // must not place b, which is not a's twin, at a's second offset), read back into one buffer.
    const a = speech(r, 4000);
    const anchored = new Set([...anchorPositionsReference(a, 1), ...anchorPositionsReference(a, 16)].flatMap((p) => Array.from({ length: 24 }, (_, k) => p + k)));
    const b = Int16Array.from(a);
    const q = b.findIndex((_, k) => k > 100 && !anchored.has(k));
    b[q] += 1;
    const twice = render([a, a], [1000, 12000], 80000);
    for (const list of [[a, b], [a, Int16Array.from(a)]]) {
      const want = whole(twice, list);
      expect(want).toEqual(list[1] === b ? [null, null] : [1000, 12000]);
      expect(windowed(twice, readers(list).list, { windowSamples: 1 << 15 })).toEqual({ offsets: want, search: "windowed" });
    }
    // A reader that gives other samples the second time is an error, not a wrong placement.
    let calls = 0;
    const shrinking = () => (calls++ === 0 ? clips[0] : clips[0].subarray(1));
    expect(() => locateClipsInMix(mix, [shrinking, ...clips.slice(1)], { windowSamples: 1 << 14 })).toThrow(/clip 0 gave .* when read again/);
  });

  it("searches the segments a clip's audio occurs in again, together, reading the render again", () => {
    const random = seededRandom(6);
    const a = speech(random, 4000);
    const b = speech(random, 3000);
    const far = 40000;
    const mix = render([a, b, a], [1000, 9000, far], far + 5000);
    // The turn files list a once, or twice (twins): the whole search leaves a single a unplaced (two
    // offsets, one turn) and places twins in turn order; b is placed either way.
    for (const clips of [[a, b], [a, b, Int16Array.from(a)], [b]]) {
      const input = source(mix, random);
      const got = windowed(input, clips, { windowSamples: 8192 });
      expect(got.offsets).toEqual(whole(mix, clips));
      expect(got.search).toBe(clips.length === 1 ? "windowed" : "component");
      expect(input.fills).toBe(clips.length === 1 ? 1 : 2);
    }
    expect(whole(mix, [a, b])).toEqual([null, 9000]);
  });

  it("places a reply repeated far apart in a long conversation as the whole search does, holding only the segments it occurs in", () => {
    const random = seededRandom(12);
    const { clips, offsets } = conversation(random, 240, () => randomInt(random, 6000, 14000), (i) => (i % 7 === 6 ? -randomInt(random, 300, 1500) : randomInt(random, 200, 4000)));
    for (const copies of [2, 3, 8, 9]) {
      // Turns far apart say the same thing: the same samples in `copies` turn files.
      const said = clips[10];
      const at = Array.from({ length: copies }, (_, c) => 10 + Math.floor((c * 229) / Math.max(1, copies - 1)));
      const list = clips.map((c, i) => (at.includes(i) ? said : c));
      const layoutOffsets = offsets.slice();
      const mix = render(list, layoutOffsets, Math.max(...list.map((c, i) => layoutOffsets[i] + c.length)) + 500);
      const want = whole(mix, list);
      let bytes = 0;
      const got = windowed(source(mix, random), list, { windowSamples: 1 << 15, onArenaUsed: (b) => (bytes = b), onOverBudget: () => expect.fail("over the budget") });
      expect(got, `${copies} copies`).toEqual({ offsets: want, search: "component" });
      // Up to 8 copies are placed in turn order; the whole search cannot tell 9 apart (it sees 8 offsets at most).
      for (const i of at) expect(want[i], `${copies} copies, turn ${i}`).toBe(copies <= 8 ? layoutOffsets[i] : null);
      expect(want.filter((o, i) => o === layoutOffsets[i]).length).toBeGreaterThan(0.9 * list.length);
      // The tangled segments, not the render (the whole search holds about 11 bytes a render sample).
      let wholeBytes = 0;
      locateClipsInMix(mix, list, { search: "whole", onArenaUsed: (b) => (wholeBytes = b) });
      expect(bytes, `${copies} copies`).toBeLessThan(copies <= 3 ? wholeBytes / 4 : wholeBytes);
    }
  });

  it("on long random conversations (replies repeated near and far, barge-ins, chains of overlaps, clamping), at any window: the whole search's offsets", () => {
    const random = seededRandom(17);
    const used = { windowed: 0, component: 0, whole: 0 };
    let placed = 0;
    let turns = 0;
    for (let c = 0; c < 24; c++) {
      const level = random() < 0.3 ? 26000 : 6000;
      const { clips, offsets } = conversation(random, randomInt(random, 30, 90), () => randomInt(random, 1500, 9000), (i) => (random() < 0.25 ? -randomInt(random, 100, 2500) : randomInt(random, 0, 3000)), randomInt(random, 0, 2000), 0, level);
      // Some turns say what an earlier one said: the same samples, and the layout made again around them.
      const said = clips.map((clip, i) => (i > 0 && random() < 0.12 ? clips[randomInt(random, 0, i - 1)] : clip));
      let at = offsets[0];
      const laid = said.map((clip, i) => {
        const o = at;
        at = Math.max(0, at + clip.length + (i + 1 < offsets.length ? offsets[i + 1] - offsets[i] - clips[i].length : 0));
        return o;
      });
      const mix = render(said, laid, Math.max(...said.map((clip, i) => laid[i] + clip.length)) + randomInt(random, 0, 500));
      const want = whole(mix, said);
      const window = 1 << randomInt(random, 12, 15);
      const got = windowed(c % 2 ? source(mix, random) : mix, said, { windowSamples: window, onOverBudget: () => expect.fail(`conversation ${c}: over the budget`) });
      expect(got.offsets, `conversation ${c}, window ${window}, ${got.search}`).toEqual(want);
      used[got.search as "whole"]++;
      turns += said.length;
      placed += want.filter((o, i) => o === laid[i]).length;
    }
    expect(used.component).toBeGreaterThan(8);
    // The comparison is of placements, mostly where the turns were laid.
    expect(placed).toBeGreaterThan(0.7 * turns);
  });

  it("cuts a window that no free place can cut (every turn overlapping the next) anyway, ties both sides and searches them again: the whole search's offsets, and no window grows", () => {
    const random = seededRandom(13);
    const { clips, offsets, length } = conversation(random, 60, () => randomInt(random, 3000, 6000), () => -randomInt(random, 200, 900));
    const mix = render(clips, offsets, length);
    const got = windowed(source(mix, random), clips, { windowSamples: 1 << 14, onOverBudget: () => expect.fail("over the budget") });
    const want = whole(mix, clips);
    expect(got).toEqual({ offsets: want, search: "component" });
    expect(want.filter((o, i) => o === offsets[i]).length).toBeGreaterThan(55);
    // Over the budget instead: the turns across the forced cuts are the ones left unplaced, the others placed as the whole search places them.
    const left: number[] = [];
    let bytes = 0;
    const small = locateClipsInMix(mix, clips, { windowSamples: 1 << 14, maxSearchSamples: 1 << 15, onArenaUsed: (b) => (bytes = b), onOverBudget: (c) => left.push(...c) });
    expect(left.length).toBeGreaterThan(0);
    small.forEach((o, i) => expect(o, `turn ${i}`).toBe(left.includes(i) ? null : want[i]));
    // A window (16 K samples, about 13 bytes each with its index), the scan buffer and the turns, not the render.
    expect(bytes).toBeLessThan(20 * (1 << 14) + (1 << 19) + 4 * clips.reduce((sum, c) => sum + c.length, 0));
    let wholeBytes = 0;
    locateClipsInMix(mix, clips, { search: "whole", onArenaUsed: (b) => (wholeBytes = b) });
    expect(bytes).toBeLessThan(wholeBytes / 2);
  });

  it("over its budget, leaves the clips that tie segments unplaced and says so, placing the others; its arena stays bounded", () => {
    const random = seededRandom(14);
    const turns = conversation(random, 160, () => randomInt(random, 5000, 12000), (i) => (i % 7 === 6 ? -randomInt(random, 300, 1500) : randomInt(random, 200, 3000)));
    const canned = turns.clips[3];
    const arenaOf = (stretch: number) => {
      // Every tenth turn is the same canned reply; the silences are `stretch` times longer.
      const list = turns.clips.map((c, i) => (i % 10 === 3 ? canned : c));
      const offsets = turns.offsets.map((o, i) => o + (stretch - 1) * 3000 * i);
      const mix = render(list, offsets, Math.max(...list.map((c, i) => offsets[i] + c.length)) + 100);
      const left: number[][] = [];
      let bytes = 0;
      const budget = 1 << 17;
      const got = windowed(source(mix, random), list, { windowSamples: 1 << 15, maxSearchSamples: budget, onArenaUsed: (b) => (bytes = b), onOverBudget: (c, needed) => {
        expect(needed).toBeGreaterThan(budget);
        left.push(c);
      } });
      const cannedTurns = list.flatMap((_, i) => (i % 10 === 3 ? [i] : []));
      expect(left.flat().sort((a, b) => a - b), `stretch ${stretch}`).toEqual(cannedTurns);
      list.forEach((_, i) => expect(got.offsets[i], `stretch ${stretch}, turn ${i}`).toBe(i % 10 === 3 ? null : offsets[i]));
      return { bytes, samples: mix.length };
    };
    const short = arenaOf(1);
    const long = arenaOf(8);
    expect(long.samples).toBeGreaterThan(2 * short.samples);
    expect(long.bytes).toBeLessThan(40 * (1 << 17));
    expect(long.bytes).toBeLessThan(1.5 * short.bytes);
  });

  it("with a small budget, never places a clip where the whole search places it elsewhere, and holds an arena bounded by the budget", () => {
    const random = seededRandom(16);
    let over = 0;
    let same = 0;
    for (let s = 0; s < 600; s++) {
      const { mix, clips } = makeScenario(random);
      const want = whole(mix, clips);
      let bytes = 0;
      const got = locateClipsInMix(mix, clips, { windowSamples: 4096, maxSearchSamples: 4096, onArenaUsed: (b) => (bytes = b), onOverBudget: (left) => {
        over++;
        for (const i of left) expect(clips[i], `scenario ${s}`).not.toBeNull();
      } });
      got.forEach((o, i) => {
        if (o !== null && want[i] !== null) expect(o, `scenario ${s}, clip ${i}`).toBe(want[i]);
      });
      if (got.every((o, i) => o === want[i])) same++;
      // The scan buffer (512 KB), a window of two of the longest clips (or of the budget) at about 13
      // bytes a sample plus index room, and the clips tried: whatever the budget leaves out.
      const longest = Math.max(0, ...clips.map((c) => (c && c.length <= mix.length ? c.length : 0)));
      const total = clips.reduce((sum, c) => sum + (c && c.length <= mix.length ? c.length : 0), 0);
      if (mix.length > 4096) expect(bytes, `scenario ${s}`).toBeLessThan((1 << 19) + 4 * total + 20 * Math.max(4096, 2 * longest + 96));
    }
    expect(over).toBeGreaterThan(20);
    expect(same).toBeGreaterThan(450);
  });

  it("holds an arena bounded whatever the render's length; the whole search's grows with it", () => {
    const random = seededRandom(8);
    const window = 1 << 16;
    const turns = conversation(random, 20, () => randomInt(random, 12000, 48000), (i) => (i % 5 === 4 ? -3000 : 2000));
    const arenaOf = (stretch: number, search: LocateOptions["search"]) => {
      // The same turns with the silences between them `stretch` times longer: only the render grows.
      const offsets = turns.offsets.map((o, i) => o + (stretch - 1) * 24000 * i);
      const mix = render(turns.clips, offsets, Math.max(...turns.clips.map((c, i) => offsets[i] + c.length)) + 1000);
      let bytes = 0;
      const got = locateClipsInMix(mix, turns.clips, { windowSamples: window, search, onArenaUsed: (b) => (bytes = b) });
      expect(got).toEqual(offsets);
      return { bytes, samples: mix.length };
    };
    const short = arenaOf(1, "windowed");
    const long = arenaOf(40, "windowed");
    expect(long.samples).toBeGreaterThan(20 * short.samples);
    // The window (about 13 bytes a sample) and the clips' anchors, not the render.
    expect(long.bytes).toBeLessThanOrEqual(short.bytes);
    expect(long.bytes).toBeLessThan(16 * 2 * 48000 + 2 * 20 * 48000 + (1 << 20));
    // Many turns, barge-ins among them, so that windows end inside overlapping turns: the arena
    // grows only by the turns' anchors (under 4 KB a turn), not with the render.
    const turnsArena = (count: number) => {
      const r = seededRandom(10);
      const { clips, offsets, length } = conversation(r, count, () => randomInt(r, 6000, 12000), (i) => (i % 3 === 2 ? -randomInt(r, 300, 1500) : randomInt(r, 30, 900)));
      const mix = render(clips, offsets, length);
      let bytes = 0;
      const got = windowed(mix, clips, { windowSamples: 1 << 15, onArenaUsed: (b) => (bytes = b) });
      expect(got).toEqual({ offsets: whole(mix, clips), search: "windowed" });
      expect(got.offsets.filter((o, i) => o === offsets[i]).length).toBeGreaterThan(0.9 * count);
      return bytes;
    };
    const few = turnsArena(40);
    expect(turnsArena(400)).toBeLessThanOrEqual(few + 4096 * 360);
    const wholeLong = arenaOf(40, "whole");
    expect(wholeLong.bytes).toBeGreaterThan(5 * long.samples);
    expect(wholeLong.bytes).toBeGreaterThan(10 * long.bytes);
  });

  it.skipIf(!shared)("gives the whole search's offsets on the simulation folders of ../shared/parity, at any window", () => {
    const folders = simFolders(join(shared as string, "parity"));
    expect(folders.length).toBeGreaterThan(0);
    for (const dir of folders) {
      const decode = (name: string) => decodeAudio(new Uint8Array(readFileSync(join(dir, name))), { compat: "deepeval", name });
      const render = decode("deepeval-conversation.wav");
      const mix = downmixTruncating(render.samples, render.channels);
      const clips = listSimTurnFiles(dir).map((f) => {
        const d = decode(f.name);
        return d.sampleRate === render.sampleRate ? downmixTruncating(d.samples, d.channels) : null;
      });
      const want = whole(mix, clips);
      expect(want.filter((o) => o !== null).length, dir).toBeGreaterThan(0);
      for (const windowSamples of [4096, 1 << 16, 1 << 18, undefined]) {
        expect(windowed(mix, clips, { windowSamples }), `${dir}, window ${windowSamples}`).toEqual({ offsets: want, search: "windowed" });
      }
    }
  });

  it("locateScanAnchors finds every occurrence of distinctive anchors that a scan of the residual finds, before and after placements", () => {
    const random = seededRandom(9);
    const distinct = (a: ArrayLike<number>) => Array.from(a).filter((x) => x >= 64 || x <= -64).length * 2 >= 24;
    let found = 0;
    for (let t = 0; t < 30; t++) {
      const { mix } = makeScenario(random);
      if (mix.length < 200) continue;
      const clips = Array.from({ length: 4 }, () => {
        const len = randomInt(random, 24, Math.min(mix.length, 5000));
        const start = randomInt(random, 0, mix.length - len);
        return random() < 0.8 ? mix.slice(start, start + len) : makeClip(random, len);
      });
      withArena((arena) => {
        const session = new ClipLocatorSession(arena, mix, Array.from({ length: 4 }, () => clips).flat());
        const k = session.k;
        const residual = () => arena.i32(session.residual, mix.length);
        // Anchors: pieces of the render and of the clips, the distinctive ones (the locator only has such).
        const anchors: Int16Array[] = [];
        for (let a = 0; a < 60; a++) {
          const from = random() < 0.5 ? mix : clips[randomInt(random, 0, 3)];
          const at = randomInt(random, 0, from.length - 24);
          if (distinct(from.subarray(at, at + 24))) anchors.push(from.slice(at, at + 24));
        }
        const table = arena.allocI16(24 * anchors.length);
        anchors.forEach((a, i) => arena.i16(table, 24 * anchors.length).set(a, 24 * i));
        const head = arena.allocI32(256 + 1);
        const entries = arena.alloc(k.locateAnchorEntryBytes(anchors.length));
        expect(k.locateAnchorTableInit(table, anchors.length, head, 256, entries)).toBe(0);
        const cap = 1 << 17;
        const out = arena.allocI32(2 * cap);
        const check = (label: string) => {
          const count = k.locateScanAnchors(session.state, table, head, 256, entries, 0, mix.length - 1, out, cap);
          expect(count, label).toBeGreaterThanOrEqual(0);
          const pairs = arena.i32(out, 2 * count);
          const got = new Set(Array.from({ length: count }, (_, f) => `${pairs[2 * f]}:${pairs[2 * f + 1]}`));
          const r = residual();
          const want = new Set<string>();
          anchors.forEach((a, i) => {
            for (let x = 0; x + 24 <= r.length; x++) {
              let q = 0;
              while (q < 24 && r[x + q] === a[q]) q++;
              if (q === 24) want.add(`${x}:${i}`);
            }
          });
          expect(got, label).toEqual(want);
          expect(got.size, label).toBe(count);
          found += count;
        };
        check(`render ${t}`);
        for (let round = 0; round < 3; round++) {
          const i = randomInt(random, 0, 3);
          session.place(i, randomInt(random, 0, mix.length - clips[i].length));
          check(`render ${t}, placement ${round}`);
        }
      });
    }
    expect(found).toBeGreaterThan(500);
  });
});
