// Turn clips of a long recording kept as spans of the file (formats.md F5): a turn's WAV bytes are cut from the recording when analysis asks for them, never held for the whole call.
import { allocateWavPcm16 } from "../audio/wav-writer.js";
import { openRecordingReader, type RecordingReader, type RecordingReaderOptions } from "../audio/wav-range.js";
import { Audio, audioInit } from "../model/audio.js";
import { encodeBase64 } from "../model/base64.js";

/** The (never read) inline bytes every span hands its Audio: one empty array for all, not one per turn of a call of thousands. */
const NO_BYTES = new Uint8Array(0);

/** Clip buffers grow in steps of this many bytes. */
const CLIP_GRAIN = 64 << 10;

/** Closes what a handle left open if its call is dropped without dispose(). */
const abandoned = new FinalizationRegistry<RecordingReader>((reader) => reader.dispose());

/**
 * One recording file, opened when a turn's clip is asked for and kept open until dispose() (a
 * recording decoded through ffmpeg keeps its temporary WAV until then). Opening again after
 * dispose() is allowed: a clip read later still gets its samples.
 */
export class RecordingHandle {
  private current: RecordingReader | null;
  /** The bytes of the last clip cut, reused by the next (see clipBytes). */
  private clip: ArrayBuffer | null = null;

  constructor(
    private readonly path: string,
    private readonly options: RecordingReaderOptions,
    opened: RecordingReader | null = null,
  ) {
    this.current = opened;
    if (opened) abandoned.register(this, opened, this);
  }

  /** The open reader (opened again when it was disposed). */
  reader(): RecordingReader {
    if (!this.current) {
      this.current = openRecordingReader(this.path, this.options);
      abandoned.register(this, this.current, this);
    }
    return this.current;
  }

  /**
   * `n` bytes for a clip of this recording, valid until the next clip is cut: every clip of a call
   * is cut in one buffer (as large as the largest clip so far) instead of in fresh memory, or in the
   * thread's call buffer, whose pages a call of thousands of turns would fill whole.
   */
  clipBytes(n: number): Uint8Array {
    if (!this.clip || this.clip.byteLength < n) this.clip = new ArrayBuffer(Math.ceil(n / CLIP_GRAIN) * CLIP_GRAIN);
    return new Uint8Array(this.clip, 0, n);
  }

  /** Close the file and delete any temporary decode. */
  dispose(): void {
    this.clip = null;
    if (!this.current) return;
    abandoned.unregister(this);
    this.current.dispose();
    this.current = null;
  }
}

/**
 * A turn's clip as deepeval's in-memory Audio (a 16-bit mono WAV of frames [from, to) of one
 * channel), whose bytes are cut from the recording each time they are asked for. They stay valid
 * until the next clip of the same recording is cut (one buffer per recording): read or copy them
 * before asking for another turn's bytes.
 */
export class RecordingSpanAudio extends Audio {
  constructor(
    private readonly recording: RecordingHandle,
    private readonly channel: number,
    private readonly from: number,
    private readonly to: number,
    rate: number,
    extra: { start_time: number; duration: number },
  ) {
    super(audioInit({ mimeType: "audio/wav", sampleRate: rate, duration: extra.duration, start_time: extra.start_time }), undefined, NO_BYTES);
  }

  override getBytes(): Uint8Array {
    const n = Math.max(0, this.to - this.from);
    const { bytes, samples } = allocateWavPcm16(n, this.sampleRate!, 1, this.recording.clipBytes(44 + 2 * n));
    if (n > 0) this.recording.reader().readInt16(this.channel, this.from, this.to, samples);
    return bytes;
  }

  override getBase64(): string | null {
    return encodeBase64(this.getBytes());
  }
}
