// TEMPORARY stand-in for the standards branch's `speechRunsStream` (issue 11): one channel of a PcmSource gathered into the arena, then today's whole-channel kernel.
//
// Same signature and results as the agreed streaming function (RecordingKernels.speechRuns: the
// exact floats of a float source, else int16 / 32768), so the recording path is written against
// it; the merge replaces this import with the streaming one. Until then memory grows with the
// channel's length (4 bytes a frame in WebAssembly memory), while the recording itself stays on disk.
import type { PcmSource } from "../audio/pcm-source.js";
import { ChannelKernels, type SpeechRunOptions } from "./channel-kernels.js";
import { withArena } from "./wasm.js";

/** Speech runs of `channel` (frame pairs: first frame, last frame above T_off), read from `source` chunk by chunk. */
export function speechRunsStream(source: PcmSource, channel: number, options: SpeechRunOptions): Int32Array {
  const { channels, sampleRate } = source;
  if (!Number.isInteger(channel) || channel < 0 || channel >= channels) {
    throw new RangeError(`channel must be an integer in [0, ${channels - 1}], got ${channel}`);
  }
  const frames = source.frames ?? countFrames(source);
  return withArena((arena) => {
    const ptr = arena.allocF32(frames);
    let scratch = new Float32Array(0);
    let at = 0;
    for (const c of source.chunks()) {
      if (at + c.frames > frames) throw new RangeError(`the source gave more than the ${frames} frames it declared`);
      let exact = c.floatChannels?.[channel]?.subarray(0, c.frames);
      if (!exact) {
        if (scratch.length < c.frames) scratch = new Float32Array(c.frames);
        exact = scratch.subarray(0, c.frames);
        for (let k = 0, o = channel; k < c.frames; k++, o += channels) exact[k] = c.samples[o] / 32768;
      }
      arena.copyPcmTo(ptr + 4 * at, exact);
      at += c.frames;
    }
    if (at !== frames) throw new RangeError(`the source gave ${at} frames, expected ${frames}`);
    return new ChannelKernels(arena, ptr, frames, sampleRate).speechRuns(options);
  });
}

function countFrames(source: PcmSource): number {
  let n = 0;
  for (const c of source.chunks()) n += c.frames;
  return n;
}
