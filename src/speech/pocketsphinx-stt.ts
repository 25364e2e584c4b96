// Offline speech-to-text through CMU pocketsphinx's command-line decoder (Debian packages pocketsphinx + pocketsphinx-en-us), implementing SpeechToText.
import { access, constants, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { Audio } from "../model/audio.js";
import { toMonoPcm16Wav } from "./audio-input.js";
import { SpeechModelError } from "./errors.js";
import { overlayOptions } from "./options.js";
import { runTool, withTempDir } from "./run-tool.js";
import type { SpeechToText, TranscribeOptions, TranscriptionResult } from "./types.js";

/** Options of the pocketsphinx recogniser. */
export interface PocketsphinxOptions {
  /**
   * The `pocketsphinx_continuous` binary; null = $POCKETSPHINX_PATH, else the first on $PATH.
   * @defaultValue null
   */
  binary: string | null;
  /**
   * Folder of the model: acoustic model in `<modelDir>/en-us`, language model `en-us.lm.bin`, dictionary `cmudict-en-us.dict` (Debian's layout).
   * @defaultValue "/usr/share/pocketsphinx/model/en-us"
   */
  modelDir: string;
  /**
   * Language the model recognises (BCP-47); a transcription asked in another language is refused, `"auto"` is taken as this one.
   * @defaultValue "en"
   */
  language: string;
  /**
   * Longest run for one clip (ms) before the decoder is killed.
   * @defaultValue 120000
   */
  timeoutMs: number;
  /**
   * Silence appended to interrupted audio before transcription (s), as deepeval's OpenAI STT does.
   * @defaultValue 0.3
   */
  truncatedAudioPadSeconds: number;
  /**
   * Extra command-line arguments for the decoder (e.g. `["-lw", "10"]`).
   * @defaultValue []
   */
  extraArgs: readonly string[];
}

/** Defaults of the pocketsphinx speech-to-text. */
export const DEFAULT_POCKETSPHINX_OPTIONS: Readonly<PocketsphinxOptions> = Object.freeze({
  binary: null,
  modelDir: "/usr/share/pocketsphinx/model/en-us",
  language: "en",
  timeoutMs: 120_000,
  truncatedAudioPadSeconds: 0.3,
  extraArgs: Object.freeze([]) as readonly string[],
});

/** Defaults overlaid with `partial`; throws a RangeError naming the field and its allowed values. */
export function resolvePocketsphinxOptions(partial: Partial<PocketsphinxOptions> = {}): PocketsphinxOptions {
  const o = overlayOptions(DEFAULT_POCKETSPHINX_OPTIONS, partial, "pocketsphinx");
  if (o.binary !== null && (typeof o.binary !== "string" || o.binary === "")) throw new RangeError("pocketsphinx option binary must be a path or null");
  if (typeof o.modelDir !== "string" || o.modelDir === "") throw new RangeError("pocketsphinx option modelDir must be a folder path");
  if (typeof o.language !== "string" || !/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(o.language)) throw new RangeError(`pocketsphinx option language must be a language code like "en", got ${String(o.language)}`);
  if (!Number.isInteger(o.timeoutMs) || o.timeoutMs < 100 || o.timeoutMs > 3_600_000) throw new RangeError(`pocketsphinx option timeoutMs must be an integer in [100, 3600000], got ${String(o.timeoutMs)}`);
  if (!(o.truncatedAudioPadSeconds >= 0 && o.truncatedAudioPadSeconds <= 10)) throw new RangeError(`pocketsphinx option truncatedAudioPadSeconds must be in [0, 10], got ${String(o.truncatedAudioPadSeconds)}`);
  if (!Array.isArray(o.extraArgs) || o.extraArgs.some((a) => typeof a !== "string")) throw new RangeError("pocketsphinx option extraArgs must be an array of strings");
  return o;
}

/** Sample rate of the en-us model (it also needs 16-bit mono, which toMonoPcm16Wav gives). */
const MODEL_SAMPLE_RATE = 16_000;
const BINARY = "pocketsphinx_continuous";

export const POCKETSPHINX_INSTALL_HINT =
  "Install it with `apt-get install pocketsphinx pocketsphinx-en-us` (Debian/Ubuntu), or set $POCKETSPHINX_PATH to the pocketsphinx_continuous binary and modelDir to a model folder.";

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The pocketsphinx_continuous binary: $POCKETSPHINX_PATH, else the first on $PATH; null when absent. */
export async function findPocketsphinx(env: Readonly<Record<string, string | undefined>> = process.env): Promise<string | null> {
  if (env.POCKETSPHINX_PATH) return (await isExecutable(env.POCKETSPHINX_PATH)) ? env.POCKETSPHINX_PATH : null;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && (await isExecutable(join(dir, BINARY)))) return join(dir, BINARY);
  }
  return null;
}

/** Speech-to-text with pocketsphinx: offline, English (or whatever model `modelDir` holds), free. */
export class PocketsphinxSpeechToText implements SpeechToText {
  readonly modelName: string;
  readonly truncatedAudioPadSeconds: number;
  readonly options: Readonly<PocketsphinxOptions>;
  private installation: Promise<string> | null = null;

  constructor(options: Partial<PocketsphinxOptions> = {}) {
    this.options = Object.freeze(resolvePocketsphinxOptions(options));
    this.truncatedAudioPadSeconds = this.options.truncatedAudioPadSeconds;
    this.modelName = `pocketsphinx-${this.options.modelDir.split(/[\\/]/).filter(Boolean).pop() ?? "model"}`;
  }

  /** The binary to run, after checking it and the model files exist; throws TOOL_MISSING with an install hint otherwise. */
  checkInstallation(): Promise<string> {
    this.installation ??= this.locate().catch((e: unknown) => {
      this.installation = null;
      throw e;
    });
    return this.installation;
  }

  private async locate(): Promise<string> {
    const binary = this.options.binary ?? (await findPocketsphinx());
    if (!binary || !(await isExecutable(binary))) {
      throw new SpeechModelError("TOOL_MISSING", `${this.modelName}: ${this.options.binary ?? BINARY} was not found. ${POCKETSPHINX_INSTALL_HINT}`, { model: this.modelName });
    }
    for (const file of this.modelFiles()) {
      const found = await access(file, constants.R_OK).then(
        () => true,
        () => false,
      );
      if (!found) throw new SpeechModelError("TOOL_MISSING", `${this.modelName}: model file ${file} is missing. ${POCKETSPHINX_INSTALL_HINT}`, { model: this.modelName, endpoint: binary });
    }
    return binary;
  }

  private modelFiles(): [hmm: string, lm: string, dict: string] {
    const dir = this.options.modelDir;
    return [join(dir, "en-us"), join(dir, "en-us.lm.bin"), join(dir, "cmudict-en-us.dict")];
  }

  async transcribe(audio: Audio, options: TranscribeOptions = {}): Promise<TranscriptionResult> {
    const language = options.language;
    if (language !== undefined && language !== "auto" && language.split("-")[0].toLowerCase() !== this.options.language.split("-")[0].toLowerCase()) {
      throw new SpeechModelError("INVALID_OPTION", `${this.modelName}: the model recognises "${this.options.language}" only, not "${language}" (use an STT model for that language)`, { model: this.modelName });
    }
    const binary = await this.checkInstallation();
    const { wav, frames } = await toMonoPcm16Wav(audio, MODEL_SAMPLE_RATE, { model: this.modelName, signal: options.signal, timeoutMs: this.options.timeoutMs });
    // No samples, nothing said: the decoder would refuse an empty file.
    if (frames === 0) return { text: "", costUsd: 0 };
    const [hmm, lm, dict] = this.modelFiles();
    const run = await withTempDir(async (dir) => {
      const input = join(dir, "input.wav");
      await writeFile(input, wav);
      const args = ["-infile", input, "-hmm", hmm, "-lm", lm, "-dict", dict, "-samprate", String(MODEL_SAMPLE_RATE), ...this.options.extraArgs];
      return runTool(binary, args, { model: this.modelName, timeoutMs: this.options.timeoutMs, signal: options.signal, installHint: POCKETSPHINX_INSTALL_HINT });
    });
    // One line per utterance the decoder's endpointer found.
    const text = run.stdout
      .toString("utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" ");
    return { text, costUsd: 0 };
  }
}
