// The worker pool: every call scored once in parallel, crashed workers replaced and their call retried once, then an error record.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { MessageChannel } from "node:worker_threads";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverCalls, type CallRef } from "../../src/ingest/index.js";
import { transferableSymbol, valueSymbol } from "piscina";
import { runCalls } from "../../src/pool/index.js";
import runTask from "../../src/pool/worker.js";
import { DEFAULT_SCORE_OPTIONS } from "../../src/scoring/options.js";
import type { CallOutcome, ResultRecord } from "../../src/scoring/record.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");
const CRASHING_WORKER = join(REPO_ROOT, "test", "pool", "crashing-worker.mjs");
const tmp = mkdtempSync(join(tmpdir(), "vx-pool-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function collect(refs: CallRef[], pool: Parameters<typeof runCalls>[2]): Promise<ResultRecord[]> {
  const out: ResultRecord[] = [];
  await runCalls(refs, { ingest: {}, score: DEFAULT_SCORE_OPTIONS }, pool, (o) => {
    expect(o.line).toBeInstanceOf(Uint8Array);
    const text = Buffer.from(o.line!).toString("utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(o.digest.id).toBe(JSON.parse(text).id);
    out.push(JSON.parse(text) as ResultRecord);
  });
  return out;
}

describe("runCalls", () => {
  const { calls } = discoverCalls([ARCHIVE]);

  it("scores every call of the sample archive once, in workers and inline, with the same records", async () => {
    const pooled = await collect(calls, { workers: 2 });
    const inline = await collect(calls, { workers: 0 });
    const strip = (rs: ResultRecord[]) => rs.map((r) => ({ ...r, elapsed_ms: 0 })).sort((a, b) => a.id.localeCompare(b.id));
    expect(pooled.map((r) => r.status)).toEqual(calls.map(() => "ok"));
    expect(strip(pooled)).toEqual(strip(inline));
  }, 60_000);

  it("with appendTo, workers append every record to the file themselves (crash records too) and hand back digests only", async () => {
    const file = join(tmp, "appended.jsonl");
    writeFileSync(file, "");
    const doomed = { ...calls[0], id: `${calls[0].id}#crash-always` };
    const refs = [...calls, doomed];
    const digests: string[] = [];
    await runCalls(refs, { ingest: {}, score: DEFAULT_SCORE_OPTIONS, appendTo: file }, { workers: 2, workerFile: CRASHING_WORKER }, (o) => {
      expect(o.line).toBeNull();
      digests.push(o.digest.id);
    });
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    const records = lines.map((l) => JSON.parse(l) as ResultRecord);
    expect(records.map((r) => r.id).sort()).toEqual(refs.map((r) => r.id).sort());
    expect(digests.sort()).toEqual(refs.map((r) => r.id).sort());
    expect(records.find((r) => r.id === doomed.id)!.error).toMatchObject({ code: "WORKER_CRASHED" });
    const inline = await collect(calls, { workers: 0 });
    const strip = (rs: ResultRecord[]) => rs.map((r) => ({ ...r, elapsed_ms: 0 })).sort((a, b) => a.id.localeCompare(b.id));
    expect(strip(records.filter((r) => r.id !== doomed.id))).toEqual(strip(inline));
  }, 60_000);

  it("a worker hands each record back as its encoded line, the line's buffer transferred (detached on the worker's side), not cloned", async () => {
    // The worker entry's result is Piscina's movable: the outcomes, and the lines' buffers to transfer.
    const moved = runTask({ refs: calls.slice(0, 3), ingest: {}, score: DEFAULT_SCORE_OPTIONS }) as unknown as Record<symbol, unknown>;
    const outcomes = moved[valueSymbol] as CallOutcome[];
    const transfer = moved[transferableSymbol] as ArrayBuffer[];
    expect(outcomes).toHaveLength(3);
    expect(transfer).toHaveLength(3);
    outcomes.forEach((o, i) => expect(transfer[i]).toBe(o.line!.buffer));
    const texts = outcomes.map((o) => Buffer.from(o.line!).toString("utf8"));
    for (const [i, text] of texts.entries()) expect(JSON.parse(text).id).toBe(outcomes[i].digest.id);
    // Posted as Piscina's worker posts a task's response (port.postMessage(response, transferList)).
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<CallOutcome[]>((done) => port2.once("message", (m: { result: CallOutcome[] }) => done(m.result)));
    port1.postMessage({ result: outcomes }, transfer);
    for (const o of outcomes) expect(o.line!.byteLength).toBe(0);
    const got = await received;
    port1.close();
    expect(got.map((o) => Buffer.from(o.line!).toString("utf8"))).toEqual(texts);
  }, 60_000);

  it("through the pool, the lines handed back are the bytes a worker appends with appendTo", async () => {
    const timeless = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1").replace(/"elapsed_ms":[-0-9.e+]+/g, '"elapsed_ms":0');
    const lines: Uint8Array[] = [];
    await runCalls(calls, { ingest: {}, score: DEFAULT_SCORE_OPTIONS }, { workers: 1 }, (o) => {
      expect(o.line).toBeInstanceOf(Uint8Array);
      lines.push(o.line!);
    });
    const file = join(tmp, "same-bytes.jsonl");
    writeFileSync(file, "");
    await runCalls(calls, { ingest: {}, score: DEFAULT_SCORE_OPTIONS, appendTo: file }, { workers: 1 }, () => {});
    expect(timeless(Buffer.concat(lines))).toBe(timeless(readFileSync(file)));
  }, 60_000);

  it("replaces a crashed worker, retries its call once, then records WORKER_CRASHED; other calls are unaffected", async () => {
    const base = calls[0];
    const refs: CallRef[] = [
      { ...base, id: `${base.id}#crash-always` },
      { ...base, id: `${base.id}#crash-once:${join(tmp, "marker")}` },
      ...calls.slice(1, 5),
    ];
    const out = await collect(refs, { workers: 2, workerFile: CRASHING_WORKER });
    const byId = new Map(out.map((r) => [r.id, r]));
    expect(out).toHaveLength(refs.length);
    const dead = byId.get(refs[0].id)!;
    expect(dead.status).toBe("error");
    expect(dead.error).toMatchObject({ code: "WORKER_CRASHED" });
    expect(dead.error!.message).toMatch(/died 2 time\(s\)/);
    expect(byId.get(refs[1].id)!.status).toBe("ok");
    for (const r of refs.slice(2)) expect(byId.get(r.id)!.status).toBe("ok");
  }, 60_000);

  it("batches short calls into tasks; a call that kills its batch is retried alone and the others still score", async () => {
    const copies = Array.from({ length: 4 }, (_, k) => calls.map((c) => ({ ...c, id: `${c.id}#copy-${k}` }))).flat();
    const doomed = { ...calls[0], id: `${calls[0].id}#crash-always` };
    const refs = [...copies, doomed, ...copies.slice(0, 3).map((c) => ({ ...c, id: `${c.id}#after` }))];
    const out = await collect(refs, { workers: 1, workerFile: CRASHING_WORKER });
    expect(out.map((r) => r.id).sort()).toEqual(refs.map((r) => r.id).sort());
    for (const r of out) expect(r.status).toBe(r.id === doomed.id ? "error" : "ok");
    expect(out.find((r) => r.id === doomed.id)!.error!.message).toMatch(/died 2 time\(s\)/);
  }, 60_000);

  it("survives a worker running out of memory", async () => {
    const base = calls[0];
    const out = await collect([{ ...base, id: `${base.id}#oom` }, calls[1]], { workers: 1, workerFile: CRASHING_WORKER, resourceLimits: { maxOldGenerationSizeMb: 48 } });
    const oom = out.find((r) => r.id.endsWith("#oom"))!;
    expect(oom.error).toMatchObject({ code: "WORKER_CRASHED" });
    expect(oom.error!.message).toMatch(/memory/i);
    expect(out.find((r) => r.id === calls[1].id)!.status).toBe("ok");
  }, 60_000);

  it("stops scheduling when aborted and reports the interruption", async () => {
    const abort = new AbortController();
    const seen: string[] = [];
    const { interrupted } = await runCalls(calls, { ingest: {}, score: DEFAULT_SCORE_OPTIONS }, { workers: 1, signal: abort.signal }, (o) => {
      seen.push(o.digest.id);
      abort.abort();
    });
    expect(interrupted).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(calls.length);
  }, 60_000);
});
