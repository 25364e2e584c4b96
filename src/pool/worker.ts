// Piscina worker entry: adopts the WebAssembly module compiled by the main thread once, then scores each task's batch of calls (appending their records when told).
import { workerData } from "node:worker_threads";
import { setWasmModule } from "../dsp/wasm.js";
import { scoreBatch } from "../scoring/index.js";

const data = workerData as { wasmModule?: WebAssembly.Module } | null;
if (data?.wasmModule) setWasmModule(data.wasmModule);

export default scoreBatch;
