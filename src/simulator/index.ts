// Callers: scripts for `voxmetrics call`, and simulated callers (goldens, personas, caller policies, floor control) for `voxmetrics simulate`.
export * from "./script.js";
export { runScriptedCall, latencyMeaning, DEFAULT_SCRIPTED_CALL_OPTIONS, type ScriptedCallOptions } from "./scripted-call.js";
export { runScriptedCalls, DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS, type CallRunResult, type RunScriptedCallsOptions } from "./run-calls.js";
export * from "./golden.js";
export { BackgroundNoise, mixBackground } from "./background-noise.js";
export * from "./caller-policy.js";
export * from "./floor-control.js";
export { simulateCall, DEFAULT_SIMULATE_CALL_OPTIONS, type SimulateCallOptions } from "./simulated-call.js";
export { runSimulations, DEFAULT_RUN_SIMULATIONS_OPTIONS, type RunSimulationsOptions, type SimulationResult } from "./run-simulations.js";
