// G.711 μ-law codec for telephony-style transports (voice-metrics.md §L10): bias 0x84, clip 32635, inverted output byte.

const BIAS = 0x84;
const CLIP = 32635;

/** Segment (exponent) of a biased magnitude, looked up by its top byte: floor(log2(v)) with 0 for 0. */
const EXPONENT = new Uint8Array(256);
for (let v = 1; v < 256; v++) EXPONENT[v] = 31 - Math.clz32(v);

/** Encode one int16 sample to a μ-law byte. */
export function mulawEncodeSample(sample: number): number {
  let s = sample | 0;
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  const exponent = EXPONENT[(s >> 7) & 0xff];
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Decode one μ-law byte to an int16 sample. */
export function mulawDecodeSample(byte: number): number {
  const u = ~byte & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

/** G.711 μ-law encode 16-bit PCM (one byte per sample). */
export function mulawEncode(pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = mulawEncodeSample(pcm[i]);
  return out;
}

/** G.711 μ-law decode to 16-bit PCM. */
export function mulawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = mulawDecodeSample(bytes[i]);
  return out;
}
