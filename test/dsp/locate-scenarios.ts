// Random renders for the clip-location tests (locate.test.ts, locate-windowed.test.ts): clips of several kinds laid out with gaps, overlaps, repeats and clamping.
import { noise, type Random } from "./parity-signals.js";

export const randomInt = (random: Random, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
export const pick = <T>(random: Random, items: readonly T[]): T => items[randomInt(random, 0, items.length - 1)];

/** Lengths around the 24-sample anchor, the 17-sample indexed window and its 8-sample stride, plus odd and long ones. */
export const SHORT_LENGTHS = [0, 1, 2, 7, 8, 9, 16, 17, 18, 23, 24, 25, 31, 32, 33, 47, 48, 49];

/** A clip of one of several kinds: noise at a random level, near-silence, speech-like bursts, full scale, a short repeated pattern. */
export function makeClip(random: Random, n: number): Int16Array {
  switch (randomInt(random, 0, 5)) {
    case 0:
      return noise(random, n, pick(random, [100, 2000, 12000]));
    case 1:
      return noise(random, n, pick(random, [40, 63, 64, 80]));
    case 2: {
      const x = new Int16Array(n);
      for (let at = 0; at < n; ) {
        const len = randomInt(random, 1, 3000);
        if (random() < 0.6) x.set(noise(random, Math.min(len, n - at), pick(random, [90, 3000, 20000])), at);
        at += len;
      }
      return x;
    }
    case 3:
      return noise(random, n, 32768);
    case 4: {
      const pattern = noise(random, randomInt(random, 1, 40), 10000);
      return Int16Array.from({ length: n }, (_, i) => pattern[i % pattern.length]);
    }
    default:
      return Int16Array.from(noise(random, n, 6000), (x, i) => (i % 97 < 40 ? 0 : x));
  }
}

export function clipLength(random: Random): number {
  const r = random();
  if (r < 0.25) return pick(random, SHORT_LENGTHS);
  if (r < 0.45) return 2 * randomInt(random, 13, 2000) + 1;
  return randomInt(random, 2000, 14000);
}

/** deepeval's render: the int32 sum of the clips at their offsets, clamped to int16. */
export function render(clips: Int16Array[], offsets: number[], length: number): Int16Array {
  const sum = new Int32Array(length);
  clips.forEach((c, i) => c.forEach((x, k) => {
    if (offsets[i] + k < length) sum[offsets[i] + k] += x;
  }));
  return Int16Array.from(sum, (x) => Math.max(-32768, Math.min(32767, x)));
}

/** Index of the first element where a and b differ, −1 when they are equal (faster than toEqual on long arrays). */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

export interface Scenario {
  mix: Int16Array;
  clips: Array<Int16Array | null>;
}

/** Clips laid out one after another with random gaps and overlaps; some repeated, altered, absent, null, or longer than the render. */
export function makeScenario(random: Random): Scenario {
  const rendered: Int16Array[] = [];
  const offsets: number[] = [];
  const count = randomInt(random, 1, 7);
  let at = randomInt(random, 0, 3) === 0 ? 0 : randomInt(random, 0, 3000);
  for (let i = 0; i < count; i++) {
    const repeat = rendered.length > 0 && random() < 0.15;
    const clip = repeat ? pick(random, rendered) : makeClip(random, clipLength(random));
    rendered.push(clip);
    offsets.push(Math.max(0, at));
    const gap = random() < 0.35 ? -randomInt(random, 1, Math.max(1, clip.length)) : randomInt(random, 0, 4000);
    at = Math.max(0, at + clip.length + gap);
  }
  const end = Math.max(0, ...rendered.map((c, i) => c.length + offsets[i]));
  const length = random() < 0.1 ? randomInt(random, 0, end) : end + (random() < 0.5 ? 0 : randomInt(random, 1, 500));
  const mix = render(rendered, offsets, length);
  const clips: Array<Int16Array | null> = rendered.map((c) => (random() < 0.2 ? Int16Array.from(c) : c));
  if (random() < 0.3) clips.push(makeClip(random, clipLength(random)));
  if (random() < 0.2) clips.push(null);
  if (random() < 0.15 && clips.length > 0) {
    const i = randomInt(random, 0, clips.length - 1);
    const c = clips[i];
    if (c && c.length > 0) {
      const altered = Int16Array.from(c);
      altered[randomInt(random, 0, c.length - 1)] ^= 1;
      clips[i] = altered;
    }
  }
  if (random() < 0.1) clips.push(makeClip(random, length + randomInt(random, 1, 50)));
  if (random() < 0.25 && clips.length > 1) clips.splice(randomInt(random, 0, clips.length - 1), 1);
  // Turn order is not always render order.
  if (random() < 0.2) clips.reverse();
  return { mix, clips };
}

