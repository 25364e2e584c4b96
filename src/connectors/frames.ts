// 20 ms framing, frame RMS and PCM16 byte conversions shared by connectors, the turn engine and the reference agent (§L10).

/** Frame length of paced audio and of turn detection (deepeval's DEFAULT_FRAME_MS). */
export const FRAME_MS = 20;
/** A frame is silent when its RMS is below this (deepeval's DEFAULT_SILENCE_RMS, int16 units). */
export const SILENCE_RMS = 300;

/** Samples in one frame at `sampleRate`: trunc(rate · frame_ms / 1000). */
export function frameSamples(sampleRate: number, frameMs = FRAME_MS): number {
  return Math.trunc((sampleRate * frameMs) / 1000);
}

/** Split PCM into frames; the last one is zero-padded to full size (§L10, unlike the metric framing). */
export function splitFrames(pcm: Int16Array, sampleRate: number, frameMs = FRAME_MS): Int16Array[] {
  const n = frameSamples(sampleRate, frameMs);
  const out: Int16Array[] = [];
  for (let i = 0; i < pcm.length; i += n) {
    if (i + n <= pcm.length) out.push(pcm.subarray(i, i + n));
    else {
      const last = new Int16Array(n);
      last.set(pcm.subarray(i));
      out.push(last);
    }
  }
  return out;
}

/** Root mean square of int16 samples (0 for an empty frame). */
export function frameRms(frame: Int16Array): number {
  if (frame.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < frame.length; i++) sum += frame[i] * frame[i];
  return Math.sqrt(sum / frame.length);
}

/** Little-endian bytes of int16 samples (a view when the platform is little-endian, which Node's are). */
export function pcm16ToBytes(pcm: Int16Array): Uint8Array {
  return new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}

/** Int16 samples of little-endian PCM bytes (copied, so alignment never matters); an odd last byte is dropped. */
export function bytesToPcm16(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 2));
  return out;
}

export function concatPcm(parts: readonly Int16Array[]): Int16Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Int16Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
