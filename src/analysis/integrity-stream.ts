// The voxmetrics profile's integrity block of a clip read from a PcmSource in bounded chunks (issue 11): the same block measureIntegrity gives on the whole clip's mixdown.
//
// Two readings of the source at most, the signal being the standards set's mixdown (the mean of the
// channels, or the first), made chunk by chunk as readPlanarChunks makes it:
//   pass 1 — block levels, clipping runs, runs of digital silence with their edge levels: all that
//            needs no level known beforehand;
//   pass 2 — what the levels decide (planIntegrity): the speech-only WADA sums over the final
//            speech stretches, the repeat scan (its quantisation step comes from the speech level)
//            and the spectrum frames of the band edge. Skipped when nothing needs it (a silent clip).
// Both passes are assembled by the very functions measureIntegrity uses (planIntegrity,
// finishIntegrity), so the block is equal field for field. Memory: the arena holds one chunk and
// the kernels' bounded states; the JS side keeps the block levels (4 bytes per 5 ms block, in one
// array of their exact length when the source knows its length) and, while the levels are turned
// into percentiles, one byte per block of the speech mask (the percentiles are selected without
// sorting a copy of the levels).
import type { PcmSource } from "../audio/pcm-source.js";
import type { MixdownMode } from "../dsp/clip-kernels.js";
import { readPlanarChunks, SpectrumStream, StatsStream, STREAM_CHUNK_FRAMES, type PlanarChunk } from "../dsp/channel-stream.js";
import { IntegrityStream, ZeroRunList } from "../dsp/integrity-stream.js";
import { releaseArray } from "../dsp/release.js";
import { withArena } from "../dsp/wasm.js";
import type { Segment } from "./acoustics-activity.js";
import {
  finishIntegrity, integrityLengths, planIntegrity,
  type IntegrityBlock, type IntegrityClipping, type IntegrityFirstPass, type IntegrityOptions, type IntegritySecondPass,
} from "./integrity.js";

/**
 * The profile block of the clip `source` holds, read chunk by chunk: equal to measureIntegrity on the
 * whole clip's mixdown (`planar.mixdown(mixdown)`) with the same speech segments (s, the standards
 * set's), options and clipping rule, at any chunk size. Reads the source once, and a second time
 * when the clip is audible. Opens its own arena sessions (not to be called inside one).
 *
 * @throws RangeError when a second reading of the source gives another length than the first.
 */
export function measureIntegrityStream(
  source: PcmSource,
  speechSegments: readonly Segment[],
  options: IntegrityOptions,
  clipping: IntegrityClipping,
  mixdown: MixdownMode = "mean",
): IntegrityBlock {
  const { sampleRate } = source;
  const lengths = integrityLengths(options, sampleRate);
  const needMean = source.channels > 1 && mixdown === "mean";
  const signalOf = (chunk: PlanarChunk) => (needMean ? chunk.mean() : chunk.channel(0));
  const expectedLength = source.frames !== null && Number.isInteger(source.frames) && source.frames > 0 ? source.frames : undefined;

  const { frames, first } = withArena((arena) => {
    const stream = new IntegrityStream(arena, {
      blockLength: lengths.block,
      expectedLength,
      zeroRuns: [
        { minRun: lengths.minRun, edgeLength: lengths.edge },
        { minRun: lengths.minRun, edgeLength: lengths.nearEdge },
      ],
    }, STREAM_CHUNK_FRAMES);
    const stats = new StatsStream(arena, clipping.level, clipping.minRun);
    const frames = readPlanarChunks(arena, source, [0], needMean, (chunk) => {
      const ptr = signalOf(chunk);
      stream.pushAt(ptr, chunk.frames);
      stats.push(ptr, chunk.frames);
    });
    const result = stream.finish();
    const [zeroRuns, nearEdges] = result.zeroRuns;
    const first: IntegrityFirstPass = { levels: result.blockLevels, clippedSamples: stats.finish().clippedSamples, zeroRuns, nearEdges: zeroRuns.length ? nearEdges : new ZeroRunList() };
    return { frames, first };
  });

  const { context, plan } = planIntegrity(frames, sampleRate, first, speechSegments, options);
  const second: IntegritySecondPass = { wadaSums: null, repeats: null, bandPower: null };
  if (plan.wadaRanges || plan.repeats || plan.band) {
    withArena((arena) => {
      const stream = plan.wadaRanges || plan.repeats
        ? new IntegrityStream(arena, { blockLength: lengths.block, levels: false, zeroRuns: [], wadaRanges: plan.wadaRanges ?? undefined, repeats: plan.repeats ?? undefined }, STREAM_CHUNK_FRAMES)
        : null;
      const spectrum = plan.band ? new SpectrumStream(arena, plan.band.starts, plan.band.fftSize, frames, STREAM_CHUNK_FRAMES) : null;
      const read = readPlanarChunks(arena, source, [0], needMean, (chunk) => {
        const ptr = signalOf(chunk);
        stream?.pushAt(ptr, chunk.frames);
        spectrum?.push(ptr, chunk.frames);
      });
      if (read !== frames) throw new RangeError(`the source gave ${read} frames on its second reading, ${frames} on its first`);
      if (stream) {
        const result = stream.finish();
        second.wadaSums = result.wadaSums;
        second.repeats = result.repeats;
      }
      if (spectrum) second.bandPower = spectrum.power64();
    });
  }
  const block = finishIntegrity(context, first, second, options, clipping);
  // The levels (4 bytes per block: 11 MB for four hours) go back now, not at the next full collection.
  releaseArray(first.levels);
  return block;
}
