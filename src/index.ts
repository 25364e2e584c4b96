// The public library API of voxmetrics.
export * from "./model/index.js";
export * from "./audio/index.js";
export { CallAnalysis, type CallAnalysisOptions, type ClipAnalysis } from "./analysis/call.js";
export { analyzeParity } from "./analysis/parity.js";
export * from "./analysis/types.js";
export * from "./timeline/index.js";
export * from "./metrics/index.js";
export { scoreTestCase, type ScoreOptions, type ScoreResult, type TurnRecord } from "./score.js";
export { analyzeFile, type AnalyzeFileOptions, type AnalyzeFileResult, type MeasurementSet } from "./analyze-file.js";
export { loadDeepevalJsonFile, parseDeepevalJsonText, localAudioResolver } from "./ingest/deepeval-json.js";
export {
  analyzeAcoustics,
  analyzeLoudness,
  createLoudnessMeter,
  measureOverlap,
  resolveAcousticsOptions,
  DEFAULT_ACOUSTICS_OPTIONS,
  type AcousticsBlock,
  type AcousticsOptions,
  type LoudnessBlock,
  type OverlapStats,
} from "./analysis/acoustics.js";
export * from "./ingest/index.js";
export * from "./pool/index.js";
export * from "./report/index.js";
export * from "./speech/types.js";
export { EspeakTts, DEFAULT_ESPEAK_TTS_OPTIONS, ESPEAK_INSTALL_HINT, resolveEspeakTtsOptions, type EspeakTtsOptions } from "./speech/espeak-tts.js";
export * from "./connectors/index.js";
export * from "./simulator/index.js";
