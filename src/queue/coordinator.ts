// The queue coordinator: enqueues an archive's calls to BullMQ in batches with idempotent job ids, collects each finished batch's records (in completion order), splits failed batches and records calls that fail alone.
import { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import type { CallRef } from "../ingest/types.js";
import { VoxError } from "../model/errors.js";
import { errorRecord, toOutcome, type CallOutcome, type CallReadOptions, type RecordDigest, type ScoreOptions } from "../scoring/index.js";
import { connectRedis } from "./connection.js";
import { resolveQueueOptions, type QueueOptions } from "./options.js";
import { batchJobId, batchSizeAt, decodeBatch, isolatedQueueName, JOB_NAME, JOB_VERSION, singleJobId, type ScoreJobData, type ScoreJobResult } from "./jobs.js";
import { describeRunOptions, hashRunOptions } from "./shard.js";

/**
 * Outstanding jobs are re-examined this often even without an event, which covers events missed
 * while Redis or this process was away (a job lost with a Redis that kept no data is added again).
 */
const RECONCILE_MS = 10_000;
/**
 * Longest the coordinator awaits Redis at a time (a round of look-ups, an add, a status query, a
 * close). Commands wait in ioredis' queue while Redis is away and are sent again once it is back, so
 * they normally settle; the bound keeps the loop (and an interruption) moving if one does not: what
 * it was doing is tried again at the next reconciliation (every step is idempotent).
 */
const AWAIT_BOUND_MS = 5_000;
/** Jobs added to Redis per round trip. */
const ADD_CHUNK = 100;

interface Outstanding {
  refs: CallRef[];
  /** In the isolation queue (one call, run alone): a failure there is the call's own. */
  isolated: boolean;
}

/**
 * Score `calls` through the queue, calling `onResult` with each record's line and digest as its
 * batch finishes. Calls for which `isDone` holds (already in the results) are not enqueued. A job
 * that failed (its workers died or stalled twice) is split into single-call jobs of the isolation
 * queue; a call that fails there too becomes a WORKER_CRASHED error record. Resolves `interrupted: true` when the signal
 * stopped it first.
 */
export async function runCallsOnQueue(
  calls: readonly CallRef[],
  isDone: (id: string) => boolean,
  run: { ingest: CallReadOptions; score: ScoreOptions },
  options: QueueOptions,
  onResult: (outcome: CallOutcome) => void,
): Promise<{ interrupted: boolean }> {
  const o = resolveQueueOptions(options);
  const client = await connectRedis(o.url, { connectTimeoutMs: o.connectTimeoutMs, name: "voxmetrics-coordinator", autoPipelining: true });
  const lanes = [o.name, isolatedQueueName(o.name)].map((name) => {
    const queue = new Queue<ScoreJobData, ScoreJobResult>(name, { connection: client });
    // Its own connection: it blocks on the event stream (and must not be pipelined with others).
    const eventsConnection = client.duplicate({ enableAutoPipelining: false }) as Redis;
    const events = new QueueEvents(name, { connection: eventsConnection });
    // Errors while Redis is away are retried by the connections; they must not crash the process.
    queue.on("error", () => {});
    events.on("error", () => {});
    return { queue, events, eventsConnection };
  }) as [Lane, Lane];
  try {
    await Promise.all(lanes.map((l) => l.events.waitUntilReady()));
    return await collect(client, lanes, calls, isDone, run, o, onResult);
  } finally {
    // Bounded: the records are written; a close that waits on a connection in back-off must not keep the process.
    await within(AWAIT_BOUND_MS, Promise.all(lanes.flatMap((l) => [l.events.close(), l.queue.close()])));
    for (const l of lanes) l.eventsConnection.disconnect();
    client.disconnect();
  }
}

interface Lane {
  queue: Queue<ScoreJobData, ScoreJobResult>;
  events: QueueEvents;
  eventsConnection: Redis;
}

/**
 * Wait for `work` at most `ms`: true when it settled in time. A rejection is not thrown here: it is
 * handed to `onError` (when given) whenever it comes, so a promise given up on never goes unhandled.
 */
async function within(ms: number, work: Promise<unknown>, onError?: (error: unknown) => void): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    () => true,
    (error: unknown) => {
      onError?.(error);
      return true;
    },
  );
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function collect(
  client: Redis,
  [main, isolated]: [Lane, Lane],
  calls: readonly CallRef[],
  isDone: (id: string) => boolean,
  run: { ingest: CallReadOptions; score: ScoreOptions },
  o: ReturnType<typeof resolveQueueOptions>,
  onResult: (outcome: CallOutcome) => void,
): Promise<{ interrupted: boolean }> {
  const optionsHash = hashRunOptions(describeRunOptions(run.score, run.ingest));
  const outstanding = new Map<string, Outstanding>();
  const toCheck = new Set<string>();
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const onFinished = ({ jobId }: { jobId: string }) => {
    if (outstanding.has(jobId)) {
      toCheck.add(jobId);
      poke();
    }
  };
  // Results announced by "completed" events (their return value: where the records wait), collected
  // without looking the job up; a job whose event was missed is found by the reconciliation.
  const announced = new Map<string, ScoreJobResult>();
  const onCompleted = ({ jobId, returnvalue }: { jobId: string; returnvalue?: unknown }) => {
    const result = returnvalue as Partial<ScoreJobResult> | null | undefined;
    if (outstanding.has(jobId) && typeof result?.key === "string") announced.set(jobId, result as ScoreJobResult);
    onFinished({ jobId });
  };
  for (const { events } of [main, isolated]) {
    events.on("completed", onCompleted);
    events.on("failed", onFinished);
  }
  o.signal?.addEventListener("abort", poke);

  const jobOf = (refs: CallRef[]): ScoreJobData => ({ v: JOB_VERSION, refs, ingest: run.ingest, score: run.score });
  const jobOptions = (jobId: string) => ({ jobId, attempts: 1, removeOnComplete: false, removeOnFail: false });
  const add = async (jobs: Array<{ id: string; refs: CallRef[] }>, lane: "main" | "isolated") => {
    if (jobs.length === 0) return;
    for (const j of jobs) outstanding.set(j.id, { refs: j.refs, isolated: lane === "isolated" });
    const queue = lane === "main" ? main.queue : isolated.queue;
    await queue.addBulk(jobs.map((j) => ({ name: JOB_NAME, data: jobOf(j.refs), opts: jobOptions(j.id) })));
  };

  const batchAt = (start: number) => batchSizeAt(start, calls.length, o.batchSize);
  let next = 0;
  const fill = async () => {
    while (outstanding.size < o.jobsAhead && next < calls.length) {
      const chunk: Array<{ id: string; refs: CallRef[] }> = [];
      while (chunk.length < ADD_CHUNK && outstanding.size + chunk.length < o.jobsAhead && next < calls.length) {
        const batch = calls.slice(next, next + batchAt(next));
        next += batch.length;
        const refs = batch.filter((c) => !isDone(c.id));
        if (refs.length > 0) chunk.push({ id: batchJobId(optionsHash, batch.map((c) => c.id)), refs });
      }
      if (chunk.length === 0) break;
      await add(chunk, "main");
    }
  };

  const deliver = (refs: CallRef[], result: ScoreJobResult | null, batch: ReturnType<typeof decodeBatch> | null, why: string | null) => {
    const wanted = new Set(refs.map((r) => r.id));
    const seen = new Set<string>();
    batch?.digests.forEach((digest: RecordDigest, i) => {
      if (!wanted.has(digest.id) || seen.has(digest.id)) return;
      seen.add(digest.id);
      onResult({ line: batch.lines[i], digest });
    });
    for (const ref of refs) {
      if (seen.has(ref.id)) continue;
      const message = why ?? `worker ${result?.worker ?? "?"} returned no record for this call`;
      onResult(toOutcome(errorRecord(ref, new VoxError("WORKER_CRASHED", message, { file: ref.displayPath }))));
    }
  };

  const examine = async (id: string) => {
    const entry = outstanding.get(id);
    if (!entry) return;
    const queue = entry.isolated ? isolated.queue : main.queue;
    const told = announced.get(id);
    if (told) {
      announced.delete(id);
      const bytes = await client.getBuffer(told.key);
      if (!outstanding.has(id)) return;
      if (bytes !== null) {
        outstanding.delete(id);
        deliver(entry.refs, told, decodeBatch(bytes), null);
        // In one write (auto-pipelining). The job stayed until its records were written, so a
        // coordinator resumed before this point finds it finished and adds nothing twice.
        await Promise.all([client.del(told.key).catch(() => {}), queue.remove(id).catch(() => {})]);
        return;
      }
      // No records under the key: the job itself says what happened (below).
    }
    const job = await queue.getJob(id);
    if (!outstanding.has(id)) return;
    if (!job) {
      // Lost (Redis restarted without its data): add it again under the same id.
      await queue.add(JOB_NAME, jobOf(entry.refs), jobOptions(id));
      return;
    }
    // A finished job has finishedOn; a failed one a failure reason and no return value.
    if (!job.finishedOn) return;
    if (job.returnvalue) {
      const result = job.returnvalue as ScoreJobResult;
      const bytes = result.key ? await client.getBuffer(result.key) : null;
      if (!outstanding.has(id)) return;
      if (bytes === null) {
        // Its records are gone (expired, or a Redis that kept no data): score the batch again.
        await job.remove().catch(() => {});
        await queue.add(JOB_NAME, jobOf(entry.refs), jobOptions(id));
        return;
      }
      outstanding.delete(id);
      deliver(entry.refs, result, decodeBatch(bytes), null);
      await client.del(result.key).catch(() => {});
    } else if (!entry.isolated) {
      outstanding.delete(id);
      // Which call brought the workers down is unknown (and the job may only have shared a process
      // with it): each is tried alone, in isolation.
      const singles = entry.refs.filter((r) => !isDone(r.id)).map((r) => ({ id: singleJobId(optionsHash, r.id), refs: [r] }));
      await add(singles, "isolated");
    } else {
      outstanding.delete(id);
      deliver(entry.refs, null, null, `the job scoring this call failed twice (${job.failedReason || "no reason given"}): its workers died or stalled while scoring it`);
    }
    await job.remove().catch(() => {});
  };

  let status: Promise<void> | null = null;
  let lastStatus = -Infinity; // the first status at once: a short run may end before one interval
  const report = () => {
    if (!o.onStatus || status || performance.now() - lastStatus < o.statusIntervalMs) return;
    lastStatus = performance.now();
    status = (async () => {
      const [a, b] = await Promise.all([main.queue.getJobCounts("waiting", "prioritized", "active", "delayed"), isolated.queue.getJobCounts("waiting", "prioritized", "active", "delayed")]);
      const workers = await main.queue.getWorkersCount();
      const waiting = (c: Record<string, number>) => (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0);
      o.onStatus?.({ waiting: waiting(a) + waiting(b), active: (a.active ?? 0) + (b.active ?? 0), workers });
    })()
      .catch(() => {})
      .finally(() => (status = null));
  };

  // Look-ups still in flight after their round's bound: not started again until they settle.
  const examining = new Set<string>();
  const failure: { error?: unknown; failed: boolean } = { failed: false };
  const fail = (error: unknown) => {
    if (!failure.failed) Object.assign(failure, { error, failed: true });
    poke();
  };
  const examineAll = (ids: string[]) => {
    const fresh = ids.filter((id) => !examining.has(id));
    for (const id of fresh) examining.add(id);
    return Promise.all(
      fresh.map((id) =>
        examine(id).finally(() => {
          examining.delete(id);
          poke();
        }),
      ),
    );
  };
  let filling: Promise<void> | null = null;

  let lastReconcile = -Infinity;
  for (;;) {
    if (failure.failed) throw failure.error;
    if (!o.signal?.aborted && !filling) {
      const f = (filling = fill().finally(() => {
        filling = null;
        poke();
      }));
      await within(AWAIT_BOUND_MS, f, fail);
    }
    if (outstanding.size === 0 && next >= calls.length && !filling) break;
    if (o.signal?.aborted) return { interrupted: true };
    const now = performance.now();
    if (now - lastReconcile >= RECONCILE_MS) {
      lastReconcile = now;
      for (const id of outstanding.keys()) toCheck.add(id);
    }
    if (toCheck.size > 0) {
      const ids = [...toCheck];
      toCheck.clear();
      await within(AWAIT_BOUND_MS, examineAll(ids), fail);
      report();
      continue;
    }
    report();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(RECONCILE_MS, o.statusIntervalMs));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  if (failure.failed) throw failure.error;
  if (status) await within(AWAIT_BOUND_MS, status);
  return { interrupted: false };
}

