// Per-call analysis context: decodes and measures each clip at most once, however many metrics read it.
import { compatWavDuration, DECODE_MESSAGES, DecodeError, decodeAudio, downmixTruncating, type DecodedAudio } from "../audio/index.js";
import { decodeBase64Lenient, decodeBase64Python } from "../model/base64.js";
import type { CompatMode } from "../model/codec.js";
import type { ConversationalTestCase, Turn } from "../model/test-case.js";
import { analyzeParity } from "./parity.js";
import type { ClipMeasurements } from "./types.js";

export interface CallAnalysisOptions {
  /** `deepeval`: audio accepted exactly as deepeval accepts it; `voxmetrics` (default): anything decodable. */
  compat?: CompatMode;
  /**
   * Extra work per decoded clip (e.g. the standards set); its result is kept beside the measurements.
   * Called once per clip with the decoded audio.
   */
  extra?: (decoded: DecodedAudio, turn: Turn, index: number) => unknown;
  /**
   * Clips the caller already decoded from these turns' bytes in the same compat mode (turn index →
   * audio), e.g. by ingest; they are used instead of decoding the bytes a second time.
   */
  predecoded?: ReadonlyMap<number, DecodedAudio>;
}

/** Everything known about one turn's clip after analysis; every field is always set (one shape for the metrics that read it). */
export interface ClipAnalysis {
  /** deepeval's measurement record, or `{error}` with one of its three decode-failure strings. */
  measurements: ClipMeasurements;
  /** Why decoding failed, precisely (default mode adds this; deepeval only has the short string). */
  errorDetail?: string;
  /** Clip length for the timeline: decoded length (deepeval's WAV rule under compat), else `audio.duration`. */
  timelineDuration: number | null;
  /** The result of `options.extra`, when it ran. */
  extra?: unknown;
  decoded?: { sampleRate: number; channels: number; frames: number; format: string; warnings: string[] };
}

/** Lazily analysed clips of one test case. */
export class CallAnalysis {
  readonly testCase: ConversationalTestCase;
  readonly compat: CompatMode;
  private readonly extra?: CallAnalysisOptions["extra"];
  private readonly predecoded?: CallAnalysisOptions["predecoded"];
  private readonly clips = new Map<number, ClipAnalysis>();

  constructor(testCase: ConversationalTestCase, options: CallAnalysisOptions = {}) {
    this.testCase = testCase;
    this.compat = options.compat ?? "voxmetrics";
    this.extra = options.extra;
    this.predecoded = options.predecoded;
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

  /** Analyse every clip now (for reports that list all turns). */
  analyzeAll(): ClipAnalysis[] {
    const out: ClipAnalysis[] = [];
    this.testCase.turns.forEach((_, i) => {
      const c = this.clip(i);
      if (c) out.push(c);
    });
    return out;
  }

  private analyze(turn: Turn, index: number): ClipAnalysis {
    const audio = turn.audio!;
    const metadataDuration = audio.duration ?? null;
    let bytes: Uint8Array;
    try {
      bytes = audio.getBytes(this.compat === "deepeval" ? decodeBase64Python : decodeBase64Tolerant);
    } catch (e) {
      return {
        measurements: { error: DECODE_MESSAGES.notDecodable },
        errorDetail: `turns[${index}].audio: ${(e as Error).message}`,
        timelineDuration: metadataDuration,
        extra: undefined,
        decoded: undefined,
      };
    }
    const name = audio.path ?? `turns[${index}].audio`;
    let decoded: DecodedAudio;
    try {
      decoded = this.predecoded?.get(index) ?? decodeAudio(bytes, { compat: this.compat, name });
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return {
        measurements: { error: e.metricMessage },
        errorDetail: e.message,
        timelineDuration: this.compat === "deepeval" ? compatWavDuration(bytes) ?? metadataDuration : metadataDuration,
        extra: undefined,
        decoded: undefined,
      };
    }
    const mono = downmixTruncating(decoded.samples, decoded.channels);
    const measurements = analyzeParity(mono, decoded.sampleRate);
    return {
      measurements,
      errorDetail: undefined,
      timelineDuration: this.compat === "deepeval" ? compatWavDuration(bytes) ?? metadataDuration : decoded.frames / decoded.sampleRate,
      extra: this.extra ? this.extra(decoded, turn, index) : undefined,
      decoded: {
        sampleRate: decoded.sampleRate,
        channels: decoded.channels,
        frames: decoded.frames,
        format: decoded.format,
        warnings: decoded.warnings,
      },
    };
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
