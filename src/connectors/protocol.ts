// VoiceProtocol (voice-metrics.md §L1): the transport family a connector speaks; latencies compare only within one.

/** The protocol values; every connector declares one. */
export const VoiceProtocol = Object.freeze({
  WEBRTC: "webrtc",
  WEBSOCKET: "websocket",
  SIP: "sip",
  CALLBACK: "callback",
} as const);

export type VoiceProtocol = (typeof VoiceProtocol)[keyof typeof VoiceProtocol];

/** Every VoiceProtocol value. */
export const VOICE_PROTOCOLS: readonly VoiceProtocol[] = Object.freeze(Object.values(VoiceProtocol));

/** True when a value is one of the VoiceProtocol values. */
export function isVoiceProtocol(value: unknown): value is VoiceProtocol {
  return typeof value === "string" && (VOICE_PROTOCOLS as readonly string[]).includes(value);
}
