// Clip duration for the call timeline as deepeval computes it (voice-metrics.md §4.3): WAV length, metadata as fallback.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { locateCompatWav, type ByteAccess } from "./wav-compat.js";

/**
 * deepeval's `audio_duration` on WAV bytes: (data bytes / 2 / channels) / rate for a 16-bit PCM WAV
 * Python's `wave` opens (odd byte counts are fine here); null when it cannot (the caller then uses metadata).
 */
export function compatWavDuration(bytes: Uint8Array): number | null {
  return compatWavDurationOf({ length: bytes.length, bytes: (start, end) => bytes.subarray(start, end) });
}

/** compatWavDuration of the file at `path`, reading only its chunk headers (null also when it cannot be read). */
export function compatWavDurationAt(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const length = fstatSync(fd).size;
    return compatWavDurationOf({
      length,
      bytes: (start, end) => {
        end = Math.min(end, length);
        if (!(end > start)) return new Uint8Array(0);
        const out = new Uint8Array(end - start);
        let got = 0;
        while (got < out.length) {
          const n = readSync(fd, out, got, out.length - got, start + got);
          if (n === 0) break;
          got += n;
        }
        return out.subarray(0, got);
      },
    });
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function compatWavDurationOf(access: ByteAccess): number | null {
  try {
    const wav = locateCompatWav(access);
    if (wav.sampleWidth !== 2 || wav.sampleRate === 0) return null;
    return wav.dataLength / 2 / Math.max(wav.channels, 1) / wav.sampleRate;
  } catch {
    return null;
  }
}
