// External reference tools for the acoustics tests: locating ffmpeg / espeak-ng / sox, running them, parsing their reports.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readWav, writeWav16, type PlanarAudio } from "./wav.js";

function onPath(name: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** ffmpeg from $FFMPEG_PATH, else PATH; null when absent. */
export const FFMPEG: string | null = process.env.FFMPEG_PATH && existsSync(process.env.FFMPEG_PATH) ? process.env.FFMPEG_PATH : onPath("ffmpeg");
export const ESPEAK: string | null = onPath("espeak-ng");
export const SOX: string | null = onPath("sox");

/** A scratch folder shared by the acoustics tests (generated speech is cached there). */
export function scratchDir(): string {
  const dir = join(tmpdir(), "voxmetrics-acoustics");
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface FfmpegLoudness {
  integratedLufs: number;
  loudnessRangeLu: number;
  truePeakDbtp: number;
}

/** Run `ffmpeg -nostats -i file -af ebur128=peak=true -f null -` and parse its summary (acoustics.md §1.8). */
export function ffmpegEbur128(path: string): FfmpegLoudness {
  const r = spawnSync(FFMPEG!, ["-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"], { encoding: "utf8", maxBuffer: 1 << 28 });
  const summary = r.stderr.slice(r.stderr.lastIndexOf("Summary:"));
  const grab = (re: RegExp) => Number(re.exec(summary)![1]);
  return {
    integratedLufs: grab(/I:\s+(-?[\d.]+) LUFS/),
    loudnessRangeLu: grab(/LRA:\s+(-?[\d.]+) LU/),
    truePeakDbtp: grab(/Peak:\s+(-?[\d.]+) dBFS/),
  };
}

/** Silences reported by `silencedetect=n=<noiseDb>dB:d=<minSeconds>` as [start, end] pairs. */
export function ffmpegSilences(path: string, noiseDb: number, minSeconds: number): Array<[number, number]> {
  const r = spawnSync(FFMPEG!, ["-nostats", "-hide_banner", "-i", path, "-af", `silencedetect=n=${noiseDb}dB:d=${minSeconds}`, "-f", "null", "-"], { encoding: "utf8", maxBuffer: 1 << 28 });
  const out: Array<[number, number]> = [];
  let start: number | null = null;
  for (const line of r.stderr.split("\n")) {
    const s = /silence_start: (-?[\d.e+-]+)/.exec(line);
    if (s) start = Number(s[1]);
    const e = /silence_end: (-?[\d.e+-]+)/.exec(line);
    if (e && start !== null) { out.push([start, Number(e[1])]); start = null; }
  }
  return out;
}

/** espeak-ng speech for `text` at `wpm` words per minute (22 050 Hz mono), cached on disk. */
export function speak(text: string, wpm: number, voice = "en-us"): PlanarAudio {
  const key = Buffer.from(`${voice}|${wpm}|${text}`).toString("base64url").slice(0, 80);
  const path = join(scratchDir(), `espeak-${key}-${text.length}.wav`);
  if (!existsSync(path)) execFileSync(ESPEAK!, ["-v", voice, "-s", String(wpm), "-w", path, text]);
  return readWav(path);
}

/** Resample a WAV with sox (its default high-quality `rate`) to `rate` Hz and return the new path. */
export function resampleWav(path: string, rate: number, outPath: string): string {
  execFileSync(SOX!, [path, "-r", String(rate), outPath]);
  return outPath;
}

export { writeWav16 };
