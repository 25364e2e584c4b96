// deepeval's `Audio` record (voice-metrics.md §1.1): url or bytes plus metadata, with its validation rules and messages.
import { decodeBase64Python, encodeBase64 } from "./base64.js";

/** The fields a caller may give (deepeval's constructor arguments; camelCase except `start_time`). */
export interface AudioInit {
  dataBase64?: string | null;
  mimeType?: string | null;
  url?: string | null;
  sampleRate?: number | null;
  encoding?: string | null;
  duration?: number | null;
  start_time?: number | null;
}

/**
 * How a local `url` was resolved by the (impure) ingest layer; the model itself never touches the
 * file system. Either the bytes already read, or (what ingest gives) a reader called each time the
 * bytes are asked for, so that a long recording named by a url is never held by its Audio: analysis
 * reads such a file from disk in bounded chunks through `path`.
 */
export type ResolvedLocalFile =
  | {
    /** Absolute path of the file that exists. */
    path: string;
    /** Its bytes. */
    bytes: Uint8Array;
  }
  | {
    /** Absolute path of the file that exists (and could be opened when the url was resolved). */
    path: string;
    /** Reads its bytes (each call reads the file again; errors are the file system's). */
    read: () => Uint8Array;
  };

/** A `ValueError` of deepeval's Audio, with the exact message. */
export class AudioValidationError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = "AudioValidationError";
    this.field = field;
  }
}

/** The one extension → MIME map of the engine (formats.md F2.5, F3.6): for urls, turn files and data: URIs alike. */
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = Object.freeze({
  wav: "audio/wav",
  wave: "audio/wav",
  mp3: "audio/mpeg",
  opus: "audio/opus",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  m4a: "audio/mp4",
  mp4: "audio/mp4",
  webm: "audio/webm",
  pcm: "audio/pcm",
});

/** The MIME type of an audio file name or bare extension (`calls/a.MP3`, `mp3`), null when the extension is unknown. */
export function guessMimeType(nameOrExtension: string): string | null {
  const m = /(?:^|\.)([A-Za-z0-9]+)$/.exec(nameOrExtension);
  return m ? MIME_BY_EXTENSION[m[1].toLowerCase()] ?? null : null;
}

function basename(p: string): string {
  const clean = p.split(/[?#]/)[0];
  const parts = clean.split(/[\\/]/);
  return parts[parts.length - 1] ?? "";
}

/**
 * Every field of an AudioInit, absent ones null, in one order: the constructor then always reads
 * one shape, whichever ingest format built it, and stays optimised.
 */
export function audioInit(fields: AudioInit): Required<AudioInit> {
  return {
    dataBase64: fields.dataBase64 ?? null,
    mimeType: fields.mimeType ?? null,
    url: fields.url ?? null,
    sampleRate: fields.sampleRate ?? null,
    encoding: fields.encoding ?? null,
    duration: fields.duration ?? null,
    start_time: fields.start_time ?? null,
  };
}

/** Reads a local audio file named by a `url` (relative paths against `baseDir`, else the working directory); null when it is not an existing local file. */
export type LocalAudioResolver = (url: string, baseDir?: string) => ResolvedLocalFile | null;

/** Options of `new Audio(init, options)`. */
export interface AudioOptions {
  /** The folder a relative local `url` resolves against. @defaultValue the working directory */
  baseDir?: string;
}

let defaultLocalResolver: LocalAudioResolver | null = null;

/**
 * Install how `new Audio({ url })` reads local files when no resolver is given (the model is pure;
 * the library's Node entry installs a file-system resolver). Internal: not part of the public API.
 */
export function setDefaultLocalAudioResolver(resolver: LocalAudioResolver | null): void {
  defaultLocalResolver = resolver;
}

let idCounter = 0;
function newId(): string {
  const rnd = (n: number) => Math.floor(Math.random() * 16 ** n).toString(16).padStart(n, "0");
  idCounter = (idCounter + 1) % 0x10000;
  return rnd(8) + rnd(8) + rnd(8) + rnd(4) + idCounter.toString(16).padStart(4, "0");
}

/**
 * Audio of one turn, as deepeval's `Audio`: a `url` (an existing local file, or http(s)) or inline
 * `dataBase64` with its `mimeType`, plus optional metadata (`start_time` places it on the call clock).
 *
 * A local path works as in deepeval: `new Audio({ url: "./clip.wav" })` reads the file, relative to
 * the working directory or to `{ baseDir }`; a path that does not exist (and is not http(s)) is
 * deepeval's "Invalid remote URL format" error. `Audio.fromBytes(bytes, "audio/wav")` builds it in memory.
 *
 * @example
 * ```ts
 * const a = new Audio({ url: "calls/clip.wav", start_time: 1.5 });
 * const b = new Audio({ url: "clip.wav" }, { baseDir: "/data/calls" });
 * ```
 */
export class Audio {
  dataBase64: string | null;
  mimeType: string | null;
  url: string | null;
  sampleRate: number | null;
  encoding: string | null;
  duration: number | null;
  start_time: number | null;
  private _local: boolean | null = null;
  private _filename: string | null = null;
  private _id: string = newId();
  /** Raw bytes when they are already known (avoids a base64 round trip). Not part of the dump. */
  private _bytes: Uint8Array | null = null;
  /** Reads the bytes of a local file on demand (they are not kept). */
  private _read: (() => Uint8Array) | null = null;
  /** The absolute path the bytes came from, when local. */
  private _path: string | null = null;
  /** True when the bytes were given inline (base64 or from bytes) rather than by url. */
  private _inline = false;

  /**
   * @param init - deepeval's constructor fields.
   * @param resolveLocal - `{ baseDir }` for relative local paths, or (ingest) a function that reads a local url.
   * @param inlineBytes - internal: bytes already in memory (`Audio.fromBytes`).
   */
  constructor(
    init: AudioInit,
    resolveLocal?: ((url: string) => ResolvedLocalFile | null) | AudioOptions,
    inlineBytes?: Uint8Array,
  ) {
    this.dataBase64 = init.dataBase64 ?? null;
    this.mimeType = init.mimeType ?? null;
    this.url = init.url ?? null;
    this.sampleRate = init.sampleRate ?? null;
    this.encoding = init.encoding ?? null;
    this.duration = init.duration ?? null;
    this.start_time = init.start_time ?? null;

    if (this.start_time !== null && this.start_time < 0) {
      throw new AudioValidationError("start_time", "start_time must be greater than or equal to 0.");
    }
    if (this.duration !== null && this.duration < 0) {
      throw new AudioValidationError("duration", "duration must be greater than or equal to 0.");
    }
    if (inlineBytes) {
      if (this.mimeType === null) {
        throw new AudioValidationError("mimeType", "mimeType must be provided when initializing from Base64 data.");
      }
      this._bytes = inlineBytes;
      this._inline = true;
      return;
    }
    if (!this.url && !this.dataBase64) {
      throw new AudioValidationError(
        "url",
        "You must provide either a 'url' or both 'dataBase64' and 'mimeType' to create an Audio.",
      );
    }
    if (this.dataBase64 !== null && this.mimeType === null) {
      throw new AudioValidationError("mimeType", "mimeType must be provided when initializing from Base64 data.");
    }
    if (this.dataBase64 !== null) {
      this._inline = true;
      return;
    }

    const url = this.url as string;
    const local =
      typeof resolveLocal === "function"
        ? resolveLocal(url)
        : defaultLocalResolver && !url.startsWith("http://") && !url.startsWith("https://")
          ? defaultLocalResolver(url, resolveLocal?.baseDir)
          : null;
    if (local) {
      this._local = true;
      this._filename = basename(local.path);
      this.mimeType = this.mimeType ?? guessMimeType(local.path) ?? "audio/wav";
      if ("read" in local) this._read = local.read;
      else this._bytes = local.bytes;
      this._path = local.path;
      return;
    }
    if (!url.startsWith("http://") && !url.startsWith("https://")) {
      throw new AudioValidationError(
        "url",
        `Invalid remote URL format: ${url}. URL must start with http:// or https://`,
      );
    }
    this._local = false;
    this._filename = basename(new URL(url).pathname);
    this.mimeType = this.mimeType ?? guessMimeType(this._filename) ?? "audio/wav";
  }

  /** Build in-memory audio from bytes (deepeval's `Audio.from_bytes`). */
  static fromBytes(
    data: Uint8Array,
    mimeType: string,
    extra: Omit<AudioInit, "dataBase64" | "mimeType" | "url"> = {},
  ): Audio {
    return new Audio(audioInit({ mimeType, sampleRate: extra.sampleRate, encoding: extra.encoding, duration: extra.duration, start_time: extra.start_time }), undefined, data);
  }

  get local(): boolean | null {
    return this._local;
  }
  get filename(): string | null {
    return this._filename;
  }
  get id(): string {
    return this._id;
  }
  /** Absolute path of the local file the bytes came from, if any. */
  get path(): string | null {
    return this._path;
  }
  /** True when the bytes are those of the local file `path`, read from it whenever asked for (never held): analysis may then read the file in chunks. */
  get readsFile(): boolean {
    return this._read !== null;
  }
  /** True when bytes are available (inline, or a local file that can be read). */
  get hasBytes(): boolean {
    return this._bytes !== null || this._read !== null || this.dataBase64 !== null;
  }

  /**
   * The audio file's bytes. Base64 is decoded with Python's lenient rules; a local file is read
   * (again) on each call, and not kept; throws deepeval's message when this is a remote URL
   * (nothing is ever fetched).
   */
  getBytes(decode: (text: string) => Uint8Array = decodeBase64Python): Uint8Array {
    if (this._bytes) return this._bytes;
    if (this._read) return this._read();
    if (this.dataBase64 === null) {
      throw new Error("No audio bytes available; this Audio is a remote URL. Fetch it before calling get_bytes().");
    }
    return decode(this.dataBase64);
  }

  /** The base64 text of the bytes (what deepeval stores in `dataBase64`). */
  getBase64(): string | null {
    if (this.dataBase64 !== null) return this.dataBase64;
    if (this._bytes) return encodeBase64(this._bytes);
    return this._read ? encodeBase64(this._read()) : null;
  }

  /** The reference dump of this Audio (formats.md F1.4/F1.6: no private keys). */
  toJSON(): AudioInit {
    return {
      dataBase64: this._inline ? this.getBase64() : null,
      mimeType: this.mimeType,
      url: this.url,
      sampleRate: this.sampleRate,
      encoding: this.encoding,
      duration: this.duration,
      start_time: this.start_time,
    };
  }
}
