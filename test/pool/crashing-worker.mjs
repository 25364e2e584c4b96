// Test worker: wraps the real one and dies on chosen calls (ids ending in #crash-always, #crash-once:<marker>, #oom) anywhere in its task.
import { existsSync, writeFileSync } from "node:fs";
import runTask from "../../dist/pool/worker.js";

export default function crashingTask(task) {
  for (const { id } of task.refs) {
    if (id.endsWith("#crash-always")) process.exit(3);
    const once = /#crash-once:(.+)$/.exec(id);
    if (once && !existsSync(once[1])) {
      writeFileSync(once[1], "crashed");
      process.exit(3);
    }
    if (id.endsWith("#oom")) {
      const hog = [];
      for (;;) hog.push(new Array(1e6).fill(hog.length));
    }
  }
  return runTask(task);
}
