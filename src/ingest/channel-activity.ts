// Speech segments of one recording channel, from the acoustics speech-activity kernel and its defaults (acoustics.md §2.3).
import { detectSpeechSegments, type Segment } from "../analysis/acoustics-activity.js";
import { activityParameters } from "../analysis/acoustics.js";
import { ChannelKernels } from "../dsp/acoustics-kernels.js";

/** Speech segments [start_s, end_s] of one channel with the engine's speech-activity defaults. */
export function detectChannelSpeech(samples: Float32Array, sampleRate: number): Segment[] {
  if (samples.length === 0) return [];
  const kernels = new ChannelKernels(samples, sampleRate);
  try {
    return detectSpeechSegments(kernels, activityParameters());
  } finally {
    kernels.dispose();
  }
}
