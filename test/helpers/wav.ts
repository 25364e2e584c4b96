// Minimal canonical WAV reader/writer for the acoustics tests and bench (16-bit PCM and 32-bit float, planar output).
import { readFileSync, writeFileSync } from "node:fs";

export interface PlanarAudio {
  sampleRate: number;
  channels: Float32Array[];
}

/** Parse a RIFF/WAVE buffer holding 16-bit PCM or 32-bit float (plain or WAVE_FORMAT_EXTENSIBLE). */
export function decodeWav(bytes: Uint8Array): PlanarAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a RIFF/WAVE file");
  let format = 0, channels = 0, sampleRate = 0, bits = 0, dataAt = -1, dataBytes = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt ") {
      format = view.getUint16(at + 8, true);
      channels = view.getUint16(at + 10, true);
      sampleRate = view.getUint32(at + 12, true);
      bits = view.getUint16(at + 22, true);
      if (format === 0xfffe) format = view.getUint16(at + 32, true);
    } else if (id === "data") {
      dataAt = at + 8;
      dataBytes = Math.min(size, bytes.length - dataAt);
      break;
    }
    at += 8 + size + (size & 1);
  }
  if (dataAt < 0 || channels < 1) throw new Error("WAV without fmt or data chunk");
  const frames = Math.floor(dataBytes / (channels * (bits / 8)));
  const out = Array.from({ length: channels }, () => new Float32Array(frames));
  if (format === 1 && bits === 16) {
    for (let i = 0, at = dataAt; i < frames; i++) for (let c = 0; c < channels; c++, at += 2) out[c][i] = view.getInt16(at, true) / 32768;
  } else if (format === 3 && bits === 32) {
    for (let i = 0, at = dataAt; i < frames; i++) for (let c = 0; c < channels; c++, at += 4) out[c][i] = view.getFloat32(at, true);
  } else {
    throw new Error(`unsupported WAV encoding: format ${format}, ${bits} bits`);
  }
  return { sampleRate, channels: out };
}

export function readWav(path: string): PlanarAudio {
  return decodeWav(readFileSync(path));
}

/** Write planar float channels as 16-bit PCM (rounded, clamped). */
export function writeWav16(path: string, audio: PlanarAudio): void {
  const channels = audio.channels.length;
  const frames = audio.channels[0].length;
  const data = frames * channels * 2;
  const buf = Buffer.alloc(44 + data);
  buf.write("RIFF", 0);
  buf.writeUInt32LE(36 + data, 4);
  buf.write("WAVEfmt ", 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(channels, 22);
  buf.writeUInt32LE(audio.sampleRate, 24);
  buf.writeUInt32LE(audio.sampleRate * channels * 2, 28);
  buf.writeUInt16LE(channels * 2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36);
  buf.writeUInt32LE(data, 40);
  for (let i = 0, at = 44; i < frames; i++) {
    for (let c = 0; c < channels; c++, at += 2) {
      buf.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(audio.channels[c][i] * 32768))), at);
    }
  }
  writeFileSync(path, buf);
}
