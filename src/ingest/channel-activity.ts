// Speech segments of one recording channel, from the acoustics speech-activity kernel and its defaults (acoustics.md §2.3).
import { activityParameters } from "../analysis/acoustics.js";
import { segmentsFromRuns, speechRunOptions, type Segment } from "../analysis/acoustics-activity.js";
import type { RecordingKernels } from "../dsp/recording-kernels.js";

/**
 * Speech segments [start_s, end_s] of `channel` of a recording in the kernels, with the engine's
 * speech-activity defaults; `exact` is that channel's float source when the file had one.
 */
export function detectChannelSpeech(recording: RecordingKernels, channel: number, exact?: Float32Array): Segment[] {
  if (recording.frames === 0) return [];
  const params = activityParameters();
  return segmentsFromRuns(recording.speechRuns(channel, speechRunOptions(params), exact), params);
}
