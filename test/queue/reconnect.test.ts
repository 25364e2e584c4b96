// Closing across a Redis outage on a real redis-server: a connection closed while it waits out its reconnection back-off ends (ioredis alone stays "reconnecting" for ever and never emits "end", on which BullMQ's close waits), and so a coordinator interrupted, or a worker stopped, while Redis is down returns instead of hanging.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverCalls } from "../../src/ingest/index.js";
import { ClosableRedis, connectRedis } from "../../src/queue/connection.js";
import { runCallsOnQueue, startQueueWorker, type QueueStatus } from "../../src/queue/index.js";
import { DEFAULT_SCORE_OPTIONS } from "../../src/scoring/index.js";
import { REDIS_SERVER, REDIS_SKIP_MESSAGE, startRedis } from "../helpers/redis.js";
import { mkdirp, sleep, waitFor, writeArchive } from "./setup.js";

if (!REDIS_SERVER) console.warn(REDIS_SKIP_MESSAGE);

const tmp = mkdtempSync(join(tmpdir(), "vx-queue-reconnect-"));

/** Resolves to what `p` settled to, or "still pending" after `ms` (a hang shows as a failed expectation, not a test timeout). */
function settledWithin<T>(ms: number, p: Promise<T>): Promise<T | "still pending"> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<"still pending">((r) => (timer = setTimeout(() => r("still pending"), ms)))]).finally(() => clearTimeout(timer));
}

/** Until `client` has lost Redis and waits to reconnect (connection refused: back-off of 100 ms, 200 ms, … up to 5 s). */
const inBackOff = (client: ClosableRedis) => waitFor("the connection to wait to reconnect", () => client.status === "reconnecting", 20_000);

describe.skipIf(!REDIS_SERVER)("closing across a Redis outage (redis-server is installed)", () => {
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("a connection and its duplicates, closed while waiting to reconnect, end at once and reject what was queued on them", async () => {
    const redis = await startRedis(false);
    try {
      const client = await connectRedis(redis.url, { connectTimeoutMs: 5000 });
      const dup = client.duplicate();
      expect(dup).toBeInstanceOf(ClosableRedis);
      // Connections are lazy: the first command connects.
      expect(await dup.ping()).toBe("PONG");
      await redis.kill();
      await Promise.all([inBackOff(client), inBackOff(dup)]);
      const queued = dup.get("some-key");
      for (const c of [client, dup]) {
        const ended = new Promise<string>((resolve) => c.once("end", () => resolve("end")));
        c.disconnect();
        expect(await settledWithin(5000, ended)).toBe("end");
        expect(c.status).toBe("end");
      }
      await expect(settledWithin(5000, queued)).rejects.toThrow(/Connection is closed/);
    } finally {
      await redis.dispose();
    }
  }, 60_000);

  it("a coordinator interrupted while Redis is down returns (its event readers in back-off), and its jobs are still in Redis once it is back", async () => {
    const redis = await startRedis(true);
    const archive = mkdirp(join(tmp, "archive"));
    writeArchive(archive, 8, 1, false);
    try {
      const { calls } = discoverCalls([archive]);
      const abort = new AbortController();
      let status: QueueStatus | null = null;
      // No worker: the jobs wait in Redis.
      const run = runCallsOnQueue(calls, () => false, { ingest: {}, score: { ...DEFAULT_SCORE_OPTIONS } }, { url: redis.url, name: "outage", batchSize: 4, statusIntervalMs: 100, signal: abort.signal, onStatus: (s) => (status = s) }, () => {
        throw new Error("no call can be scored without a worker");
      });
      await waitFor("both jobs to be enqueued", () => status !== null && status.waiting === 2, 30_000);
      await redis.kill();
      // Every connection has failed at least once and waits out a back-off.
      await sleep(1000);
      abort.abort();
      expect(await settledWithin(20_000, run)).toEqual({ interrupted: true });

      await redis.start();
      const check = await connectRedis(redis.url, { connectTimeoutMs: 5000 });
      try {
        expect(await check.llen("bull:outage:wait")).toBe(2);
      } finally {
        check.disconnect();
      }
    } finally {
      await redis.dispose();
    }
  }, 60_000);

  it("a worker stopped while Redis is down closes (its blocking connections in back-off)", async () => {
    const redis = await startRedis(false);
    try {
      const events: string[] = [];
      const worker = await startQueueWorker({ url: redis.url, queueName: "outage-worker", workers: 0, connectTimeoutMs: 5000, onRedisEvent: (e) => events.push(e.kind) });
      await redis.kill();
      await waitFor("the worker to see Redis go", () => events.includes("reconnecting"), 20_000);
      await sleep(1000);
      expect(await settledWithin(20_000, worker.close().then(() => "closed"))).toBe("closed");
      expect(worker.stats().active).toBe(0);
    } finally {
      await redis.dispose();
    }
  }, 60_000);
});
