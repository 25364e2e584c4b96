// Piscina worker entry: adopts the WebAssembly module compiled by the main thread once, then scores the calls of each task in turn.
import { workerData } from "node:worker_threads";
import { appendLines } from "./append.js";
import { setWasmModule } from "../dsp/wasm.js";
import { toOutcome, type CallOutcome } from "./record.js";
import { scoreCall, type BatchTask } from "./score-call.js";

const data = workerData as { wasmModule?: WebAssembly.Module } | null;
if (data?.wasmModule) setWasmModule(data.wasmModule);

export default function runTask(task: BatchTask): CallOutcome[] {
  const outcomes = task.refs.map((ref) => toOutcome(scoreCall({ ref, ingest: task.ingest, score: task.score })));
  if (task.appendTo !== undefined) {
    appendLines(task.appendTo, outcomes.map((o) => o.line!));
    for (const o of outcomes) o.line = null;
  }
  return outcomes;
}
