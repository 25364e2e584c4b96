// Callers: the script format and the scripted caller that drives a connector (personas and model callers come later).
export * from "./script.js";
export { runScriptedCall, latencyMeaning, DEFAULT_SCRIPTED_CALL_OPTIONS, type ScriptedCallOptions } from "./scripted-call.js";
export { runScriptedCalls, DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS, type CallRunResult, type RunScriptedCallsOptions } from "./run-calls.js";
