// Speech segments of one recording channel, from the acoustics speech-activity kernel and its defaults (acoustics.md §2.3).
import { segmentsFromRuns, speechRunOptions, type Segment } from "../analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../analysis/acoustics-options.js";
import type { RecordingKernels } from "../dsp/recording-kernels.js";

/** Speech segments [start_s, end_s] of `channel` of a recording in the kernels, with the engine's speech-activity defaults. */
export function detectChannelSpeech(recording: RecordingKernels, channel: number): Segment[] {
  if (recording.frames === 0) return [];
  return segmentsFromRuns(recording.speechRuns(channel, speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS)), DEFAULT_ACOUSTICS_OPTIONS);
}
