// Queue faults on a real redis-server: a worker SIGKILLed mid-job and redis-server killed and restarted mid-run lose no call and double none; a call that kills its worker process becomes an error record; workers read moved archives through --path-map and name unreadable paths; a worker without Redis exits non-zero.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { freePort, REDIS_SERVER, REDIS_SKIP_MESSAGE, startRedis, type RedisServer } from "../helpers/redis.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { expectSameRecords, killAll, lineCount, mkdirp, recordsOf, sleep, voxmetrics, waitFor, writeArchive, type Child, type Comparable } from "./setup.js";

if (!REDIS_SERVER) console.warn(REDIS_SKIP_MESSAGE);

const CALLS = 300;
const SMALL = 24;
const KILLING_WORKER = join(REPO_ROOT, "test", "queue", "killing-worker.mjs");
const tmp = mkdtempSync(join(tmpdir(), "vx-queue-faults-"));
const archive = join(tmp, "archive");
const small = join(tmp, "small");
const out = (name: string) => join(mkdirp(join(tmp, "out")), name);
let reference: Map<string, Comparable>;
let smallReference: Map<string, Comparable>;

async function localRun(dir: string, file: string): Promise<Map<string, Comparable>> {
  const local = voxmetrics(["score", dir, "--workers", "2", "--out", file]);
  expect(await local.exited, local.stderr()).toBe(0);
  return recordsOf(file);
}

describe.skipIf(!REDIS_SERVER)("queue faults (redis-server is installed: killing workers, Redis and calls)", () => {
  beforeAll(async () => {
    ensureBuilt();
    writeArchive(mkdirp(archive), CALLS, 3, true);
    reference = await localRun(archive, out("local.jsonl"));
    writeArchive(mkdirp(small), SMALL, 1, false);
    smallReference = await localRun(small, out("small-local.jsonl"));
  }, 180_000);
  afterAll(async () => {
    await killAll();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("a worker SIGKILLed mid-job, another started later, and redis-server killed and restarted mid-run (append-only file on): exactly the local run's records", async () => {
    const redis = await startRedis(true);
    try {
      const worker = (name: string) => voxmetrics(["worker", "--queue", redis.url, "--queue-name", "faults", "--workers", "1", "--name", name, "--stall-timeout", "2000"]);
      const workers = [worker("a"), worker("b")];
      const file = out("faults.jsonl");
      const coordinator = voxmetrics(["score", archive, "--queue", redis.url, "--queue-name", "faults", "--batch-size", "4", "--out", file]);

      // With jobs waiting, each worker always has jobs in flight: the kill lands mid-job.
      await waitFor("the first records", () => lineCount(file) >= 40);
      workers[0].child.kill("SIGKILL");
      expect(await workers[0].exited).toBeNull();
      await sleep(500);
      workers.push(worker("c"));

      await waitFor("half of the records", () => lineCount(file) >= CALLS / 2);
      await redis.kill();
      await sleep(1500);
      await redis.start();

      expect(await coordinator.exited, coordinator.stderr()).toBe(0);
      expectSameRecords(recordsOf(file), reference);
      // The worker running throughout saw Redis go and come back.
      expect(workers[1].stderr()).toMatch(/redis unreachable \(.*\); reconnecting, attempt \d+ in \d+ ms/);
      // Its back-off (up to 5 s between attempts) may bring it back after worker c finished the run.
      await waitFor("worker b to reconnect", () => /redis connected/.test(workers[1].stderr()), 30_000);
      expect(workers[1].stderr()).toMatch(/redis connected/);
      for (const w of workers.slice(1)) w.child.kill("SIGTERM");
      expect(await Promise.all(workers.slice(1).map((w) => w.exited))).toEqual([0, 0]);
    } finally {
      await redis.dispose();
    }
  }, 240_000);

  it("a call that kills its worker process twice is an error record, never a poison pill: its batch is split and every other call is scored", async () => {
    const redis = await startRedis(false);
    const poisonDir = join(tmp, "poison");
    try {
      // 22 calls, then the poison: the last batch of four holds two calls and the poison.
      writeArchive(mkdirp(poisonDir), SMALL - 2, 1, false);
      writeFileSync(join(poisonDir, "poison.jsonl"), JSON.stringify({ name: "poison", turns: [{ role: "user", content: "x" }] }) + "\n");
      const expected = await localRun(poisonDir, out("poison-local.jsonl"));
      // Two worker slots, each restarted when its process dies (as Kubernetes or systemd would).
      let deaths = 0;
      let stopped = false;
      const live = new Set<Child>();
      const supervise = (slot: number) => {
        const w = voxmetrics(["worker", "--queue", redis.url, "--queue-name", "poison", "--workers", "1", "--name", `p${slot}`, "--stall-timeout", "2000", "--pool-worker-file", KILLING_WORKER]);
        live.add(w);
        void w.exited.then((code) => {
          live.delete(w);
          if (stopped) return;
          expect(code).toBeNull();
          deaths++;
          supervise(slot);
        });
      };
      supervise(1);
      supervise(2);
      const file = out("poison.jsonl");
      const coordinator = voxmetrics(["score", poisonDir, "--queue", redis.url, "--queue-name", "poison", "--batch-size", "4", "--out", file]);
      expect(await coordinator.exited, coordinator.stderr()).toBe(0);
      stopped = true;
      for (const w of live) w.child.kill("SIGTERM");
      await Promise.all([...live].map((w) => w.exited));

      const got = recordsOf(file);
      // Ids carry the call's content digest: the poison call is the one named poison.jsonl#0.
      const poisonId = [...got.keys()].find((id) => bareId(id) === "poison.jsonl#0")!;
      const poison = got.get(poisonId)!;
      expect(poison.status).toBe("error");
      expect(poison.error!.code).toBe("WORKER_CRASHED");
      expect(poison.error!.message).toMatch(/poison\.jsonl: the job scoring this call failed twice \(.*\): its workers died or stalled while scoring it/);
      got.delete(poisonId);
      expect(expected.delete(poisonId)).toBe(true);
      expectSameRecords(got, expected);
      // Twice in its batch, twice alone.
      expect(deaths).toBe(4);
    } finally {
      await redis.dispose();
    }
  }, 240_000);

  it("workers read an archive mounted elsewhere through --path-map; a worker that cannot read a path records an error naming itself and the path", async () => {
    const redis = await startRedis(false);
    const moved = join(tmp, "small-moved");
    try {
      const queue = new Queue("paths", { connection: { host: "127.0.0.1", port: redis.port } });
      const enqueue = async (file: string) => {
        const c = voxmetrics(["score", small, "--queue", redis.url, "--queue-name", "paths", "--batch-size", "4", "--out", file]);
        await waitFor("the jobs to be enqueued", async () => (await queue.getJobCounts("waiting")).waiting === SMALL / 4);
        return c;
      };
      try {
        // The coordinator sees the archive at `small`; the worker's machine mounts it at `moved`.
        const mappedOut = out("mapped.jsonl");
        const c1 = await enqueue(mappedOut);
        renameSync(small, moved);
        const mapped = voxmetrics(["worker", "--queue", redis.url, "--queue-name", "paths", "--workers", "1", "--name", "mapped", "--path-map", `${small}=${moved}`]);
        expect(await c1.exited, c1.stderr()).toBe(0);
        expectSameRecords(recordsOf(mappedOut), smallReference);
        mapped.child.kill("SIGTERM");
        expect(await mapped.exited).toBe(0);

        renameSync(moved, small);
        const unmappedOut = out("unmapped.jsonl");
        const c2 = await enqueue(unmappedOut);
        renameSync(small, moved);
        const blind = voxmetrics(["worker", "--queue", redis.url, "--queue-name", "paths", "--workers", "1", "--name", "blind"]);
        // Every call errored: the coordinator exits 1 and says so (its inputs were readable when it read them).
        expect(await c2.exited, c2.stderr()).toBe(1);
        expect(c2.stderr()).toContain(`every call errored (${SMALL} of ${SMALL})`);
        expect(c2.stderr()).not.toMatch(/missing or unreadable/);
        blind.child.kill("SIGTERM");
        expect(await blind.exited).toBe(0);
        const errors = recordsOf(unmappedOut);
        expect([...errors.keys()].sort()).toEqual([...smallReference.keys()].sort());
        for (const r of errors.values()) {
          expect(r.status).toBe("error");
          expect(r.error!.code).toBe("IO_ERROR");
          expect(r.error!.message).toContain(`worker blind cannot read ${join(small, "calls-0.jsonl")}`);
        }
      } finally {
        await queue.close();
        renameSync(moved, small);
      }
    } finally {
      await redis.dispose();
    }
  }, 180_000);

  it("a worker exits non-zero, naming the URL, when Redis cannot be reached at start", async () => {
    const port = await freePort();
    const w = voxmetrics(["worker", "--queue", `redis://127.0.0.1:${port}/0`, "--connect-timeout", "2", "--workers", "1"]);
    expect(await w.exited).toBe(1);
    expect(w.stderr()).toMatch(new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}/0 within 2 s \\(\\d+ attempt\\(s\\); last error: .*ECONNREFUSED`));
    const bad = voxmetrics(["worker", "--queue", "http://127.0.0.1:6379"]);
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toContain('queue: must start with redis:// or rediss://, got "http://127.0.0.1:6379"');
  }, 60_000);
});
