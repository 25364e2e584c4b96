// Per-call analysis context: decodes and measures each clip at most once, however many metrics read it.
import { statSync } from "node:fs";
import { compatWavDuration, compatWavDurationAt, DECODE_MESSAGES, DecodeError, decodeAudio, openPcmSource, type AudioLimits, type DecodedAudio, type FilePcmSource } from "../audio/index.js";
import { ClipKernels } from "../dsp/clip-kernels.js";
import { measureParityStream } from "../dsp/parity-stream.js";
import { withArena } from "../dsp/wasm.js";
import { decodeBase64Lenient, decodeBase64Python } from "../model/base64.js";
import type { CompatMode } from "../model/codec.js";
import type { ConversationalTestCase, Turn } from "../model/test-case.js";
import { clippingCriteria, measureAcoustics, standardsSampleRateProblem, type AcousticsBlock } from "./acoustics.js";
import { DEFAULT_ACOUSTICS_OPTIONS, type AcousticsOptions } from "./acoustics-options.js";
import { measureStandardsStream } from "./acoustics-stream.js";
import { measureIntegrity, type IntegrityBlock, type IntegrityOptions } from "./integrity.js";
import { measureIntegrityStream } from "./integrity-stream.js";
import { assembleParityMeasurements } from "./parity.js";
import type { ClipMeasurements } from "./types.js";

/** Options of CallAnalysis: audio acceptance (compat) and the standards-set options per clip. */
export interface CallAnalysisOptions {
  /**
   * `deepeval`: audio accepted exactly as deepeval accepts it; `voxmetrics`: anything decodable.
   * @defaultValue "voxmetrics"
   */
  compat?: CompatMode;
  /**
   * Resolved standards-set options (resolveAcousticsOptions) to measure the `acoustics` block of
   * every clip too; null measures the parity set only.
   * @defaultValue null
   */
  acoustics?: AcousticsOptions | null;
  /**
   * Resolved options (resolveIntegrityOptions) of the voxmetrics profile's measurements: every
   * assistant clip then gets the `integrity` block, measured on the standards set (the `acoustics` options, or
   * their defaults); null leaves it out.
   * @defaultValue null
   */
  integrity?: IntegrityOptions | null;
  /**
   * The decoded-size budget of each clip.
   * @defaultValue DEFAULT_AUDIO_LIMITS
   */
  limits?: Partial<AudioLimits>;
  /**
   * A clip that is a local file (a url naming one) of at least this many bytes is measured from the
   * file in bounded chunks (openPcmSource and the streamed measurement sets: the same results)
   * instead of being read and decoded whole; smaller files, inline and base64 clips are decoded
   * whole, which is cheaper for short clips. 0 streams every local file; Infinity none.
   * @defaultValue STREAM_CLIP_MIN_BYTES (1 MiB)
   */
  streamFromBytes?: number;
}

/** Local clip files from this size on are measured from the file in bounded chunks (about 33 s of 16 kHz mono 16-bit WAV, 5.5 s of 48 kHz stereo, a minute of MP3). */
export const STREAM_CLIP_MIN_BYTES = 1 << 20;

/** Clips decoded from some turns' bytes while a call was read (turn index → audio), and the mode they were decoded in. */
export interface DecodedClips {
  compat: CompatMode;
  byTurn: ReadonlyMap<number, DecodedAudio>;
}

/**
 * A test case as ingest reads it: with the clips it already cut or decoded (analysis in the same
 * mode reuses them instead of decoding the bytes a second time) and what it noticed on the way.
 */
export interface LoadedCall {
  testCase: ConversationalTestCase;
  warnings: string[];
  decoded?: DecodedClips;
  /** Release what the call keeps open while its clips are read (a recording's file, a temporary decode); clips read afterwards open it again. */
  dispose?: () => void;
}

/** Everything known about one turn's clip after analysis; every field is always set (one shape for the metrics that read it). */
export interface ClipAnalysis {
  /** deepeval's measurement record, or `{error}` with one of its three decode-failure strings. */
  measurements: ClipMeasurements;
  /** Why decoding failed, precisely (default mode adds this; deepeval only has the short string). */
  errorDetail: string | undefined;
  /** Clip length for the timeline: decoded length (deepeval's WAV rule under compat), else `audio.duration`. */
  timelineDuration: number | null;
  /** The standards set, when the options asked for it and the clip decoded. */
  acoustics: AcousticsBlock | undefined;
  /** The standards set the integrity block was measured on (the same object as `acoustics` when both were asked for). */
  standards?: AcousticsBlock;
  /** The voxmetrics profile's measurements, when the options asked for them and the clip decoded. */
  integrity?: IntegrityBlock;
  /** Why the standards set was asked for but could not measure this clip (its sample rate), naming the clip. */
  acousticsError?: string;
}

const NO_CLIPS: ReadonlyMap<number, DecodedAudio> = new Map();

/** Lazily analysed clips of one test case. */
export class CallAnalysis {
  readonly testCase: ConversationalTestCase;
  readonly compat: CompatMode;
  private readonly acoustics: AcousticsOptions | null;
  private readonly integrity: IntegrityOptions | null;
  private readonly limits: Partial<AudioLimits> | undefined;
  private readonly streamFromBytes: number;
  private readonly decodedClips: ReadonlyMap<number, DecodedAudio>;
  private readonly clips = new Map<number, ClipAnalysis>();

  /** A test case, or a loaded call whose decoded clips are reused when they were decoded in the same mode. */
  constructor(call: ConversationalTestCase | LoadedCall, options: CallAnalysisOptions = {}) {
    const loaded = "testCase" in call ? call : null;
    this.testCase = loaded ? loaded.testCase : (call as ConversationalTestCase);
    this.compat = options.compat ?? "voxmetrics";
    this.acoustics = options.acoustics ?? null;
    this.integrity = options.integrity ?? null;
    this.limits = options.limits;
    this.streamFromBytes = options.streamFromBytes ?? STREAM_CLIP_MIN_BYTES;
    this.decodedClips = loaded?.decoded?.compat === this.compat ? loaded.decoded.byTurn : NO_CLIPS;
  }

  /** The analysis of turn `index`'s clip, or undefined when the turn has no audio. */
  clip(index: number): ClipAnalysis | undefined {
    const turn = this.testCase.turns[index];
    if (!turn?.audio) return undefined;
    let c = this.clips.get(index);
    if (!c) {
      c = this.analyze(turn, index);
      this.clips.set(index, c);
    }
    return c;
  }

  private analyze(turn: Turn, index: number): ClipAnalysis {
    const audio = turn.audio!;
    const metadataDuration = audio.duration ?? null;
    if (audio.path !== null && audio.readsFile && !this.decodedClips.has(index) && this.streams(audio.path)) return this.analyzeFile(turn, index, audio.path, metadataDuration);
    let bytes: Uint8Array;
    try {
      bytes = audio.getBytes(this.compat === "deepeval" ? decodeBase64Python : decodeBase64Tolerant);
    } catch (e) {
      return {
        measurements: { error: DECODE_MESSAGES.notDecodable },
        errorDetail: `turns[${index}].audio: ${(e as Error).message}`,
        timelineDuration: metadataDuration,
        acoustics: undefined,
      };
    }
    const name = audio.path ?? `turns[${index}].audio`;
    let decoded: DecodedAudio;
    try {
      decoded = this.decodedClips.get(index) ?? decodeAudio(bytes, { compat: this.compat, name, limits: this.limits });
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return {
        measurements: { error: e.metricMessage },
        errorDetail: e.message,
        timelineDuration: this.compat === "deepeval" ? compatWavDuration(bytes) ?? metadataDuration : metadataDuration,
        acoustics: undefined,
      };
    }
    // One arena session per clip: its PCM is copied into WebAssembly memory once (plus its exact
    // floats, when it has them) and every kernel of both measurement sets reads it there.
    // The parity set measures any rate; the standards set only its range (the clip is then still scored).
    const wantsStandards = this.acoustics !== null || (this.integrity !== null && turn.role === "assistant");
    const rateProblem = wantsStandards ? standardsSampleRateProblem(decoded.sampleRate) : null;
    const { measurements, standards, integrity } = withArena((arena) => {
      const clip = new ClipKernels(arena, decoded);
      const parity = assembleParityMeasurements(clip.parityFrames());
      if (rateProblem) return { measurements: parity, standards: undefined, integrity: undefined };
      // The profile's measurements are the agent's: caller clips only get them when --acoustics asks for every clip.
      const profiled = this.integrity !== null && turn.role === "assistant";
      const standardsOptions = this.acoustics ?? (profiled ? DEFAULT_ACOUSTICS_OPTIONS : null);
      if (!standardsOptions) return { measurements: parity, standards: undefined, integrity: undefined };
      const planar = clip.planar();
      const block = measureAcoustics(planar, standardsOptions, turn.content);
      if (!profiled) return { measurements: parity, standards: block, integrity: undefined };
      const clipping = integrityClipping(standardsOptions, planar.sampleRate);
      return { measurements: parity, standards: block, integrity: measureIntegrity(planar.mixdown(standardsOptions.mixdown), block.speech_segments, this.integrity!, clipping) };
    });
    const timelineDuration = this.compat === "deepeval" ? compatWavDuration(bytes) ?? metadataDuration : decoded.frames / decoded.sampleRate;
    return this.measured(measurements, timelineDuration, standards, integrity, rateProblem ? `${name}: ${rateProblem}` : undefined);
  }

  /** The ClipAnalysis of a clip that decoded: `acoustics` when asked for, the standards set and integrity block of a profiled clip. */
  private measured(measurements: ClipMeasurements, timelineDuration: number | null, standards: AcousticsBlock | undefined, integrity: IntegrityBlock | undefined, acousticsError: string | undefined): ClipAnalysis {
    const analysis: ClipAnalysis = { measurements, errorDetail: undefined, timelineDuration, acoustics: this.acoustics ? standards : undefined };
    if (standards && integrity) {
      analysis.standards = standards;
      analysis.integrity = integrity;
    }
    if (acousticsError) analysis.acousticsError = acousticsError;
    return analysis;
  }

  /** True when the local file at `path` is measured from disk: a regular file of at least streamFromBytes (anything else keeps the whole-clip path, and its errors). */
  private streams(path: string): boolean {
    if (this.streamFromBytes === Infinity) return false;
    try {
      const s = statSync(path);
      return s.isFile() && s.size >= this.streamFromBytes;
    } catch {
      return false;
    }
  }

  /**
   * A local clip measured from its file in bounded chunks: the same ClipAnalysis as decoding it whole
   * (analyze), from openPcmSource and the streamed sets (parity bit for bit, the standards set and
   * the integrity block equal).
   */
  private analyzeFile(turn: Turn, index: number, path: string, metadataDuration: number | null): ClipAnalysis {
    const name = path;
    const failed = (e: DecodeError): ClipAnalysis => ({
      measurements: { error: e.metricMessage },
      errorDetail: e.message,
      timelineDuration: this.compat === "deepeval" ? compatWavDurationAt(path) ?? metadataDuration : metadataDuration,
      acoustics: undefined,
    });
    let source: FilePcmSource;
    try {
      source = openPcmSource(path, { compat: this.compat, limits: this.limits, name });
    } catch (e) {
      if (e instanceof DecodeError) return failed(e);
      // What reading the bytes whole would have said (the file went away or cannot be read).
      return { measurements: { error: DECODE_MESSAGES.notDecodable }, errorDetail: `turns[${index}].audio: ${(e as Error).message}`, timelineDuration: metadataDuration, acoustics: undefined };
    }
    try {
      const wantsStandards = this.acoustics !== null || (this.integrity !== null && turn.role === "assistant");
      const rateProblem = wantsStandards ? standardsSampleRateProblem(source.sampleRate) : null;
      // A float WAV holding NaN or ±Inf is refused while it is read (decodeAudio refuses it before anything is measured): the parity set reads every sample first.
      const measurements = assembleParityMeasurements(measureParityStream(source));
      let standards: AcousticsBlock | undefined;
      let integrity: IntegrityBlock | undefined;
      const profiled = this.integrity !== null && turn.role === "assistant";
      const standardsOptions = this.acoustics ?? (profiled ? DEFAULT_ACOUSTICS_OPTIONS : null);
      if (!rateProblem && standardsOptions) {
        standards = measureStandardsStream(source, standardsOptions, { set: "standards", perChannel: false, transcript: turn.content }).acoustics as AcousticsBlock;
        if (profiled) {
          const clipping = integrityClipping(standardsOptions, source.sampleRate);
          integrity = measureIntegrityStream(source, standards.speech_segments, this.integrity!, clipping, standardsOptions.mixdown);
        }
      }
      const timelineDuration = this.compat === "deepeval" ? compatWavDurationAt(path) ?? metadataDuration : source.frames / source.sampleRate;
      return this.measured(measurements, timelineDuration, standards, integrity, rateProblem ? `${name}: ${rateProblem}` : undefined);
    } catch (e) {
      if (e instanceof DecodeError) return failed(e);
      throw e;
    } finally {
      source.dispose();
    }
  }
}

/** Python's rule first; outside compat mode, fall back to Node's lenient decoder (URL-safe alphabet, no padding). */
function decodeBase64Tolerant(text: string): Uint8Array {
  try {
    return decodeBase64Python(text);
  } catch {
    return decodeBase64Lenient(text);
  }
}

/** The integrity block's clipping criteria: the standards set's (level, shortest run at `sampleRate`) and its band-edge floor. */
function integrityClipping(o: AcousticsOptions, sampleRate: number): { level: number; minRun: number; bandwidthFloorDb: number } {
  return { ...clippingCriteria(o, sampleRate), bandwidthFloorDb: o.bandwidthFloorDb };
}
