// Piscina worker entry: adopts the WebAssembly module compiled by the main thread once, then scores each task's batch of calls (appending their records when told) and hands the records' bytes back transferred, never copied.
import { workerData } from "node:worker_threads";
import { move, transferableSymbol, valueSymbol } from "piscina";
import { setWasmModule } from "../dsp/wasm.js";
import { scoreBatch, type CallOutcome } from "../scoring/index.js";
import type { WorkerTask } from "./worker-task.js";

const data = workerData as { wasmModule?: WebAssembly.Module } | null;
if (data?.wasmModule) setWasmModule(data.wasmModule);

/** Say the task started (the pool's call timeout counts from here), then score it. */
export default function runTask({ started, ...task }: WorkerTask): ReturnType<typeof transferLines> {
  if (started) {
    started.postMessage(0);
    started.close();
  }
  return transferLines(scoreBatch(task));
}

/**
 * The outcomes as Piscina's movable result: each record line that owns its whole buffer (as
 * encodeRecordLine's do) goes in the transfer list, so the main thread receives the bytes themselves
 * (this thread's view is left detached) rather than a structured-cloned copy of a record that, for a
 * call of hours, is megabytes. A line that shares its buffer is cloned, as anything else.
 */
export function transferLines(outcomes: CallOutcome[]): ReturnType<typeof move> {
  const buffers = new Set<ArrayBuffer>();
  for (const { line } of outcomes) {
    if (line !== null && line.byteOffset === 0 && line.byteLength === line.buffer.byteLength) buffers.add(line.buffer as ArrayBuffer);
  }
  return move({ [transferableSymbol]: [...buffers], [valueSymbol]: outcomes });
}
