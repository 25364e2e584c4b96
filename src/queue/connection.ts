// Redis connections of the queue (ioredis): URL validation, reconnection with back-off, and a first connection that fails within a bounded time.
import { Redis, type RedisOptions } from "ioredis";
import { VoxError } from "../model/errors.js";
import { checkRedisUrl, reconnectDelayMs, redactRedisUrl } from "./options.js";

/**
 * An ioredis connection whose `disconnect()` always ends it, also while it waits to reconnect.
 *
 * ioredis, asked to disconnect while it waits out a reconnection delay (status "reconnecting": the
 * socket is gone, a timer will reconnect), clears the timer and asks the already-closed socket to
 * close: no "close" follows, so the connection stays "reconnecting" for ever, never emits "end", and
 * the commands queued on it never settle. BullMQ closes its workers and event readers by
 * disconnecting and awaiting "end" (`Worker.close`, `QueueEvents.close`), so closing one whose
 * connection was in back-off after a Redis restart hung for ever. Here such a disconnect ends the
 * connection at once, as ioredis does for one that never connected (status "wait"): status "end",
 * "end" emitted, queued commands rejected. Duplicates (BullMQ's blocking and event connections are
 * duplicates of the one it is given) are of this class too.
 */
export class ClosableRedis extends Redis {
  override disconnect(reconnect = false): void {
    const inBackOff = !reconnect && this.status === "reconnecting";
    super.disconnect(reconnect);
    if (inBackOff && this.status === "reconnecting") {
      // What ioredis' close handler does for a manual close (private members of ioredis).
      const self = this as unknown as { manuallyClosing: boolean; setStatus(status: string): void; flushQueue(error: Error): void };
      self.manuallyClosing = false;
      self.setStatus("end");
      self.flushQueue(new Error("Connection is closed."));
    }
  }
}
// As ioredis' own duplicate, but of this class (assigned here: its generic typing does not allow an override).
(ClosableRedis.prototype as unknown as { duplicate(override?: Partial<RedisOptions>): Redis }).duplicate = function (this: ClosableRedis, override?: Partial<RedisOptions>) {
  return new ClosableRedis({ ...this.options, ...(override ?? {}) } as RedisOptions & { replyMapping?: "legacy" });
};

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
export async function connectRedis(url: string, options: RedisConnectOptions): Promise<ClosableRedis> {
  checkRedisUrl(url);
  let lastError = "no answer";
  let attempts = 0;
  const client = new ClosableRedis(url, {
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
