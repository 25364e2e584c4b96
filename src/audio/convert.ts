// PCM conversions: any WAV sample encoding to int16 (formats.md §F0.3) and deepeval's truncating downmix (§2.3).

/** Little-endian sample encodings a WAV data chunk can hold. */
export type SampleEncoding = "pcm8" | "pcm16" | "pcm24" | "pcm32" | "float32" | "float64";

/** Non-finite float samples are refused; the index says where (frame = index / channels). */
export class NonFiniteSampleError extends Error {
  constructor(readonly index: number, readonly value: number) {
    super(`float sample ${index} is ${value} (NaN and ±Inf are not audio)`);
  }
}

/** Round half to even, as ffmpeg's float → s16 conversion does (lrintf). */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && (r & 1) !== 0 ? r - 1 : r;
}

function floatToI16(x: number): number {
  const v = roundHalfEven(x * 32768);
  return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

/** Little-endian 16-bit sample bytes as int16: a view on `data` when it is 2-byte aligned (no copy), else a copy. */
export function pcm16Samples(data: Uint8Array): Int16Array {
  const count = data.length >> 1;
  return (data.byteOffset & 1) === 0 ? new Int16Array(data.buffer, data.byteOffset, count) : new Int16Array(data.slice(0, count * 2).buffer);
}

/**
 * Convert interleaved little-endian sample bytes to int16. `count` = number of whole samples to read.
 * Returns the float planar channels too when the source is floating point.
 */
export function bytesToInt16(
  data: Uint8Array,
  encoding: SampleEncoding,
  count: number,
  channels: number,
): { samples: Int16Array; floatChannels?: Float32Array[] } {
  const out = new Int16Array(count);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  switch (encoding) {
    case "pcm16":
      if ((data.byteOffset & 1) === 0) out.set(new Int16Array(data.buffer, data.byteOffset, count));
      else for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true);
      return { samples: out };
    case "pcm8":
      for (let i = 0; i < count; i++) out[i] = (data[i] - 128) * 256;
      return { samples: out };
    case "pcm24":
      for (let i = 0, o = 0; i < count; i++, o += 3) {
        const s = (data[o] | (data[o + 1] << 8) | (data[o + 2] << 16)) << 8 >> 8;
        out[i] = s >> 8;
      }
      return { samples: out };
    case "pcm32":
      for (let i = 0; i < count; i++) out[i] = view.getInt32(i * 4, true) >> 16;
      return { samples: out };
    case "float32":
    case "float64": {
      const frames = Math.floor(count / channels);
      const planar = Array.from({ length: channels }, () => new Float32Array(frames));
      const wide = encoding === "float64";
      for (let i = 0; i < count; i++) {
        const x = wide ? view.getFloat64(i * 8, true) : view.getFloat32(i * 4, true);
        if (!Number.isFinite(x)) throw new NonFiniteSampleError(i, x);
        out[i] = floatToI16(x);
        const f = Math.floor(i / channels);
        if (f < frames) planar[i % channels][f] = x;
      }
      return { samples: out, floatChannels: planar };
    }
  }
}

/**
 * deepeval's downmix: mono[k] = trunc(Σ_c s[k·C + c] / C); frames = floor(samples / C). Analysis
 * makes it in WebAssembly (downmixTruncatingI16); this is the kernel's twin and what ingest uses
 * for the clips it locates.
 */
export function downmixTruncating(samples: Int16Array, channels: number): Int16Array {
  if (channels <= 1) return samples;
  const frames = Math.floor(samples.length / channels);
  const out = new Int16Array(frames);
  for (let k = 0, o = 0; k < frames; k++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += samples[o++];
    out[k] = Math.trunc(sum / channels);
  }
  return out;
}
