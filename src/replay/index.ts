// Voice Live dataset replay through a realtime-API agent: session config, dataset grouping, caller audio, stub tools, the session engine, harness-compatible outputs.
export { callerPcm, decodeHarnessWav, resampleHarnessLinear, REPLAY_RESAMPLERS, type MonoPcm, type ReplayResampler } from "./audio.js";
export {
  DEFAULT_INSTRUCTIONS,
  DEFAULT_REPLAY_SESSION_CONFIG,
  REPLAY_SESSION_KEYS,
  TOOLS_INSTRUCTIONS_SUFFIX,
  parseSessionConfig,
  readSessionConfigFile,
  resolveSessionConfig,
  sessionUpdateOf,
  sessionUpdateOfGa,
  transcriptionModelOf,
  type ConfigSource,
  type ReplaySessionConfig,
  type ResolvedSessionConfig,
} from "./config.js";
export { GROUPING_MODES, readReplayDataset, toolListOf, type GroupingMode, type ReplayConversation, type ReplayDataset, type ReplayEntry } from "./dataset.js";
export { ERROR_RECORD_KEYS, LEGACY_METRIC_NAMES, TURN_RECORD_KEYS, operationalSummary, sanitizeText } from "./records.js";
export { POST_CLIP_SILENCES, VAD_SPLIT_MODES, replayConversation, type PostClipSilence, type ReplaySessionOptions, type TurnObservation, type VadSplitMode } from "./session.js";
export { NO_STUB_TOOLS, loadStubTools, stubToolsFromTable, unknownToolReply, type StubTools, type ToolCall } from "./tools.js";
export { DEFAULT_REPLAY_RUN_OPTIONS, REPLAY_MANIFEST_FILE, REPLAY_MANIFEST_FORMAT, runReplay, type ReplayRunOptions, type ReplayRunResult } from "./run.js";
