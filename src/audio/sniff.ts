// The one container sniffer: what an audio file is, and its channel count when the header carries it, from its first bytes (WAV, FLAC, Ogg Opus/Vorbis, MP3, MP4).

/** Container and channel count of an audio file; channels null when the header does not say (or cannot be read). */
export interface AudioSniff {
  container: "wav" | "flac" | "ogg" | "mp3" | "mp4" | "other";
  channels: number | null;
}

const ascii = (b: Uint8Array, start: number, length: number) => String.fromCharCode(...b.subarray(start, start + length));

/** True when the bytes start a RIFF/WAVE file. */
export function isWaveFile(b: Uint8Array): boolean {
  return b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WAVE";
}

/** Sniff a file's first bytes (64 KB is plenty: the channel count sits in the first header of every container read here). */
export function sniffAudio(b: Uint8Array): AudioSniff {
  if (isWaveFile(b)) return { container: "wav", channels: wavChannels(b) };
  if (ascii(b, 0, 4) === "fLaC") return { container: "flac", channels: b.length > 20 ? ((b[20] >> 1) & 7) + 1 : null };
  if (ascii(b, 0, 4) === "OggS") return { container: "ogg", channels: oggChannels(b) };
  if (ascii(b, 0, 3) === "ID3" || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return { container: "mp3", channels: mp3Channels(b) };
  if (ascii(b, 4, 4) === "ftyp") return { container: "mp4", channels: null };
  return { container: "other", channels: null };
}

function wavChannels(b: Uint8Array): number | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let o = 12;
  while (o + 8 <= b.length) {
    const id = ascii(b, o, 4);
    const size = v.getUint32(o + 4, true);
    if (id === "fmt " && o + 12 <= b.length) return v.getUint16(o + 10, true);
    o += 8 + size + (size & 1);
  }
  return null;
}

function oggChannels(b: Uint8Array): number | null {
  const text = ascii(b, 0, Math.min(b.length, 512));
  const opus = text.indexOf("OpusHead");
  if (opus >= 0 && opus + 9 < b.length) return b[opus + 9];
  const vorbis = text.indexOf("\x01vorbis");
  if (vorbis >= 0 && vorbis + 11 < b.length) return b[vorbis + 11];
  return null;
}

function mp3Channels(b: Uint8Array): number | null {
  let o = 0;
  if (ascii(b, 0, 3) === "ID3" && b.length >= 10) o = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]);
  for (; o + 3 < b.length; o++) {
    if (b[o] === 0xff && (b[o + 1] & 0xe0) === 0xe0) return ((b[o + 3] >> 6) & 3) === 3 ? 1 : 2;
  }
  return null;
}
