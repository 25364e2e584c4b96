// `voxmetrics worker --queue redis://…`: a long-running process that scores queued calls with its local pool; a health line on stderr, graceful stop on SIGTERM/SIGINT.
import { Command, Option } from "commander";
import { DEFAULT_QUEUE_OPTIONS, DEFAULT_QUEUE_WORKER_OPTIONS, startQueueWorker, type QueueWorkerHandle } from "../index.js";
import { setFlagsFromString } from "node:v8";
import { parseNumber, workersOption } from "./options.js";
import { SCORE_V8_FLAGS } from "./score.js";

interface WorkerFlags {
  queue: string;
  queueName: string;
  workers: number;
  concurrency: number;
  pathMap: string[];
  name?: string;
  healthInterval: number;
  connectTimeout: number;
  stallTimeout: number;
  poolWorkerFile?: string;
}

/** A stop must be over within this long (s): Kubernetes' default grace period is 30 s. */
const STOP_DEADLINE_MS = 25_000;
/** After the deadline, the forced close is given this long before the process exits anyway (ms). */
const FORCE_CLOSE_MS = 2_000;
/** Exit code when in-flight jobs had to be abandoned at the deadline. */
const EXIT_STOP_TIMEOUT = 1;

export function registerWorkerCommand(program: Command): void {
  program
    .command("worker")
    .description("score calls queued by `voxmetrics score --queue`: pulls jobs from Redis (BullMQ) and scores them with a local worker pool until stopped (SIGTERM/SIGINT finish the jobs in flight)")
    .requiredOption("--queue <redis-url>", "Redis URL, e.g. redis://host:6379/0")
    .option("--queue-name <name>", "BullMQ queue name (the coordinator's)", DEFAULT_QUEUE_OPTIONS.name)
    .addOption(workersOption())
    .option("--concurrency <m>", "jobs (batches of calls) scored at once", parseNumber(1, true), DEFAULT_QUEUE_WORKER_OPTIONS.concurrency)
    .option("--path-map <FROM=TO>", "read coordinator paths under FROM at TO on this machine (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--name <name>", "this worker's name in health lines and error records (default: <hostname>-<pid>)")
    .option("--health-interval <s>", "seconds between health lines on stderr", parseNumber(1, false), 30)
    .option("--connect-timeout <s>", "exit 1 when Redis is not reachable at start within this many seconds", parseNumber(1, false), DEFAULT_QUEUE_WORKER_OPTIONS.connectTimeoutMs / 1000)
    .option("--stall-timeout <ms>", "a job whose worker stops renewing its lock this long is retried once elsewhere, then failed", parseNumber(500, true), DEFAULT_QUEUE_WORKER_OPTIONS.stallTimeoutMs)
    .addOption(new Option("--pool-worker-file <file>", "compiled pool worker entry (tests)").hideHelp())
    .action(async (flags: WorkerFlags) => {
      process.exitCode = await runWorker(flags);
    });
}

const log = (name: string, message: string) => process.stderr.write(`voxmetrics worker ${name}: ${message}\n`);

async function runWorker(flags: WorkerFlags): Promise<number> {
  // The same memory-saving heuristics as `score` (see SCORE_V8_FLAGS), before the pool's threads start.
  setFlagsFromString(SCORE_V8_FLAGS);
  let handle: QueueWorkerHandle;
  let label = flags.name ?? `pid ${process.pid}`;
  let stopping = false;
  const early = () => {
    // A signal before Redis answered: nothing is in flight.
    process.exit(0);
  };
  process.once("SIGTERM", early);
  process.once("SIGINT", early);
  try {
    handle = await startQueueWorker({
      url: flags.queue,
      queueName: flags.queueName,
      name: flags.name,
      workers: flags.workers,
      concurrency: flags.concurrency,
      pathMap: flags.pathMap,
      connectTimeoutMs: flags.connectTimeout * 1000,
      stallTimeoutMs: flags.stallTimeout,
      workerFile: flags.poolWorkerFile,
      onRedisEvent: (e) => {
        if (stopping) return;
        if (e.kind === "ready") log(label, "redis connected");
        else log(label, `redis unreachable (${e.error}); reconnecting, attempt ${e.attempt} in ${e.delayMs} ms`);
      },
    });
  } finally {
    process.off("SIGTERM", early);
    process.off("SIGINT", early);
  }
  label = handle.name;
  log(label, `ready: queue "${flags.queueName}", ${handle.threads} thread(s), ${handle.concurrency} job(s) at once`);
  const health = () => {
    const s = handle.stats();
    log(label, `health: ${s.redis === "connected" ? "ok" : "redis reconnecting"} · ${s.jobs} job(s), ${s.calls} call(s) done · ${s.active} active · up ${s.uptimeS}s`);
  };
  const timer = setInterval(health, flags.healthInterval * 1000);

  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      clearInterval(timer);
      log(label, `${signal}: taking no new jobs, finishing ${handle.stats().active} in flight`);
      const deadline = setTimeout(() => {
        log(label, `jobs still in flight after ${STOP_DEADLINE_MS / 1000}s; abandoning them (another worker takes them over)`);
        // The process must end within the grace period whatever the close still waits for.
        const exit = () => process.exit(EXIT_STOP_TIMEOUT);
        setTimeout(exit, FORCE_CLOSE_MS).unref();
        void handle.close(true).then(exit, exit);
        resolve(EXIT_STOP_TIMEOUT);
      }, STOP_DEADLINE_MS);
      void handle.close().then(() => {
        clearTimeout(deadline);
        const s = handle.stats();
        log(label, `stopped after ${s.jobs} job(s), ${s.calls} call(s)`);
        resolve(0);
      });
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}
