// Writes canonical 44-byte-header 16-bit PCM WAV files (fixtures, per-turn clips cut from recordings).
import { takeCallBytes } from "./call-buffer.js";

/** Encode interleaved int16 samples as a RIFF/WAVE file. */
export function writeWavPcm16(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  const { bytes, samples: data } = allocateWavPcm16(samples.length, sampleRate, channels);
  data.set(samples);
  return bytes;
}

/**
 * A 16-bit PCM WAV file of `count` interleaved samples with its header written and its data region
 * (zeros) as an Int16Array view for the caller to fill: the PCM is written once, into the file.
 * Inside `withCallBuffer` the file lives in the call buffer, valid until the scope ends; with `into`
 * (exactly 44 + 2 × count bytes, 2-byte aligned) it is written there.
 */
export function allocateWavPcm16(count: number, sampleRate: number, channels = 1, into?: Uint8Array): { bytes: Uint8Array; samples: Int16Array } {
  const dataBytes = count * 2;
  if (into && into.length !== 44 + dataBytes) throw new RangeError(`a WAV of ${count} samples takes ${44 + dataBytes} bytes, the buffer given holds ${into.length}`);
  const reused = into ?? takeCallBytes(44 + dataBytes);
  const out = reused ? reused.fill(0) : new Uint8Array(44 + dataBytes);
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const ascii = (o: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[o + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  v.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true);
  v.setUint16(32, channels * 2, true);
  v.setUint16(34, 16, true);
  ascii(36, "data");
  v.setUint32(40, dataBytes, true);
  return { bytes: out, samples: new Int16Array(out.buffer, out.byteOffset + 44, count) };
}
