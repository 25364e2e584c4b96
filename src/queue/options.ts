// The options of queue mode, its workers and their Redis connections, with their defaults and checks; kept apart from bullmq and ioredis so that reading them loads neither.
import { VoxError } from "../model/errors.js";

/** First reconnection delay after Redis goes away (ms); doubled per attempt up to RECONNECT_MAX_MS. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** Delay before reconnection attempt `times` (1-based): exponential back-off, capped. */
export function reconnectDelayMs(times: number): number {
  return Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** Math.min(times - 1, 16));
}

/** A `redis://` or `rediss://` URL (host, port, optional /db); anything else is an INVALID_OPTION naming `queue`. */
export function checkRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new VoxError("INVALID_OPTION", `must be a Redis URL like redis://host:6379/0, got "${url}"`, { field: "queue" });
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw new VoxError("INVALID_OPTION", `must start with redis:// or rediss://, got "${url}"`, { field: "queue" });
  if (parsed.pathname && parsed.pathname !== "/" && !/^\/\d+$/.test(parsed.pathname)) throw new VoxError("INVALID_OPTION", `the database must be a number (redis://host:6379/0), got "${parsed.pathname.slice(1)}"`, { field: "queue" });
  return url;
}

/** The URL without its password, for messages and health lines. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

/** Every option of queue mode; defaults in DEFAULT_QUEUE_OPTIONS. */
export interface QueueOptions {
  /** Redis URL (redis://host:6379/0). */
  url: string;
  /**
   * BullMQ queue name: workers of this name pull the jobs.
   * @defaultValue "voxmetrics"
   */
  name?: string;
  /**
   * Calls per job. Batches are cut from the discovered list in order, so the same archive always
   * gives the same batches (and job ids); a batch amortises the per-job Redis round trips.
   * @defaultValue 16
   */
  batchSize?: number;
  /**
   * Jobs in Redis ahead of the results, so memory (here and in Redis) does not grow with the archive.
   * @defaultValue 500
   */
  jobsAhead?: number;
  /**
   * Give up when Redis is not reachable at start after this long (ms).
   * @defaultValue 20000
   */
  connectTimeoutMs?: number;
  /**
   * How often queue depth and workers are reported to `onStatus` (ms).
   * @defaultValue 1000
   */
  statusIntervalMs?: number;
  /** Queue depth and live workers, every statusIntervalMs. */
  onStatus?: (status: QueueStatus) => void;
  /** Stops enqueueing and returns; the jobs in Redis stay, and `--resume` collects them. */
  signal?: AbortSignal;
}

/** The queue's state as the coordinator's progress line shows it: jobs waiting and active, live workers. */
export interface QueueStatus {
  /** Jobs waiting for a worker. */
  waiting: number;
  /** Jobs being scored. */
  active: number;
  /** Worker processes connected to the queue. */
  workers: number;
}

type QueueDefaults = Required<Pick<QueueOptions, "name" | "batchSize" | "jobsAhead" | "connectTimeoutMs" | "statusIntervalMs">>;

/** Defaults of queue mode (`score --queue`): queue name, calls per job, jobs enqueued ahead, connect timeout and status interval. */
export const DEFAULT_QUEUE_OPTIONS: Readonly<QueueDefaults> = Object.freeze({
  name: "voxmetrics",
  batchSize: 16,
  jobsAhead: 500,
  connectTimeoutMs: 20_000,
  statusIntervalMs: 1_000,
});

/** Defaults overlaid with `partial`; a bad value is an INVALID_OPTION naming the option. */
export function resolveQueueOptions(partial: QueueOptions): QueueOptions & QueueDefaults {
  const o = { ...DEFAULT_QUEUE_OPTIONS, ...partial };
  for (const key of ["batchSize", "jobsAhead", "connectTimeoutMs", "statusIntervalMs"] as const) {
    const v = partial[key];
    if (v === undefined) {
      o[key] = DEFAULT_QUEUE_OPTIONS[key];
      continue;
    }
    if (!Number.isInteger(v) || v < 1) throw new VoxError("INVALID_OPTION", `must be an integer ≥ 1, got ${String(v)}`, { field: key });
  }
  if (partial.name === undefined) o.name = DEFAULT_QUEUE_OPTIONS.name;
  else if (!/^[A-Za-z0-9_.-]+$/.test(partial.name)) throw new VoxError("INVALID_OPTION", `must be letters, digits, '_', '.' or '-', got "${partial.name}"`, { field: "queueName" });
  return o;
}

/** A mount difference: coordinator paths under `from` are read under `to` on this machine. */
export interface PathMapping {
  from: string;
  to: string;
}

/** Every option of a queue worker; defaults in DEFAULT_QUEUE_WORKER_OPTIONS. */
export interface QueueWorkerOptions {
  /** Redis URL (redis://host:6379/0). */
  url: string;
  /**
   * BullMQ queue name (the coordinator's).
   * @defaultValue "voxmetrics"
   */
  queueName?: string;
  /**
   * This worker's name in records, health lines and BullMQ's worker list.
   * @defaultValue `<hostname>-<pid>`
   */
  name?: string;
  /**
   * Threads of the local scoring pool.
   * @defaultValue os.availableParallelism()
   */
  workers?: number;
  /**
   * Jobs (batches) scored at once; two keep the threads busy while a finished batch is reported.
   * @defaultValue 2
   */
  concurrency?: number;
  /** Coordinator path prefixes and where this machine mounts them (longest prefix wins). */
  pathMap?: Array<PathMapping | string>;
  /**
   * Give up when Redis is not reachable at start after this long (ms).
   * @defaultValue 20000
   */
  connectTimeoutMs?: number;
  /**
   * A job whose worker stops renewing its lock for this long (ms) is stalled: BullMQ puts it back
   * once, and fails it the second time. Checked every half of it.
   * @defaultValue 30000
   */
  stallTimeoutMs?: number;
  /** Compiled pool worker entry (tests inject a crashing one). */
  workerFile?: string;
  /** Connection events, for the health line. */
  onRedisEvent?: (event: { kind: "ready" } | { kind: "reconnecting"; attempt: number; delayMs: number; error: string }) => void;
}

/** Defaults of `voxmetrics worker`: jobs at once, connect timeout and stalled-job timeout. */
export const DEFAULT_QUEUE_WORKER_OPTIONS = Object.freeze({
  concurrency: 2,
  connectTimeoutMs: 20_000,
  stallTimeoutMs: 30_000,
});

/** Shortest stalled-job check interval (ms). */
export const MIN_STALL_CHECK_MS = 250;

/** Parse `FROM=TO` (both non-empty); a bad one is an INVALID_OPTION naming `pathMap`. */
export function parsePathMapping(text: string | PathMapping): PathMapping {
  const m = typeof text === "string" ? /^([^=]+)=(.+)$/.exec(text) : [null, text.from, text.to];
  if (!m || !m[1] || !m[2]) throw new VoxError("INVALID_OPTION", `must be FROM=TO (a coordinator path prefix and where this machine mounts it), got "${String(text)}"`, { field: "pathMap" });
  const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, "") : p);
  return { from: trim(m[1]), to: trim(m[2]) };
}

/** `path` with the longest matching `from` prefix (at a path boundary) replaced by its `to`. */
export function mapPath(path: string, mappings: readonly PathMapping[]): string {
  let best: PathMapping | null = null;
  for (const m of mappings) {
    if ((path === m.from || path.startsWith(m.from.endsWith("/") ? m.from : `${m.from}/`)) && (!best || m.from.length > best.from.length)) best = m;
  }
  return best ? best.to + path.slice(best.from.length) : path;
}

