// Redis connections of the queue (ioredis): URL validation, reconnection with back-off, and a first connection that fails within a bounded time.
import { Redis } from "ioredis";
import { VoxError } from "../model/errors.js";
import { checkRedisUrl, reconnectDelayMs, redactRedisUrl } from "./options.js";

export interface RedisConnectOptions {
  /** Give up when the first connection is not ready after this long (ms). */
  connectTimeoutMs: number;
  /** Connection name shown by CLIENT LIST. */
  name?: string;
  /** Called when an established connection is lost and on each reconnection attempt. */
  onReconnecting?: (attempt: number, delayMs: number, lastError: string) => void;
  onReady?: () => void;
  /** Send the commands issued in one tick in one write (the coordinator's many small look-ups). */
  autoPipelining?: boolean;
}

/**
 * Connect to Redis: retries with back-off until ready or `connectTimeoutMs` passes (then a
 * CONNECT_FAILED naming the URL and the last error); once ready, the connection reconnects with
 * back-off for as long as it lives, and commands wait for it (BullMQ needs maxRetriesPerRequest null).
 */
export async function connectRedis(url: string, options: RedisConnectOptions): Promise<Redis> {
  checkRedisUrl(url);
  let lastError = "no answer";
  let attempts = 0;
  const client = new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: true,
    connectionName: options.name,
    enableAutoPipelining: options.autoPipelining ?? false,
    retryStrategy: (times: number) => {
      attempts = times;
      const delay = reconnectDelayMs(times);
      options.onReconnecting?.(times, delay, lastError);
      return delay;
    },
  });
  client.on("error", (err: Error) => {
    lastError = err.message || String(err);
  });
  const ready = new Promise<void>((resolve) => client.once("ready", () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), options.connectTimeoutMs)));
  client.connect().catch((err: Error) => {
    lastError = err.message || String(err);
  });
  const first = await Promise.race([ready, timeout]);
  clearTimeout(timer);
  if (first === "timeout") {
    client.disconnect();
    throw new VoxError("CONNECT_FAILED", `cannot reach Redis at ${redactRedisUrl(url)} within ${Math.round(options.connectTimeoutMs / 1000)} s (${attempts} attempt(s); last error: ${lastError})`);
  }
  client.on("ready", () => options.onReady?.());
  return client;
}
