// Piscina worker entry: adopts the WebAssembly module compiled by the main thread once, then scores each task's batch of calls (appending their records when told).
import { workerData } from "node:worker_threads";
import { setWasmModule } from "../dsp/wasm.js";
import { scoreBatch, type CallOutcome } from "../scoring/index.js";
import type { WorkerTask } from "./worker-task.js";

const data = workerData as { wasmModule?: WebAssembly.Module } | null;
if (data?.wasmModule) setWasmModule(data.wasmModule);

/** Say the task started (the pool's call timeout counts from here), then score it. */
export default function runTask({ started, ...task }: WorkerTask): CallOutcome[] {
  if (started) {
    started.postMessage(0);
    started.close();
  }
  return scoreBatch(task);
}
