// The built-in offline text-to-speech: espeak-ng (Debian package espeak-ng) behind the TextToSpeech interface of §L9.
import { spawn, spawnSync } from "node:child_process";
import { resamplePcm16 } from "../audio/resample.js";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { Audio } from "../model/audio.js";
import { VoxError } from "../model/errors.js";
import type { SynthesisResult, SynthesizeOptions, TextToSpeech } from "./types.js";

/** Options of the espeak-ng text-to-speech: voice, rate, pitch, sample rate. */
export interface EspeakTtsOptions {
  /**
   * espeak-ng voice (`espeak-ng --voices` lists them; variants as `en-us+f3`).
   * @defaultValue "en-us"
   */
  voice?: string;
  /**
   * Speaking rate in words per minute (espeak-ng `-s`, 80–450).
   * @defaultValue 165
   */
  wordsPerMinute?: number;
  /**
   * Pitch, 0–99 (espeak-ng `-p`).
   * @defaultValue 50
   */
  pitch?: number;
  /** Output rate in Hz; espeak-ng speaks at 22050 and is resampled (band-limited) to any other. */
  sampleRate?: number;
  /** The espeak-ng executable (default: `$ESPEAK_NG_PATH`, else `espeak-ng` on PATH). */
  executable?: string;
}

/** Defaults of the espeak-ng text-to-speech. */
export const DEFAULT_ESPEAK_TTS_OPTIONS = Object.freeze({ voice: "en-us", wordsPerMinute: 165, pitch: 50, sampleRate: 22050 });

/** espeak-ng's native output rate. */
const ESPEAK_RATE = 22050;

/** How to install espeak-ng (appended to errors when it is missing). */
export const ESPEAK_INSTALL_HINT =
  "espeak-ng is not installed (or not on PATH): install it with `apt-get install -y --no-install-recommends espeak-ng` " +
  "(Debian/Ubuntu), `brew install espeak-ng` (macOS), or set ESPEAK_NG_PATH; or give caller turns as WAV files (`audio`) instead of `text`.";

/**
 * A persona's OpenAI voice name as an espeak-ng voice (gender by the voice's usual timbre), so goldens
 * written for OpenAI TTS run offline; any other name is passed to espeak-ng as it is.
 */
export const ESPEAK_VOICE_FOR_OPENAI_VOICE: Readonly<Record<string, string>> = Object.freeze({
  alloy: "en-us",
  ash: "en-us+m3",
  ballad: "en-gb+m2",
  coral: "en-us+f3",
  echo: "en-us+m1",
  fable: "en-gb",
  nova: "en-us+f2",
  onyx: "en-us+m4",
  sage: "en-us+f4",
  shimmer: "en-us+f1",
  verse: "en-us+m2",
});

/** espeak-ng options overlaid on DEFAULT_ESPEAK_TTS_OPTIONS and validated. */
export function resolveEspeakTtsOptions(o: EspeakTtsOptions = {}): Required<EspeakTtsOptions> {
  const r = { ...DEFAULT_ESPEAK_TTS_OPTIONS, executable: process.env.ESPEAK_NG_PATH || "espeak-ng", ...o };
  if (!/^[A-Za-z0-9_+\-.]+$/.test(r.voice)) throw new VoxError("INVALID_OPTION", `not a voice name: ${JSON.stringify(r.voice)}`, { field: "voice" });
  if (!Number.isInteger(r.wordsPerMinute) || r.wordsPerMinute < 80 || r.wordsPerMinute > 450) throw new VoxError("INVALID_OPTION", `must be an integer in [80, 450], got ${r.wordsPerMinute}`, { field: "wordsPerMinute" });
  if (!Number.isInteger(r.pitch) || r.pitch < 0 || r.pitch > 99) throw new VoxError("INVALID_OPTION", `must be an integer in [0, 99], got ${r.pitch}`, { field: "pitch" });
  if (!Number.isInteger(r.sampleRate) || r.sampleRate < 8000) throw new VoxError("INVALID_OPTION", `must be an integer rate ≥ 8000 Hz, got ${r.sampleRate}`, { field: "sampleRate" });
  return r;
}

/** The samples of espeak-ng's `--stdout` WAV (its header sizes are placeholders, so the data runs to the end). */
function pcmOfEspeakWav(bytes: Uint8Array): Int16Array {
  const ascii = (o: number) => String.fromCharCode(bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]);
  if (bytes.length < 12 || ascii(0) !== "RIFF" || ascii(8) !== "WAVE") throw new VoxError("TTS_UNAVAILABLE", "espeak-ng did not write a WAV file");
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = 12;
  while (o + 8 <= bytes.length) {
    const id = ascii(o);
    const size = v.getUint32(o + 4, true);
    if (id === "data") {
      const body = bytes.subarray(o + 8);
      const out = new Int16Array(body.length >> 1);
      new Uint8Array(out.buffer).set(body.subarray(0, out.length * 2));
      return out;
    }
    o += 8 + size + (size & 1);
  }
  throw new VoxError("TTS_UNAVAILABLE", "espeak-ng's WAV has no data chunk");
}

/** Offline TTS through espeak-ng: a WAV `Audio` at `sampleRate`, cost 0. */
export class EspeakTts implements TextToSpeech {
  readonly modelName: string;
  readonly sampleRate: number;
  private readonly o: Required<EspeakTtsOptions>;

  constructor(options: EspeakTtsOptions = {}) {
    this.o = resolveEspeakTtsOptions(options);
    this.sampleRate = this.o.sampleRate;
    this.modelName = `espeak-ng:${this.o.voice}`;
  }

  /** True when the executable runs (`--version`). */
  static isAvailable(executable = process.env.ESPEAK_NG_PATH || "espeak-ng"): boolean {
    const r = spawnSync(executable, ["--version"], { stdio: "ignore", timeout: 5000 });
    return r.status === 0;
  }

  async synthesize(text: string, options: SynthesizeOptions = {}): Promise<SynthesisResult> {
    const voice = options.voice ? (ESPEAK_VOICE_FOR_OPENAI_VOICE[options.voice.toLowerCase()] ?? options.voice) : this.o.voice;
    if (!/^[A-Za-z0-9_+\-.]+$/.test(voice)) throw new VoxError("INVALID_OPTION", `not a voice name: ${JSON.stringify(voice)}`, { field: "voice" });
    const args = ["--stdout", "-v", voice, "-s", String(this.o.wordsPerMinute), "-p", String(this.o.pitch), "--", text];
    const wav = await new Promise<Uint8Array>((resolve, reject) => {
      const child = spawn(this.o.executable, args, { stdio: ["ignore", "pipe", "pipe"], signal: options.signal });
      const out: Buffer[] = [];
      let err = "";
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => (err += b.toString()));
      child.on("error", (e: NodeJS.ErrnoException) => {
        reject(e.code === "ENOENT" ? new VoxError("TTS_UNAVAILABLE", ESPEAK_INSTALL_HINT) : new VoxError("TTS_UNAVAILABLE", `espeak-ng failed: ${e.message}`));
      });
      child.on("close", (code) => {
        if (code === 0) resolve(Buffer.concat(out));
        else reject(new VoxError("TTS_UNAVAILABLE", `espeak-ng exited with code ${code}${err ? `: ${err.trim().slice(0, 200)}` : ""} (voice ${voice})`));
      });
    });
    let pcm = pcmOfEspeakWav(wav);
    if (this.sampleRate !== ESPEAK_RATE) pcm = resamplePcm16(pcm, ESPEAK_RATE, this.sampleRate);
    const audio = Audio.fromBytes(writeWavPcm16(pcm, this.sampleRate), "audio/wav", { sampleRate: this.sampleRate, encoding: "wav", duration: pcm.length / this.sampleRate });
    return { audio, costUsd: 0 };
  }
}
