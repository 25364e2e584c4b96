// Live capture: the VoiceProtocol, the connector contract, the turn engine, the transports and the capture writer.
export * from "./protocol.js";
export * from "./types.js";
export * from "./turn-detection.js";
export { collectAgentTurn, type CollectOptions, type CollectedAgentTurn, type TurnProgress } from "./turn-engine.js";
export { AsyncQueue, type QueueRead } from "./queue.js";
export { monotonicMs, sleepUntil, AbortedError } from "./clock.js";
export { FRAME_MS, SILENCE_RMS, frameSamples, splitFrames, frameRms } from "./frames.js";
export { ConnectorError } from "./errors.js";
export { BaseConnector, DEFAULT_BASE_CONNECTOR_OPTIONS, type BaseConnectorOptions } from "./base.js";
export { CallbackConnector, DEFAULT_CALLBACK_CONNECTOR_OPTIONS, type CallbackConnectorOptions, type TextAgentFunction, type VoiceAgentFunction } from "./callback.js";
export {
  WebSocketConnector,
  DEFAULT_WEBSOCKET_CONNECTOR_OPTIONS,
  resolveWebSocketConnectorOptions,
  expandHeaders,
  type WebSocketConnectorOptions,
} from "./websocket.js";
export { RealtimeConnector, DEFAULT_REALTIME_CONNECTOR_OPTIONS, type RealtimeConnectorOptions, type RealtimeTurnMode } from "./realtime.js";
export { ElevenLabsConnector, elevenLabsUrl, type ElevenLabsConnectorOptions } from "./elevenlabs.js";
export {
  buildCapture,
  speechEndSeconds,
  type AgentTurnRecord,
  type BuildCaptureOptions,
  type BuiltCapture,
  type CallRecord,
  type CallerTurnRecord,
  type CapturedClip,
  type CapturedTurn,
  type EndReason,
  type SimulationEndReason,
} from "./capture.js";
export { renderConversationWav, renderStereoWav, safeName, startCaptureRun, writeCallCapture, type CaptureRun } from "./capture-output.js";
