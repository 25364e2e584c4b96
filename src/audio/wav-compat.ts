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
    private readonly bytes: Uint8Array,
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
    return this.bytes.subarray(at, Math.max(at, end));
  }

  /** Chunk.read(n). */
  readBytes(n: number): Uint8Array {
    if (this.read >= this.size) return new Uint8Array(0);
    const want = Math.min(n, this.size - this.read);
    const out = this.take(want, this.start + this.read);
    this.read += out.length;
    return out;
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
      const data = frames === 0 ? new Uint8Array(0) : chunk.readBytes(frames * frameSize);
      return { ...fmt, data };
    }
    at = chunk.end();
  }
  throw new CompatWavError("fmt chunk and/or data chunk missing");
}
