// Finds ffmpeg ($FFMPEG_PATH, else PATH) and decodes any container it reads to 16-bit PCM WAV.
import { spawnSync } from "node:child_process";
import { accessSync, constants, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tempDir } from "./temp-dirs.js";
import { delimiter, join, resolve } from "node:path";

/** The last lookup and the environment it was made in ($FFMPEG_PATH and $PATH): a changed environment looks again. */
let cached: { env: string; path: string | null } | undefined;

/** Absolute path of the ffmpeg binary, or null when none is installed. */
export function findFfmpeg(): string | null {
  const fromEnv = process.env.FFMPEG_PATH;
  const env = `${fromEnv ?? ""}${delimiter}${process.env.PATH ?? ""}`;
  if (cached?.env !== env) cached = { env, path: lookUpFfmpeg(fromEnv) };
  return cached.path;
}

function lookUpFfmpeg(fromEnv: string | undefined): string | null {
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : null;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "ffmpeg");
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Bounds on one ffmpeg decode. */
export interface FfmpegBounds {
  /** Stop decoding after about this many seconds of output (the caller then sees more than it allowed). */
  maxSeconds?: number;
  /** Kill ffmpeg after this many milliseconds. */
  timeoutMs?: number;
}

/** Most bytes of decoded WAV taken from ffmpeg (the 4 GB a WAV can describe). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024 * 1024;

/**
 * Decode `bytes` with ffmpeg into a 16-bit PCM WAV at the native rate and channel count. The input
 * goes through a temporary file because some containers (MP4/M4A) need a seekable input.
 */
export function ffmpegToWav(
  ffmpeg: string,
  bytes: Uint8Array,
  bounds: FfmpegBounds = {},
): { ok: true; wav: Uint8Array } | { ok: false; message: string; code: "DECODE_ERROR" | "LIMIT_EXCEEDED" } {
  const dir = tempDir("decode");
  const input = join(dir, "input");
  let run;
  try {
    writeFileSync(input, bytes);
    run = spawnSync(
      ffmpeg,
      [...decodeArguments(input, bounds), "pipe:1"],
      { maxBuffer: MAX_OUTPUT_BYTES, stdio: ["ignore", "pipe", "pipe"], timeout: bounds.timeoutMs, killSignal: "SIGKILL" },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ffmpegOutcome(run, input, bounds, () => {
    const out = run.stdout;
    return { ok: true, wav: new Uint8Array(out.buffer, out.byteOffset, out.byteLength) };
  });
}

/** The ffmpeg arguments of one decode: the first audio stream, at most about `maxSeconds`, as 16-bit PCM WAV. */
function decodeArguments(input: string, bounds: FfmpegBounds): string[] {
  // `-t` stops decoding just past the budget, so an input that would expand without end costs only the budget.
  const duration = bounds.maxSeconds !== undefined && Number.isFinite(bounds.maxSeconds) ? ["-t", String(Math.ceil(bounds.maxSeconds) + 1)] : [];
  return ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", input, "-map", "0:a:0", ...duration, "-f", "wav", "-acodec", "pcm_s16le"];
}

type Failure = { ok: false; message: string; code: "DECODE_ERROR" | "LIMIT_EXCEEDED" };

/** A finished ffmpeg run as success (`ok()`) or the failure decodeAudio reports; `input` is stripped from ffmpeg's words. */
function ffmpegOutcome<T>(run: ReturnType<typeof spawnSync>, input: string, bounds: FfmpegBounds, ok: () => T, outputBytes?: number): T | Failure {
  if (run.error) {
    const code = (run.error as NodeJS.ErrnoException).code;
    if (code === "ETIMEDOUT") return { ok: false, code: "LIMIT_EXCEEDED", message: `ffmpeg did not finish decoding within ${(bounds.timeoutMs ?? 0) / 1000} s` };
    if (code === "ENOBUFS") return { ok: false, code: "LIMIT_EXCEEDED", message: `ffmpeg's output exceeded ${MAX_OUTPUT_BYTES} bytes` };
    return { ok: false, code: "DECODE_ERROR", message: `ffmpeg could not run: ${run.error.message}` };
  }
  const produced = outputBytes ?? (run.stdout as Buffer).length;
  if (outputBytes !== undefined && outputBytes >= MAX_OUTPUT_BYTES - (1 << 20)) return { ok: false, code: "LIMIT_EXCEEDED", message: `ffmpeg's output exceeded ${MAX_OUTPUT_BYTES} bytes` };
  if (run.status !== 0 || produced <= 44) {
    // ffmpeg's words without the temporary file's name and its "[demuxer @ 0x…]" prefixes: the caller names the user's file.
    const why = (run.stderr as Buffer)
      .toString("utf8")
      .split(input + ": ").join("")
      .split(input).join("the input")
      .replace(/\[[^\]\n]* @ 0x[0-9a-f]+\] ?/g, "")
      .trim()
      .split("\n")
      .slice(-2)
      .join(" ")
      .trim();
    return { ok: false, code: "DECODE_ERROR", message: `ffmpeg could not decode it${why ? `: ${why}` : ""}` };
  }
  return ok();
}

/**
 * Decode the file at `path` with ffmpeg into a 16-bit PCM WAV file in a new temporary folder, the
 * same decode as ffmpegToWav (the same arguments, the input seen through a link named like its
 * temporary copy) without holding the output in memory: ffmpeg writes the WAV to disk and the
 * caller reads it in chunks, then removes `dir`. On failure nothing is left behind. The output is
 * bounded by `-t` (the decode budget) and `-fs` (the 4 GB a WAV can describe). `kind` names the
 * temporary folder (temp-dirs.ts), which a later process removes if this one is killed meanwhile.
 */
export function ffmpegToWavFile(
  ffmpeg: string,
  path: string,
  bounds: FfmpegBounds = {},
  kind = "decode",
): { ok: true; dir: string; wav: string } | Failure {
  const dir = tempDir(kind);
  const input = join(dir, "input");
  const wav = join(dir, "decoded.wav");
  let done = false;
  try {
    symlinkSync(resolve(path), input);
    const run = spawnSync(ffmpeg, [...decodeArguments(input, bounds), "-fs", String(MAX_OUTPUT_BYTES), wav], {
      maxBuffer: 16 * 1024 * 1024,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: bounds.timeoutMs,
      killSignal: "SIGKILL",
    });
    let size = 0;
    try {
      size = statSync(wav).size;
    } catch {
      // no output at all
    }
    const outcome = ffmpegOutcome(run, input, bounds, () => ({ ok: true as const, dir, wav }), size);
    done = outcome.ok;
    return outcome;
  } finally {
    if (!done) rmSync(dir, { recursive: true, force: true });
  }
}
