// Test helpers of the per-input contract: the built CLI run as a child process, and WAV headers of any shape written byte by byte.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/shared.js";

export const CLI = join(REPO_ROOT, "bin", "voxmetrics.js");

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI (bounded by `timeoutMs`); stdout and stderr as text. */
export function runBuiltCli(args: string[], options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; stdio?: "pipe" | [string, string | number, string] } = {}): CliRun {
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
    env: { ...process.env, ...options.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** The JSON lines of a CLI's stdout. */
export function jsonLines(text: string): Array<Record<string, any>> {
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

export interface WavHeaderSpec {
  rate?: number;
  channels?: number;
  tag?: number;
  bits?: number;
  /** Interleaved 16-bit samples (PCM tag 1, 16 bits), or raw data bytes. */
  data?: Int16Array | Uint8Array;
  /** Declared data size (defaults to the real size). */
  dataSize?: number;
  /** Declared average byte rate (defaults to what the format implies). */
  byteRate?: number;
}

/** A RIFF/WAVE file with any header values (written with raw writes, so out-of-range values stay as given). */
export function wavBytes(spec: WavHeaderSpec): Buffer {
  const channels = spec.channels ?? 1;
  const rate = spec.rate ?? 16000;
  const bits = spec.bits ?? 16;
  const raw = spec.data instanceof Int16Array ? Buffer.from(spec.data.buffer, spec.data.byteOffset, spec.data.byteLength) : Buffer.from(spec.data ?? new Uint8Array(0));
  const b = Buffer.alloc(44);
  b.write("RIFF", 0);
  b.writeUInt32LE((36 + raw.length) >>> 0, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(spec.tag ?? 1, 20);
  b.writeUInt16LE(channels & 0xffff, 22);
  b.writeUInt32LE(rate >>> 0, 24);
  b.writeUInt32LE((spec.byteRate ?? rate * channels * (bits / 8)) >>> 0, 28);
  b.writeUInt16LE((channels * (bits / 8)) & 0xffff, 32);
  b.writeUInt16LE(bits, 34);
  b.write("data", 36);
  b.writeUInt32LE((spec.dataSize ?? raw.length) >>> 0, 40);
  return Buffer.concat([b, raw]);
}

/** A voiced-sounding test signal: a 150 Hz pulse-rich tone with syllable-like 4 Hz bursts, 16-bit mono. */
export function speechLike(rate: number, seconds: number): Int16Array {
  const n = Math.round(rate * seconds);
  return Int16Array.from({ length: n }, (_, i) => {
    const t = i / rate;
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
    const voice = Math.sin(2 * Math.PI * 150 * t) + 0.5 * Math.sin(2 * Math.PI * 300 * t) + 0.25 * Math.sin(2 * Math.PI * 450 * t);
    return Math.round(9000 * envelope * voice);
  });
}
