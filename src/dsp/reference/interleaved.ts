// Readable twins of the channel layout kernels (assembly/kernels/interleaved.ts): one channel of interleaved int16, int16 → float planar, the mean of planar channels; deepeval's downmix twin is downmixTruncating (src/audio/convert.ts).

/** One channel of interleaved int16 as int16 (deinterleaveI16). */
export function extractChannel(samples: Int16Array, channels: number, channel: number): Int16Array {
  if (channels === 1) return samples;
  const frames = Math.floor(samples.length / channels);
  const out = new Int16Array(frames);
  for (let k = 0, o = channel; k < frames; k++, o += channels) out[k] = samples[o];
  return out;
}

/** Planar float32 in [−1, 1): the exact float source when there is one, else int16 / 32768 (deinterleaveF32 per channel). */
export function toFloatPlanar(audio: { samples: Int16Array; channels: number; floatChannels?: Float32Array[] }): Float32Array[] {
  if (audio.floatChannels) return audio.floatChannels;
  const { samples, channels } = audio;
  const frames = Math.floor(samples.length / channels);
  const planar = Array.from({ length: channels }, () => new Float32Array(frames));
  const scale = 1 / 32768;
  for (let k = 0, o = 0; k < frames; k++) for (let c = 0; c < channels; c++) planar[c][k] = samples[o++] * scale;
  return planar;
}

/** The per-sample mean of planar channels, accumulated in a Float32Array channel by channel, then scaled by 1/C (mixdownMeanF32). */
export function mixdownMeanReference(channels: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(channels[0].length);
  for (const c of channels) for (let i = 0; i < out.length; i++) out[i] += c[i];
  const scale = 1 / channels.length;
  for (let i = 0; i < out.length; i++) out[i] *= scale;
  return out;
}
