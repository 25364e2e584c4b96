// Generated dual-channel call recordings of any length (16-bit stereo WAV written block by block, never whole in memory): voiced bursts alternating between caller (left) and agent (right) with pauses and some overlaps, over faint noise.
import { closeSync, openSync, writeSync } from "node:fs";
import { seededRandom } from "./random.js";

export interface LongRecordingSpec {
  seconds: number;
  sampleRate: number;
  seed?: number;
  /** Length range of one party's burst of speech (s). @defaultValue [0.6, 3] */
  burst?: [number, number];
  /** Pause range between bursts (s). @defaultValue [0.25, 1.75] */
  pause?: [number, number];
}

/** Pre-rendered bursts per party: a harmonic tone with a syllable-rate envelope, soft attack and release. */
function renderBursts(rate: number, random: () => number, range: [number, number], f0Base: number): Int16Array[] {
  return Array.from({ length: 10 }, () => {
    const n = Math.max(1, Math.round((range[0] + (range[1] - range[0]) * random()) * rate));
    const f0 = f0Base + 40 * random();
    const gain = 0.15 + 0.35 * random();
    const out = new Int16Array(n);
    for (let k = 0; k < n; k++) {
      const s = k / rate;
      const envelope = Math.min(1, s / 0.03) * Math.min(1, (n - k) / rate / 0.12) * (0.55 + 0.45 * Math.sin(2 * Math.PI * 4.3 * s));
      let v = 0;
      for (let h = 1; h <= 5; h++) v += Math.sin(2 * Math.PI * f0 * h * s) / h;
      out[k] = Math.round(Math.max(-1, Math.min(1, gain * envelope * v * 0.5)) * 32767);
    }
    return out;
  });
}

/** Write the recording to `path`; returns its frames and how many bursts each party got. */
export function writeLongRecording(path: string, spec: LongRecordingSpec): { frames: number; bursts: [number, number] } {
  const rate = spec.sampleRate;
  const random = seededRandom(spec.seed ?? 7);
  const frames = Math.round(spec.seconds * rate);
  const dataBytes = frames * 4;
  if (dataBytes + 36 > 0xffffffff) throw new RangeError(`${spec.seconds} s at ${rate} Hz does not fit a WAV file`);
  const bursts = [renderBursts(rate, random, spec.burst ?? [0.6, 3], 120), renderBursts(rate, random, spec.burst ?? [0.6, 3], 190)];
  const [pauseMin, pauseMax] = spec.pause ?? [0.25, 1.75];

  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);

  // The schedule is made as the writing advances: bursts (start frame, party, pcm) still sounding.
  const active: Array<{ start: number; side: number; pcm: Int16Array }> = [];
  const count: [number, number] = [0, 0];
  let nextStart = Math.round((0.3 + random()) * rate);
  let side = 0;
  const block = rate; // one second per write
  const pcm = new Int16Array(block * 2);
  let noise = (spec.seed ?? 7) >>> 0 || 1;
  const fd = openSync(path, "w");
  try {
    writeSync(fd, header);
    for (let at = 0; at < frames; at += block) {
      const n = Math.min(block, frames - at);
      for (let i = 0; i < 2 * n; i++) {
        noise = (Math.imul(noise, 1103515245) + 12345) >>> 0;
        pcm[i] = ((noise >>> 16) % 31) - 15;
      }
      while (nextStart < at + n && nextStart < frames - rate) {
        const list = bursts[side];
        const burst = list[Math.floor(random() * list.length)];
        active.push({ start: nextStart, side, pcm: burst });
        count[side]++;
        const overlap = random() < 0.15;
        nextStart += burst.length + Math.round((overlap ? -0.3 * random() : pauseMin + (pauseMax - pauseMin) * random()) * rate);
        nextStart = Math.max(nextStart, active[active.length - 1].start + 1);
        side = random() < 0.8 ? 1 - side : side;
      }
      for (let b = active.length - 1; b >= 0; b--) {
        const { start, side: s, pcm: burst } = active[b];
        const from = Math.max(at, start);
        const to = Math.min(at + n, start + burst.length);
        for (let f = from; f < to; f++) {
          const o = 2 * (f - at) + s;
          pcm[o] = Math.max(-32768, Math.min(32767, pcm[o] + burst[f - start]));
        }
        if (start + burst.length <= at + n) active.splice(b, 1);
      }
      writeSync(fd, new Uint8Array(pcm.buffer, 0, 4 * n));
    }
  } finally {
    closeSync(fd);
  }
  return { frames, bursts: count };
}
