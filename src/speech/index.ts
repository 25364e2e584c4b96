// Speech models (§L9): the TTS / STT contracts, pocketsphinx offline STT, OpenAI-compatible TTS / STT / chat clients.
export * from "./types.js";
export * from "./errors.js";
export { appendSilence, toMonoPcm16Wav } from "./audio-input.js";
export * from "./pocketsphinx-stt.js";
export * from "./openai-client.js";
export * from "./openai-tts.js";
export * from "./openai-stt.js";
export * from "./openai-chat.js";
