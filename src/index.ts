// The public library API of voxmetrics, named export by export so that no internal helper leaks out.

// The data model (deepeval's Audio, Turn, ConversationalTestCase) and its JSON codec.
export { Audio, AudioValidationError, type AudioInit, type AudioOptions } from "./model/audio.js";
export { parseTestCaseText, testCaseFromJson, testCaseToJson, type CodecOptions, type CompatMode, type ParsedTestCase, type ParsedTestCaseError, type ParsedTestCaseOk } from "./model/codec.js";
export { VoxError, type ErrorCode } from "./model/errors.js";
export { createTestCase, type ConversationalTestCase, type Role, type Turn } from "./model/test-case.js";

// Decoding and writing audio.
export { decodeAudio, type DecodeOptions } from "./audio/decode.js";
export { DecodeError } from "./audio/errors.js";
export type { DecodedAudio } from "./audio/types.js";
export { writeWavPcm16 } from "./audio/wav-writer.js";
export { DEFAULT_AUDIO_LIMITS, resolveAudioLimits, type AudioLimits } from "./audio/limits.js";
export { openPcmSource, type FilePcmSource, type OpenSourceOptions } from "./audio/open-source.js";
export { tempDir } from "./audio/temp-dirs.js";
export { collectPcmSource, memoryPcmSource, type PcmChunk, type PcmSource } from "./audio/pcm-source.js";

// Measurements: deepeval's parity set, the standards set, overlap between two parties.
export { analyzeAcoustics, analyzeLoudness, createLoudnessMeter, type AcousticsBlock, type AcousticsLoudnessMeter, type LoudnessBlock } from "./analysis/acoustics.js";
export { DEFAULT_ACOUSTICS_OPTIONS, resolveAcousticsOptions, type AcousticsOptions } from "./analysis/acoustics-options.js";
// The standards set and speech runs read from a PcmSource chunk by chunk (bounded memory).
export { speechRunsStream } from "./dsp/channel-stream.js";
export { measureStandardsStream, type StandardsStreamRequest, type StandardsStreamResult } from "./analysis/acoustics-stream.js";
export type { SpeechRunOptions } from "./dsp/channel-kernels.js";
export { CallAnalysis, type CallAnalysisOptions, type ClipAnalysis, type LoadedCall } from "./analysis/call.js";
export { measureOverlap, type OverlapStats } from "./analysis/overlap.js";
export { analyzeParity } from "./analysis/parity.js";
// parity (issue 11): deepeval's parity set over a PcmSource, chunk by chunk.
export { measureParityStream, type ParityStreamOptions } from "./dsp/parity-stream.js";
export type { ParityFrames } from "./dsp/parity.js";
export { isMeasurementError, type ClipMeasurements, type MeasurementError, type ParityMeasurements } from "./analysis/types.js";
export { DEFAULT_INTEGRITY_OPTIONS, resolveIntegrityOptions, type IntegrityBlock, type IntegrityOptions } from "./analysis/integrity.js";
// clipscore (issue 11): local clip files from this size on are measured from disk in bounded chunks (CallAnalysisOptions.streamFromBytes).
export { STREAM_CLIP_MIN_BYTES } from "./analysis/call.js";

// The call timeline and the seven metrics.
export { buildTimeline, findTransitions, LATENCY_PERCENTILE_MIN_SAMPLES, latencySummaryMs, responseLatenciesMs, type LatencySummary, type TimelineEntry, type Transition, type TransitionKind } from "./timeline/index.js";
export {
  AgentResponsivenessMetric,
  assertTest,
  AudioIntegrityMetric,
  BaseVoiceMetric,
  createMetrics,
  DEFAULT_METRIC_OPTIONS,
  evaluate,
  METRICS,
  MetricAssertionError,
  SpeechIntelligibilityMetric,
  TurnTakingNaturalnessMetric,
  VoiceConsistencyMetric,
  VoiceNaturalnessMetric,
  VoiceReliabilityMetric,
  type MetricData,
  type MetricInfo,
  type MetricOptions,
  type MetricResult,
  type TestResult,
} from "./metrics/index.js";

// The calibrated voxmetrics profile of the seven metrics, and the per-reply timing it reads.
export {
  analysisOptionsFor,
  DEFAULT_VOXMETRICS_PROFILE_OPTIONS,
  METRIC_PROFILES,
  resolveVoxmetricsProfileOptions,
  VOXMETRICS_PROFILE,
  VoxmetricsAgentResponsivenessMetric,
  VoxmetricsAudioIntegrityMetric,
  VoxmetricsMetric,
  VoxmetricsSpeechIntelligibilityMetric,
  VoxmetricsTurnTakingNaturalnessMetric,
  VoxmetricsVoiceConsistencyMetric,
  VoxmetricsVoiceNaturalnessMetric,
  VoxmetricsVoiceReliabilityMetric,
  type Evidence,
  type MetricProfile,
  type Ramp,
  type VoxmetricsMetricOptions,
  type VoxmetricsProfileOptions,
  type VoxmetricsProfileOptionsInput,
} from "./metrics/index.js";
export { evaPercentile, splitReplies, type AgentReply, type CallerReply } from "./timeline/index.js";

// Reading calls: every input format, and deepeval JSON files directly.
export { loadDeepevalJsonFile, parseDeepevalJsonText, type DeepevalJsonOptions } from "./ingest/formats/deepeval-json.js";
export { callNameOf, discoverCalls, loadCall } from "./ingest/index.js";
export { DEFAULT_INGEST_OPTIONS, FORCIBLE_INPUT_FORMATS, INPUT_FORMATS, STDIN_DISPLAY, STDIN_INPUT, WAV_NOT_FORCIBLE, resolveIngestOptions, type AgentChannel, type CallRef, type Discovery, type IngestOptions, type InputFormat } from "./ingest/types.js";

// The scoring pipeline: a test case, a call, an audio file, a call's timeline; and whole archives.
export {
  analyzeFile,
  analyzeFileAt,
  DEFAULT_ANALYZE_FILE_OPTIONS,
  DEFAULT_SCORE_OPTIONS,
  MEASUREMENT_SETS,
  resolveAnalyzeFileOptions,
  resolveScoreOptions,
  scoreCall,
  scoreTestCase,
  timelineOfCall,
  type AnalyzeFileError,
  type AnalyzeFileOk,
  type AnalyzeFileOptions,
  type AnalyzeFileResult,
  type CallReadOptions,
  type CallTimeline,
  type MeasurementSet,
  type RecordError,
  type ResultRecord,
  type ScoreOptions,
  type ScoreOptionsInput,
  type ScoreResult,
  type ScoreTask,
  type TimelineRecord,
  type TurnRecord,
} from "./scoring/index.js";
export type { PoolOptions } from "./pool/index.js";
export { formatSummaryTable, scoreArchive, type MetricSummary, type RunSummary, type ScoreArchiveOptions, type ScoreArchiveResult } from "./report/index.js";
export { DEFAULT_HTML_REPORT_OPTIONS, resolveHtmlReportOptions, writeHtmlReportOfResults, type ConversationSummary, type HtmlReportOptions, type ReportData, type ReportRunInfo } from "./report/index.js";

// Beyond one machine: shards of a batch run and their merge, the BullMQ coordinator and worker.
export { mergeParts, type MergeOptions, type MergeResult } from "./report/index.js";
export {
  DEFAULT_QUEUE_OPTIONS,
  DEFAULT_QUEUE_WORKER_OPTIONS,
  parsePathMapping,
  parseShard,
  shardOfId,
  startQueueWorker,
  type PartHeader,
  type PathMapping,
  type QueueOptions,
  type QueueStatus,
  type QueueWorkerHandle,
  type QueueWorkerOptions,
  type QueueWorkerStats,
  type ShardSpec,
} from "./queue/index.js";
export { failUnder, type BelowThreshold, type GateFailure, type ThresholdReport } from "./report/index.js";

// Speech models (spec §L9): TTS / STT contracts, pocketsphinx offline STT, OpenAI-compatible clients.
export type { SpeechToText, SynthesisResult, SynthesizeOptions, TextToSpeech, TranscribeOptions, TranscriptionResult } from "./speech/types.js";
export { SpeechModelError, type SpeechModelErrorCode } from "./speech/errors.js";
export { appendSilence } from "./speech/audio-input.js";
export { DEFAULT_POCKETSPHINX_OPTIONS, PocketsphinxSpeechToText, resolvePocketsphinxOptions, type PocketsphinxOptions } from "./speech/pocketsphinx-stt.js";
export { DEFAULT_OPENAI_CLIENT_OPTIONS, OpenAIClient, resolveOpenAIClientOptions, type OpenAIClientOptions, type RetryEvent } from "./speech/openai-client.js";
export { DEFAULT_OPENAI_TTS_OPTIONS, OpenAITextToSpeech, resolveOpenAITextToSpeechOptions, type OpenAITextToSpeechOptions } from "./speech/openai-tts.js";
export { DEFAULT_OPENAI_STT_OPTIONS, OpenAISpeechToText, resolveOpenAISpeechToTextOptions, type OpenAISpeechToTextOptions } from "./speech/openai-stt.js";
export { DEFAULT_OPENAI_CHAT_OPTIONS, OpenAIChatModel, resolveOpenAIChatOptions, type ChatCompletion, type ChatMessage, type ChatRequestOptions, type OpenAIChatOptions } from "./speech/openai-chat.js";

// Transcript comparison: English normaliser, sclite-compatible alignment, WER and CER.
export { alignTokens, type Alignment, type AlignmentOptions, type EditCounts } from "./text/align.js";
export { characterErrorRate, compareTranscripts, sumErrorCounts, wordErrorRate, type ErrorRate, type ErrorRateOptions, type TranscriptComparison } from "./text/error-rate.js";
export { DEFAULT_TEXT_NORMALIZER_OPTIONS, normalizeText, normalizeWords, resolveTextNormalizerOptions, type TextNormalizerOptions } from "./text/normalize.js";
export { EspeakTts, DEFAULT_ESPEAK_TTS_OPTIONS, ESPEAK_INSTALL_HINT, ESPEAK_VOICE_FOR_OPENAI_VOICE, resolveEspeakTtsOptions, type EspeakTtsOptions } from "./speech/espeak-tts.js";

// Resampling (spec §L10 linear, and band-limited) and G.711 μ-law, for connectors' wire formats.
export {
  BandLimitedResampler,
  DEFAULT_BAND_LIMITED_OPTIONS,
  resamplePcm16,
  resamplePcm16Linear,
  resampleWith,
  resolveBandLimitedOptions,
  type BandLimitedOptions,
  type ResamplerKind,
} from "./audio/resample.js";
export { mulawDecode, mulawDecodeSample, mulawEncode, mulawEncodeSample } from "./audio/mulaw.js";

// Live capture: connectors, the turn engine, the capture writer; scripted callers.
export {
  AbortedError,
  AsyncQueue,
  BaseConnector,
  buildCapture,
  CallbackConnector,
  collectAgentTurn,
  ConnectorError,
  DEFAULT_BASE_CONNECTOR_OPTIONS,
  DEFAULT_CALLBACK_CONNECTOR_OPTIONS,
  DEFAULT_REALTIME_CONNECTOR_OPTIONS,
  DEFAULT_TURN_DETECTION,
  DEFAULT_WEBSOCKET_CONNECTOR_OPTIONS,
  ElevenLabsConnector,
  elevenLabsUrl,
  expandHeaders,
  FRAME_MS,
  frameRms,
  frameSamples,
  isVoiceProtocol,
  monotonicMs,
  RealtimeConnector,
  renderConversationWav,
  renderStereoWav,
  resolveTurnDetection,
  resolveWebSocketConnectorOptions,
  safeName,
  SILENCE_RMS,
  sleepUntil,
  speechEndSeconds,
  splitFrames,
  startCaptureRun,
  TURN_DETECTION_PRESETS,
  VOICE_PROTOCOLS,
  VoiceProtocol,
  WebSocketConnector,
  writeCallCapture,
  type AgentEvent,
  type AgentTurnCapture,
  type AgentTurnRecord,
  type AudioFormat,
  type BaseConnectorOptions,
  type BuildCaptureOptions,
  type BuiltCapture,
  type CallbackConnectorOptions,
  type CallerTurnRecord,
  type CallRecord,
  type CapturedClip,
  type CapturedTurn,
  type CaptureRun,
  type CollectedAgentTurn,
  type CollectOptions,
  type ConnectorTurn,
  type ElevenLabsConnectorOptions,
  type EndReason,
  type SimulationEndReason,
  type Pcm,
  type QueueRead,
  type RealtimeConnectorOptions,
  type RealtimeTurnMode,
  type TextAgentFunction,
  type TurnDetection,
  type TurnDetectionOptions,
  type TurnDetectionPreset,
  type TurnEndCause,
  type UplinkOptions,
  type UplinkResult,
  type VoiceAgentFunction,
  type VoiceConnector,
  type WebSocketConnectorOptions,
} from "./connectors/index.js";
export {
  DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS,
  DEFAULT_SCRIPTED_CALL_OPTIONS,
  latencyMeaning,
  parseScript,
  readScriptFile,
  runScriptedCall,
  runScriptedCalls,
  uniqueScriptNames,
  type CallRunResult,
  type CallScript,
  type RunScriptedCallsOptions,
  type ScriptedCallOptions,
  type ScriptFile,
  type ScriptTurn,
} from "./simulator/index.js";

// Voice Live dataset replay through a realtime agent, with the harness's outputs.
export {
  DEFAULT_REPLAY_RUN_OPTIONS,
  DEFAULT_REPLAY_SESSION_CONFIG,
  GROUPING_MODES,
  loadStubTools,
  NO_STUB_TOOLS,
  POST_CLIP_SILENCES,
  readSessionConfigFile,
  REPLAY_RESAMPLERS,
  REPLAY_SESSION_KEYS,
  resolveSessionConfig,
  runReplay,
  sessionUpdateOf,
  stubToolsFromTable,
  unknownToolReply,
  VAD_SPLIT_MODES,
  type ConfigSource,
  type GroupingMode,
  type PostClipSilence,
  type ReplayResampler,
  type ReplayRunOptions,
  type ReplayRunResult,
  type ReplaySessionConfig,
  type StubTools,
  type VadSplitMode,
} from "./replay/index.js";
// Simulated callers (spec §L6): goldens and personas, caller policies, duplex floor control.
export {
  BackgroundNoise,
  DEFAULT_BACKGROUND_NOISE_VOLUME,
  DEFAULT_FLOOR_CONTROL,
  DEFAULT_INTERRUPTION_BEHAVIOR,
  DEFAULT_RUN_SIMULATIONS_OPTIONS,
  DEFAULT_SIMULATE_CALL_OPTIONS,
  FLOOR_CONTROL_PRESETS,
  FLOOR_POLL_MS,
  FLOOR_STATES,
  FRUSTRATED_UTTERANCE,
  FRUSTRATION_GUIDANCE,
  HEARD_CHARS_PER_SECOND,
  INTERRUPTION_FREQUENCIES,
  INTERRUPTION_POLICIES,
  JudgeGate,
  ModelCallerPolicy,
  ModelJudge,
  OVERLAP_PRESETS,
  RULE_JUDGE_INTERRUPT_PROBABILITY,
  RuleBasedJudge,
  SCRIPTED_SIGN_OFF,
  ScriptedCallerPolicy,
  goldenCallNames,
  heardTranscript,
  mixBackground,
  modelCallerMessages,
  modelCallerPrompt,
  modelJudgeMessages,
  parseGolden,
  parsePersona,
  readGoldenFile,
  runSimulations,
  simulateCall,
  type BackgroundNoiseSettings,
  type CallerContext,
  type CallerPolicy,
  type CallerUtterance,
  type ConversationalGolden,
  type FloorControlPreset,
  type FloorState,
  type GoldenFile,
  type HeardTurn,
  type InterruptionBehavior,
  type InterruptionFrequency,
  type InterruptionJudge,
  type InterruptionPolicy,
  type JudgeDecision,
  type JudgeInput,
  type OverlapPreset,
  type Persona,
  type RunSimulationsOptions,
  type SimulateCallOptions,
  type SimulationResult,
} from "./simulator/index.js";
