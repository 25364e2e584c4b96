// Today's whole-recording path of dual-channel ingest (before issue 11), kept as the reference the streamed path is compared with: decodeAudio, RecordingKernels, every turn cut in memory.
import { readFileSync } from "node:fs";
import { segmentsFromRuns, speechRunOptions } from "../../src/analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import type { LoadedCall } from "../../src/analysis/call.js";
import { allocateWavPcm16, decodeAudio, type DecodedAudio } from "../../src/audio/index.js";
import { RecordingKernels } from "../../src/dsp/recording-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { buildPartyTurns, type SpeechSegment } from "../../src/ingest/formats/dual-channel.js";
import { Audio } from "../../src/model/audio.js";
import { createTestCase, type Turn } from "../../src/model/test-case.js";

function detectChannelSpeech(recording: RecordingKernels, channel: number): SpeechSegment[] {
  if (recording.frames === 0) return [];
  return segmentsFromRuns(recording.speechRuns(channel, speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS)), DEFAULT_ACOUSTICS_OPTIONS);
}

const TRAILING_DECAY_MAX_S = 0.3;
const EDGE_WINDOW_S = 0.02;
const EDGE_RMS = 1000;

function decayEnd(recording: RecordingKernels, channel: number, from: number, speechEnd: number, limit: number, rate: number): number {
  if (limit <= speechEnd) return speechEnd;
  const window = Math.max(1, Math.trunc(rate * EDGE_WINDOW_S));
  const lo = Math.max(from, speechEnd - window);
  const pcm = new Int16Array(limit - lo);
  recording.pcm16(channel, lo, limit, pcm);
  const step = Math.max(1, Math.round(rate / 1000));
  for (let e = speechEnd; e <= limit; e += step) {
    const start = Math.max(from, e - window);
    let sum = 0;
    for (let k = start; k < e; k++) sum += pcm[k - lo] * pcm[k - lo];
    if (e > start && Math.sqrt(sum / (e - start)) <= EDGE_RMS) return e;
  }
  return speechEnd;
}

/** The recording (no sidecar) decoded whole, caller on `callerChannel`, agent on the other, turns cut in memory: what loadDualChannel did before streaming. */
export function loadDualChannelWhole(path: string, callerChannel = 0, agentChannel = 1): LoadedCall {
  const decoded = decodeAudio(new Uint8Array(readFileSync(path)), { name: path });
  const rate = decoded.sampleRate;
  const clips = new Map<number, DecodedAudio>();
  const { callerSegments, agentSegments, turns } = withArena((arena) => {
    const recording = new RecordingKernels(arena, decoded);
    const frames = recording.frames;
    const callerSegments = detectChannelSpeech(recording, callerChannel);
    const agentSegments = detectChannelSpeech(recording, agentChannel);
    const parties = buildPartyTurns(callerSegments, agentSegments);
    const turns: Turn[] = parties.map((p, index) => {
      const from = Math.max(0, Math.round(p.start * rate));
      const speechEnd = Math.min(frames, Math.round(p.end * rate));
      const nextStart = index + 1 < parties.length ? Math.round(parties[index + 1].start * rate) : frames;
      const limit = Math.min(frames, nextStart, speechEnd + Math.round(TRAILING_DECAY_MAX_S * rate));
      const to = decayEnd(recording, p.role === "user" ? callerChannel : agentChannel, from, speechEnd, limit, rate);
      const { bytes: clip, samples: pcm } = allocateWavPcm16(Math.max(0, to - from), rate, 1);
      if (to > from) recording.pcm16(p.role === "user" ? callerChannel : agentChannel, from, to, pcm);
      if (pcm.length > 0) clips.set(index, { sampleRate: rate, channels: 1, frames: pcm.length, samples: pcm, format: "wav/pcm16", warnings: [] });
      return {
        role: p.role,
        content: "",
        audio: Audio.fromBytes(clip, "audio/wav", { start_time: from / rate, duration: (to - from) / rate, sampleRate: rate }),
        metadata: { speech_segments: p.segments },
      };
    });
    return { callerSegments, agentSegments, turns };
  });
  const testCase = createTestCase({
    name: null,
    turns,
    metadata: {
      source_format: "dual-channel",
      caller_channel: callerChannel,
      agent_channel: agentChannel,
      sample_rate: rate,
      duration: decoded.frames / rate,
      caller_speech_segments: callerSegments,
      agent_speech_segments: agentSegments,
    },
  });
  return { testCase, warnings: [...decoded.warnings], decoded: { compat: "voxmetrics", byTurn: clips } };
}
