// The data model: deepeval's Audio, Turn and ConversationalTestCase plus the JSON codec; pure (no fs, no wasm).
export * from "./audio.js";
export * from "./base64.js";
export * from "./codec.js";
export * from "./errors.js";
export * from "./test-case.js";
