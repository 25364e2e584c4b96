// Test pool worker: wraps the real one and kills its whole process (not just the thread) on any call whose id contains "poison", as a native crash or an OOM kill of the process would.
import runTask from "../../dist/pool/worker.js";

export default function killingTask(task) {
  for (const { id } of task.refs) if (id.includes("poison")) process.kill(process.pid, "SIGKILL");
  return runTask(task);
}
