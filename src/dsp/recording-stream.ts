// Speech runs of several channels of one recording in a single pass over a PcmSource (formats.md F5): each chunk enters WebAssembly memory once, whichever channels are wanted.
import type { PcmSource } from "../audio/pcm-source.js";
import type { SpeechRunOptions } from "./channel-kernels.js";
import { ActivityStream, readPlanarChunks, speechRunsInPlace, speechRunsOfLevels } from "./channel-stream.js";
import { releaseArray } from "./release.js";
import { withArena } from "./wasm.js";

/**
 * From this many levels (about 44 minutes of 10 ms frames) a channel's speech is decided on its levels
 * where they are (speechRunsInPlace, same runs): copying them into WebAssembly memory, which never
 * shrinks, would cost the worker 4 bytes per level for the rest of its life (5.8 MB for 4 hours).
 * Below it the kernel decides on a copy: about 1.5× faster (2.4 ms less per 5-minute channel).
 */
export const IN_PLACE_DECISION_MIN_LEVELS = 1 << 18;

/**
 * Speech runs (frame pairs: first frame, last frame above T_off) of each of `channels`, in that
 * order: each equal to speechRunsStream(source, channel, options), read in one pass. The arena holds
 * one chunk and one filter block per channel, then one channel's levels (4 bytes per 10 ms) and runs.
 */
export function speechRunsOfChannels(source: PcmSource, channels: readonly number[], options: SpeechRunOptions): Int32Array[] {
  for (const channel of channels) {
    if (!Number.isInteger(channel) || channel < 0 || channel >= source.channels) {
      throw new RangeError(`channel must be an integer in [0, ${source.channels - 1}], got ${channel}`);
    }
  }
  const wanted = [...new Set(channels)];
  const levels = withArena((arena) => {
    // The filter's output region is shared: each stream uses it only while one of its blocks is filtered.
    const y = arena.alloc(ActivityStream.yBytes(arena));
    // A source that knows its length gets each channel's levels in one array of the exact length (no doubling blocks, no copy at the end).
    const expected = source.frames ?? 0;
    const streams = new Map(wanted.map((c) => [c, new ActivityStream(arena, source.sampleRate, y, expected)]));
    readPlanarChunks(arena, source, wanted, false, (chunk) => {
      for (const [c, stream] of streams) stream.push(chunk.channel(c), chunk.frames);
    });
    return new Map(wanted.map((c) => [c, streams.get(c)!.finish()]));
  });
  // One arena session per channel's runs: WebAssembly memory holds one channel's levels and scratch at a time,
  // and each channel's levels are let go as soon as its runs are found.
  const runs = new Map<number, Int32Array>();
  for (const c of wanted) {
    const spent = levels.get(c)!;
    levels.delete(c);
    runs.set(c, spent.length >= IN_PLACE_DECISION_MIN_LEVELS ? speechRunsInPlace(spent, options) : withArena((arena) => speechRunsOfLevels(arena, spent, options)));
    releaseArray(spent);
  }
  // A channel asked for twice gets its own copy of the runs.
  const given = new Set<number>();
  return channels.map((c) => (given.has(c) ? runs.get(c)!.slice() : (given.add(c), runs.get(c)!)));
}
