// What the pool sends a worker: a batch of calls, and a port the worker signals on when it starts the batch (the call timeout counts from then).
import type { MessagePort } from "node:worker_threads";
import type { BatchTask } from "../scoring/index.js";

export interface WorkerTask extends BatchTask {
  /** Posted to (once) when the worker starts the task. */
  started?: MessagePort;
}
