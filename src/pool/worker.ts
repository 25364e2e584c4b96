// Piscina worker entry: adopts the WebAssembly module compiled by the main thread once, then scores one call per task.
import { workerData } from "node:worker_threads";
import { setWasmModule } from "../dsp/wasm.js";
import { toOutcome, type CallOutcome } from "./record.js";
import { scoreCall, type ScoreTask } from "./score-call.js";

const data = workerData as { wasmModule?: WebAssembly.Module } | null;
if (data?.wasmModule) setWasmModule(data.wasmModule);

export default function runTask(task: ScoreTask): CallOutcome {
  return toOutcome(scoreCall(task));
}
