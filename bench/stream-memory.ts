// Memory of the streaming standards set (issue 11): WebAssembly memory and RSS while measureStandardsStream reads a long generated recording chunk by chunk.
//
// The source synthesises its chunks on the fly (voiced bursts and pauses, deterministic from the
// frame index), so nothing but the measurement holds the recording. Usage:
//   node --import tsx bench/stream-memory.ts <seconds> <sampleRate> <channels> [loudness|standards] [perChannel]
// Prints one JSON line: frames, wall time, real-time factor, final WebAssembly memory (it never
// shrinks, so it is the peak) and the peak RSS sampled after every chunk.
import { fileURLToPath } from "node:url";
import { measureStandardsStream } from "../src/analysis/acoustics-stream.js";
import type { PcmChunk, PcmSource } from "../src/audio/pcm-source.js";
import { getKernels } from "../src/dsp/wasm.js";

/** Tile length of the generated material (s): each tile is replayed with its own gain. */
const TILE_S = 32;

/**
 * A deterministic speech-like recording generated chunk by chunk: the channels talk in turn (1.5 s
 * voiced bursts at 4 syllables per second, F0 100–220 Hz, every 2 s), a 32 s tile per channel
 * replayed with a gain per tile; only one chunk is ever held.
 */
export function generatedSource(seconds: number, sampleRate: number, channels: number, onChunk: () => void = () => {}): PcmSource {
  const frames = Math.round(seconds * sampleRate);
  const tileLength = TILE_S * sampleRate;
  const tiles = Array.from({ length: channels }, (_, c) => {
    const x = new Float32Array(tileLength);
    for (let i = 0; i < tileLength; i++) {
      const t = i / sampleRate;
      const turn = Math.floor(t / 2);
      const local = t - 2 * turn;
      let v = 0.001 * Math.sin(7919 * i * (c + 1));
      if (turn % channels === c && local < 1.5) {
        const f0 = 100 + 120 * (((turn * 2654435761) >>> 0) / 2 ** 32);
        const env = Math.max(0, Math.sin(2 * Math.PI * 4 * local));
        const ph = 2 * Math.PI * f0 * local;
        v += env * (0.3 * Math.sin(ph) + 0.15 * Math.sin(2 * ph) + 0.08 * Math.sin(3 * ph));
      }
      x[i] = v;
    }
    return x;
  });
  return {
    sampleRate,
    channels,
    format: "wav/pcm16",
    frames,
    warnings: [],
    *chunks(maxFrames = 65536): Iterable<PcmChunk> {
      const samples = new Int16Array(maxFrames * channels);
      for (let at = 0; at < frames; at += maxFrames) {
        const n = Math.min(maxFrames, frames - at);
        for (let i = 0; i < n; i++) {
          const index = at + i;
          const tile = Math.floor(index / tileLength);
          const gain = 0.6 + 0.4 * Math.abs(Math.sin(tile * 1.7));
          const within = index - tile * tileLength;
          for (let c = 0; c < channels; c++) samples[i * channels + c] = Math.round(tiles[c][within] * gain * 32767);
        }
        onChunk();
        yield { frames: n, samples: samples.subarray(0, n * channels) };
      }
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [seconds, sampleRate, channels] = process.argv.slice(2, 5).map(Number);
  const set = (process.argv[5] ?? "standards") as "loudness" | "standards";
  const perChannel = process.argv[6] === "perChannel";
  let peakRss = process.memoryUsage().rss;
  let chunks = 0;
  const source = generatedSource(seconds, sampleRate, channels, () => {
    if (++chunks % 16 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
  });
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const result = measureStandardsStream(source, {}, { set, perChannel });
  const wall = (performance.now() - start) / 1000;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const mb = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
  process.stdout.write(`${JSON.stringify({
    seconds, sampleRate, channels, set, perChannel,
    wallS: Math.round(wall * 100) / 100,
    realtimeFactor: Math.round(seconds / wall),
    wasmMemoryMB: mb(getKernels().memory.buffer.byteLength),
    rssBeforeMB: mb(rssBefore),
    peakRssSampledMB: mb(peakRss),
    integratedLufs: result.acoustics.integrated_lufs,
    speechSegments: "speech_segments" in result.acoustics ? result.acoustics.speech_segments.length : null,
  })}\n`);
}
