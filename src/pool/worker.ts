// Piscina worker entry: adopts the WebAssembly module compiled by the main thread once, then scores the calls of each task in turn.
import { workerData } from "node:worker_threads";
import { setWasmModule } from "../dsp/wasm.js";
import { toOutcome, type CallOutcome } from "./record.js";
import { scoreCall, type BatchTask } from "./score-call.js";

const data = workerData as { wasmModule?: WebAssembly.Module } | null;
if (data?.wasmModule) setWasmModule(data.wasmModule);

export default function runTask(task: BatchTask): CallOutcome[] {
  return task.refs.map((ref) => toOutcome(scoreCall({ ref, ingest: task.ingest, score: task.score })));
}
