// Queue mode end to end on a real redis-server: one coordinator and three worker processes score a 300-call archive into exactly the records of a local --workers 2 run; a coordinator killed and restarted with --resume re-enqueues nothing.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { REDIS_SERVER, REDIS_SKIP_MESSAGE, startRedis, type RedisServer } from "../helpers/redis.js";
import { callsScoredBy, expectSameRecords, killAll, lineCount, mkdirp, recordsOf, voxmetrics, waitFor, writeArchive, type Comparable } from "./setup.js";

if (!REDIS_SERVER) console.warn(REDIS_SKIP_MESSAGE);

const CALLS = 300;
const tmp = mkdtempSync(join(tmpdir(), "vx-queue-"));
const archive = join(tmp, "archive");
const out = (name: string) => join(mkdirp(join(tmp, "out")), name);
let records = 0;
let reference: Map<string, Comparable>;
let redis: RedisServer;

const summaryOf = (path: string) => {
  const { elapsed_s: _, ...rest } = JSON.parse(readFileSync(path, "utf8"));
  return rest;
};

describe.skipIf(!REDIS_SERVER)("queue mode (redis-server is installed: running coordinator and workers)", () => {
  beforeAll(async () => {
    ensureBuilt();
    records = writeArchive(mkdirp(archive), CALLS, 3, true);
    const local = voxmetrics(["score", archive, "--workers", "2", "--out", out("local.jsonl"), "--summary", out("local-summary.json"), "--csv", out("local.csv")]);
    expect(await local.exited, local.stderr()).toBe(0);
    reference = recordsOf(out("local.jsonl"));
    expect(reference.size).toBe(records);
    redis = await startRedis(false);
  }, 180_000);
  afterAll(async () => {
    await killAll();
    await redis?.dispose();
    rmSync(tmp, { recursive: true, force: true });
  });

  it(`one coordinator and three workers score ${CALLS}+ calls: the records of a local --workers 2 run, none doubled, none missing; workers stop cleanly on SIGTERM`, async () => {
    const workers = [1, 2, 3].map((k) => voxmetrics(["worker", "--queue", redis.url, "--queue-name", "main", "--workers", "1", "--name", `w${k}`, "--health-interval", "1"]));
    // The three workers are up (and counted by the queue) before the run, which may take a second only.
    await waitFor("the workers to be ready", () => workers.every((w) => /: ready: queue "main"/.test(w.stderr())));
    const coordinator = voxmetrics(["score", archive, "--queue", redis.url, "--queue-name", "main", "--out", out("queued.jsonl"), "--summary", out("queued-summary.json"), "--csv", out("queued.csv"), "--progress"]);
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    expectSameRecords(recordsOf(out("queued.jsonl")), reference);
    expect(summaryOf(out("queued-summary.json"))).toEqual(summaryOf(out("local-summary.json")));
    const rows = (p: string) => readFileSync(p, "utf8").split("\r\n").filter(Boolean).sort();
    expect(rows(out("queued.csv"))).toEqual(rows(out("local.csv")));
    // Progress shows the queue's depth and its workers.
    expect(coordinator.stderr()).toMatch(/\d+\/\d+ calls .* queue \d+ waiting, \d+ active · 3 worker\(s\)/);

    // Each worker prints a health line every second (--health-interval 1); the run can finish sooner.
    const HEALTH = /voxmetrics worker w\d: health: ok · \d+ job\(s\), \d+ call\(s\) done · \d+ active · up \d+s/;
    for (let waited = 0; waited < 5000 && !workers.every((w) => HEALTH.test(w.stderr())); waited += 100) await new Promise((r) => setTimeout(r, 100));
    for (const w of workers) w.child.kill("SIGTERM");
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0]);
    for (const w of workers) {
      expect(w.stderr()).toMatch(/voxmetrics worker w\d: ready: queue "main", 1 thread\(s\), 2 job\(s\) at once/);
      expect(w.stderr()).toMatch(HEALTH);
      expect(w.stderr()).toMatch(/SIGTERM: taking no new jobs/);
    }
    // Every call was scored exactly once across the workers.
    expect(workers.map((w) => callsScoredBy(w.stderr())).reduce((a, b) => a + b, 0)).toBe(records);
  }, 180_000);

  it("a coordinator killed mid-run and restarted with --resume collects what the workers finished meanwhile and enqueues no finished call again", async () => {
    const workers = [1, 2].map((k) => voxmetrics(["worker", "--queue", redis.url, "--queue-name", "resume", "--workers", "1", "--name", `r${k}`]));
    const file = out("resumed.jsonl");
    const first = voxmetrics(["score", archive, "--queue", redis.url, "--queue-name", "resume", "--out", file]);
    await waitFor("a third of the records", () => lineCount(file) >= CALLS / 3);
    first.child.kill("SIGKILL");
    await first.exited;
    const before = lineCount(file);
    expect(before).toBeLessThan(records);

    // The workers go on with the jobs already in Redis while no coordinator runs.
    const queue = new Queue("resume", { connection: { host: "127.0.0.1", port: redis.port } });
    try {
      await waitFor("the queue to drain", async () => {
        const c = await queue.getJobCounts("waiting", "active", "completed");
        return c.waiting === 0 && c.active === 0 && c.completed > 0;
      });
    } finally {
      await queue.close();
    }
    expect(lineCount(file)).toBe(before);

    const second = voxmetrics(["score", archive, "--queue", redis.url, "--queue-name", "resume", "--out", file, "--resume", "--progress"]);
    expect(await second.exited, second.stderr()).toBe(0);
    expect(second.stderr()).toContain(`resuming: ${before} call(s) already in the output`);
    expectSameRecords(recordsOf(file), reference);

    for (const w of workers) w.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    // Nothing was scored twice: the restarted coordinator re-enqueued no finished call.
    expect(workers.map((w) => callsScoredBy(w.stderr())).reduce((a, b) => a + b, 0)).toBe(records);
  }, 180_000);

  it("a worker sent SIGTERM mid-run finishes its jobs in flight, takes no new ones and exits 0; nothing it had is scored again", async () => {
    const leaving = voxmetrics(["worker", "--queue", redis.url, "--queue-name", "sigterm", "--workers", "1", "--name", "leaving"]);
    const staying = voxmetrics(["worker", "--queue", redis.url, "--queue-name", "sigterm", "--workers", "1", "--name", "staying"]);
    const file = out("sigterm.jsonl");
    const coordinator = voxmetrics(["score", archive, "--queue", redis.url, "--queue-name", "sigterm", "--out", file]);
    await waitFor("a third of the records", () => lineCount(file) >= CALLS / 3);
    leaving.child.kill("SIGTERM");
    expect(await leaving.exited).toBe(0);
    // Jobs were waiting, so the worker had jobs in flight; it finished them before leaving.
    expect(leaving.stderr()).toMatch(/SIGTERM: taking no new jobs, finishing [12] in flight/);
    const left = callsScoredBy(leaving.stderr());
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    expectSameRecords(recordsOf(file), reference);
    staying.child.kill("SIGTERM");
    expect(await staying.exited).toBe(0);
    expect(left + callsScoredBy(staying.stderr())).toBe(records);
  }, 180_000);
});
