// Decoded PCM as the rest of the engine sees it.

/** The result of decoding one audio file. */
export interface DecodedAudio {
  sampleRate: number;
  channels: number;
  /** Frames (samples per channel). */
  frames: number;
  /** Interleaved int16 samples after the conversions of formats.md §F0.3. */
  samples: Int16Array;
  /** The exact float samples, planar, when the source was floating point (standards measurements use them). */
  floatChannels?: Float32Array[];
  /** What was decoded, e.g. `wav/pcm16`, `wav/float32`, `ffmpeg/mp3`. */
  format: string;
  /** Non-fatal observations (e.g. odd trailing byte ignored). */
  warnings: string[];
}
