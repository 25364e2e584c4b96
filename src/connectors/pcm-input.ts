// Caller audio given to a connector (an Audio record or PCM) as mono int16 at the connector's send rate.
import { decodeAudio } from "../audio/decode.js";
import { downmixTruncating } from "../audio/convert.js";
import { resampleWith, type ResamplerKind } from "../audio/resample.js";
import type { Audio } from "../model/audio.js";
import type { Pcm } from "./types.js";

/** Decode (WAV or anything ffmpeg reads), downmix and resample to `sampleRate`. */
export function pcmAt(audio: Audio | Pcm, sampleRate: number, resampler: ResamplerKind): Int16Array {
  let pcm: Int16Array;
  let rate: number;
  if ("pcm" in audio) {
    pcm = audio.pcm;
    rate = audio.sampleRate;
  } else {
    const d = decodeAudio(audio.getBytes(), { name: audio.url ?? "caller audio" });
    pcm = d.channels === 1 ? d.samples : downmixTruncating(d.samples, d.channels);
    rate = d.sampleRate;
  }
  return rate === sampleRate ? pcm : resampleWith(resampler, pcm, rate, sampleRate);
}
