// Speech segments of one recording channel, from the acoustics speech-activity kernel (acoustics.md §2.3), with onsets refined for turn cutting.
import { ACTIVITY_HOP_S, detectSpeechSegments, percentileSorted, type ActivityParameters, type Segment } from "../analysis/acoustics-activity.js";
import { ChannelKernels } from "../dsp/acoustics-kernels.js";

/** The normative defaults of acoustics.md §2.3 (percentiles in %, levels in dB, times in seconds). */
const ACTIVITY_PARAMETERS: ActivityParameters = {
  peakPercentile: 99,
  noisePercentile: 10,
  noiseWindowS: 10,
  enterAboveNoiseDb: 12,
  enterBelowPeakDb: 35,
  stayBelowEnterDb: 6,
  hangoverS: 0.2,
  minGapS: 0.1,
  minSpeechS: 0.1,
};

/**
 * Speech segments [start_s, end_s] of one channel. A turn's start time is its first segment's
 * onset, and the VAD enters speech only above T_on, so a weak initial consonant ("th", "f", "s")
 * would start the turn tens of milliseconds late. The hysteresis is therefore also applied
 * backwards: each onset moves back over the frames still above the stay-in-speech level T_off
 * (the rule that already places segment ends), never into the previous segment.
 */
export function detectChannelSpeech(samples: Float32Array, sampleRate: number): Segment[] {
  if (samples.length === 0) return [];
  const kernels = new ChannelKernels(samples, sampleRate);
  let levels: Float32Array;
  try {
    levels = kernels.activityLevels();
  } finally {
    kernels.dispose();
  }
  const segments = detectSpeechSegments(levels, ACTIVITY_PARAMETERS);
  const sorted = levels.slice().sort();
  const p = ACTIVITY_PARAMETERS;
  const enter = Math.max(percentileSorted(sorted, p.noisePercentile)! + p.enterAboveNoiseDb, percentileSorted(sorted, p.peakPercentile)! - p.enterBelowPeakDb);
  const stay = enter - p.stayBelowEnterDb;
  let floorFrame = 0;
  return segments.map(([start, end]) => {
    let frame = Math.round(start / ACTIVITY_HOP_S);
    while (frame - 1 >= floorFrame && levels[frame - 1] > stay) frame--;
    floorFrame = Math.round(end / ACTIVITY_HOP_S);
    return [frame * ACTIVITY_HOP_S, end];
  });
}
