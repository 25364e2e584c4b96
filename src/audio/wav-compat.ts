// A RIFF/WAVE reader that accepts exactly what deepeval accepts (Python `wave` ≤ 3.11: format tag 1 only), voice-metrics.md §2.2.

/** What Python's `wave` module yields for a file it can open. */
export interface CompatWav {
  channels: number;
  sampleRate: number;
  /** Bytes per sample ((bitsPerSample + 7) >> 3). */
  sampleWidth: number;
  /** The bytes `readframes(getnframes())` returns. */
  data: Uint8Array;
}

/** Where a compat WAV's samples lie: what `readCompatWav` returns, with the data as a byte range of the file instead of bytes. */
export interface CompatWavLayout {
  channels: number;
  sampleRate: number;
  sampleWidth: number;
  /** Absolute offset of the first data byte. */
  dataStart: number;
  /** Bytes `readframes(getnframes())` returns. */
  dataLength: number;
}

/** Random access to a file's bytes (a whole buffer, or a file read at offsets): `bytes(start, end)` may return fewer bytes only at the end of the file. */
export interface ByteAccess {
  readonly length: number;
  bytes(start: number, end: number): Uint8Array;
}

/** Raised for anything Python's `wave` would reject (the text mirrors its reason). */
export class CompatWavError extends Error {}

const EOF = new CompatWavError("unexpected end of file");

/**
 * A window on the file that behaves like Python's `chunk.Chunk` reading: reads never go past the
 * chunk's declared size nor past the bytes present; odd-sized chunks are followed by a pad byte.
 */
class ChunkReader {
  readonly start: number; // absolute offset of the chunk's data
  readonly size: number; // declared size
  readonly name: string;
  read = 0; // bytes consumed so far (Chunk.size_read)

  constructor(
    private readonly bytes: ByteAccess,
    private readonly parent: ChunkReader | null,
    at: number,
  ) {
    const head = this.take(8, at);
    if (head.length < 4) throw EOF;
    this.name = String.fromCharCode(head[0], head[1], head[2], head[3]);
    if (head.length < 8) throw EOF;
    this.size = (head[4] | (head[5] << 8) | (head[6] << 16) | (head[7] << 24)) >>> 0;
    this.start = at + 8;
  }

  /** Bytes available from absolute offset `at`, bounded by the parent chunk and the file. */
  private take(n: number, at: number): Uint8Array {
    let end = Math.min(at + n, this.bytes.length);
    if (this.parent) {
      const parentEnd = this.parent.start + this.parent.size;
      end = Math.min(end, parentEnd);
    }
    return this.bytes.bytes(at, Math.max(at, end));
  }

  /** Chunk.read(n). */
  readBytes(n: number): Uint8Array {
    const [at, length] = this.skipBytes(n);
    return this.bytes.bytes(at, at + length);
  }

  /** Chunk.read(n) without the bytes: the absolute offset and length it would return. */
  skipBytes(n: number): [number, number] {
    if (this.read >= this.size) return [this.start + this.read, 0];
    const want = Math.min(n, this.size - this.read);
    const at = this.start + this.read;
    let end = Math.min(at + want, this.bytes.length);
    if (this.parent) end = Math.min(end, this.parent.start + this.parent.size);
    const length = Math.max(0, end - at);
    this.read += length;
    return [at, length];
  }

  /** Absolute offset just past this chunk (and its pad byte); errors if that leaves the parent (Chunk.seek). */
  end(): number {
    const n = this.size + (this.size & 1);
    if (this.parent && this.start + n - this.parent.start > this.parent.size) {
      throw new CompatWavError("chunk extends past the RIFF chunk");
    }
    return this.start + n;
  }
}

function u16(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8);
}
function u32(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

/** Open a WAV the way `wave.open` + `readframes(getnframes())` does; throws CompatWavError otherwise. */
export function readCompatWav(bytes: Uint8Array): CompatWav {
  const { dataStart, dataLength, ...fmt } = locateCompatWav({ length: bytes.length, bytes: (start, end) => bytes.subarray(start, end) });
  return { ...fmt, data: bytes.subarray(dataStart, dataStart + dataLength) };
}

/** readCompatWav without reading the samples: where they lie (for a file read in chunks). */
export function locateCompatWav(bytes: ByteAccess): CompatWavLayout {
  const riff = new ChunkReader(bytes, null, 0);
  if (riff.name !== "RIFF") throw new CompatWavError("file does not start with RIFF id");
  const wave = riff.readBytes(4);
  if (wave.length !== 4 || String.fromCharCode(...wave) !== "WAVE") throw new CompatWavError("not a WAVE file");

  let fmt: { channels: number; sampleRate: number; sampleWidth: number } | null = null;
  let at = riff.start + 4;
  for (;;) {
    let chunk: ChunkReader;
    try {
      chunk = new ChunkReader(bytes, riff, at);
    } catch (e) {
      if (e === EOF) break;
      throw e;
    }
    if (chunk.name === "fmt ") {
      const head = chunk.readBytes(14);
      if (head.length < 14) throw new CompatWavError("fmt chunk too short");
      const tag = u16(head, 0);
      const channels = u16(head, 2);
      const sampleRate = u32(head, 4);
      if (tag !== 1) throw new CompatWavError(`unknown format: ${tag}`);
      const bits = chunk.readBytes(2);
      if (bits.length < 2) throw new CompatWavError("fmt chunk too short");
      const sampleWidth = (u16(bits, 0) + 7) >> 3;
      if (!sampleWidth) throw new CompatWavError("bad sample width");
      if (!channels) throw new CompatWavError("bad # of channels");
      fmt = { channels, sampleRate, sampleWidth };
    } else if (chunk.name === "data") {
      if (!fmt) throw new CompatWavError("data chunk before fmt chunk");
      const frameSize = fmt.channels * fmt.sampleWidth;
      const frames = Math.floor(chunk.size / frameSize);
      const [dataStart, dataLength] = frames === 0 ? [chunk.start, 0] : chunk.skipBytes(frames * frameSize);
      return { ...fmt, dataStart, dataLength };
    }
    at = chunk.end();
  }
  throw new CompatWavError("fmt chunk and/or data chunk missing");
}
