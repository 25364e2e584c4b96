// Queue building blocks without Redis: path mapping, Redis URL checks, reconnection back-off, idempotent job ids, option validation.
import { describe, expect, it } from "vitest";
import { batchSizeAt, decodeBatch, encodeBatch } from "../../src/queue/jobs.js";
import { encodeRecordLine, type ResultRecord } from "../../src/scoring/record.js";
import { batchJobId, checkRedisUrl, mapPath, parsePathMapping, reconnectDelayMs, resolveQueueOptions, singleJobId, startQueueWorker } from "../../src/queue/index.js";

describe("--path-map", () => {
  it("parses FROM=TO and maps the longest matching prefix at a path boundary", () => {
    const maps = ["/mnt/archive=/data/archive", "/mnt/archive/2024=/fast/2024", "/srv/=/nfs/"].map(parsePathMapping);
    expect(maps[2]).toEqual({ from: "/srv", to: "/nfs" });
    expect(mapPath("/mnt/archive/2023/a.jsonl", maps)).toBe("/data/archive/2023/a.jsonl");
    expect(mapPath("/mnt/archive/2024/b.wav", maps)).toBe("/fast/2024/b.wav");
    expect(mapPath("/mnt/archive", maps)).toBe("/data/archive");
    expect(mapPath("/mnt/archive-old/c.wav", maps)).toBe("/mnt/archive-old/c.wav");
    expect(mapPath("/srv/x.json", maps)).toBe("/nfs/x.json");
    expect(mapPath("/elsewhere/x.json", maps)).toBe("/elsewhere/x.json");
  });

  it("refuses a mapping without FROM or TO, naming the option", () => {
    for (const bad of ["/a", "=/b", "/a="]) expect(() => parsePathMapping(bad), bad).toThrow(/pathMap: must be FROM=TO/);
  });
});

describe("Redis connection", () => {
  it("accepts redis:// and rediss:// URLs with a numeric database, refuses others naming the option", () => {
    expect(checkRedisUrl("redis://127.0.0.1:6379/0")).toBe("redis://127.0.0.1:6379/0");
    expect(checkRedisUrl("rediss://user:pw@redis.internal:6380")).toBe("rediss://user:pw@redis.internal:6380");
    expect(() => checkRedisUrl("127.0.0.1:6379")).toThrow(/queue: must (be a Redis URL|start with redis)/);
    expect(() => checkRedisUrl("http://h:1")).toThrow(/queue: must start with redis:\/\/ or rediss:\/\//);
    expect(() => checkRedisUrl("redis://h:1/zero")).toThrow(/queue: the database must be a number/);
  });

  it("backs off exponentially from 100 ms, capped at 5 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(reconnectDelayMs)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
  });

  it("a worker with a bad option is refused before it connects", async () => {
    await expect(startQueueWorker({ url: "redis://127.0.0.1:1/0", concurrency: 0 })).rejects.toThrow(/concurrency: must be an integer ≥ 1, got 0/);
    await expect(startQueueWorker({ url: "redis://127.0.0.1:1/0", pathMap: ["nope"] })).rejects.toThrow(/pathMap: must be FROM=TO/);
  });
});

describe("batches", () => {
  const cut = (total: number, batchSize: number) => {
    const sizes: number[] = [];
    for (let next = 0; next < total; ) {
      const n = Math.min(batchSizeAt(next, total, batchSize), total - next);
      sizes.push(n);
      next += n;
    }
    return sizes;
  };

  it("are batchSize calls, tapering to a few calls at the end of the list, the same cut every time", () => {
    const sizes = cut(1000, 64);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(sizes.slice(0, 7)).toEqual([64, 64, 64, 64, 64, 64, 64]);
    // Non-increasing, and the last jobs are small: no worker is left with a long job at the end.
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1]);
    expect(sizes.at(-1)).toBeLessThanOrEqual(4);
    expect(cut(1000, 64)).toEqual(sizes);
    // Small batches are not cut further; batch size 1 stays 1.
    expect(cut(24, 4)).toEqual([4, 4, 4, 4, 4, 4]);
    expect(new Set(cut(10, 1))).toEqual(new Set([1]));
  });
});

describe("job ids", () => {
  it("are the same for the same calls and options, differ when either differs, and hold no ':'", () => {
    const a = batchJobId("0123456789abcdef", ["x.jsonl#0", "x.jsonl#1"]);
    expect(batchJobId("0123456789abcdef", ["x.jsonl#0", "x.jsonl#1"])).toBe(a);
    expect(batchJobId("0123456789abcdef", ["x.jsonl#0", "x.jsonl#2"])).not.toBe(a);
    expect(batchJobId("fedcba9876543210", ["x.jsonl#0", "x.jsonl#1"])).not.toBe(a);
    expect(singleJobId("0123456789abcdef", "x.jsonl#0")).not.toBe(batchJobId("0123456789abcdef", ["x.jsonl#0"]));
    for (const id of [a, singleJobId("0123456789abcdef", "a:b")]) expect(id).not.toContain(":");
  });

  it("a batch's records survive encoding byte for byte (digests as one JSON line, record lines' bytes as they are); a mismatch is refused", () => {
    const records = [{ id: "a#0", status: "ok", note: 'line "quoted"\nbreak é😀' }, { id: "b#1", status: "error" }] as unknown as ResultRecord[];
    const lines = records.map(encodeRecordLine);
    const digests = records.map((r) => ({ ...r, metrics: {} }));
    const bytes = encodeBatch({ lines, digests });
    expect(Buffer.from(bytes).toString("utf8")).toBe(`${JSON.stringify(digests)}\n${records.map((r) => JSON.stringify(r) + "\n").join("")}`);
    const decoded = decodeBatch(bytes);
    expect(decoded.digests).toEqual(digests);
    expect(decoded.lines.map((l) => Buffer.from(l).toString("utf8"))).toEqual(records.map((r) => JSON.stringify(r) + "\n"));
    // The lines are views of the stored bytes, not copies.
    for (const l of decoded.lines) expect(l.buffer).toBe(bytes.buffer);
    expect(decodeBatch(encodeBatch({ lines: [], digests: [] }))).toEqual({ lines: [], digests: [] });
    const cut = bytes.subarray(0, bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1);
    expect(() => decodeBatch(cut)).toThrow(/1 record line\(s\) for 2 digest\(s\)/);
    // A result stored by version 1 (lines joined by line breaks, none after the last) reads the same.
    const v1 = Buffer.from([JSON.stringify(digests), ...records.map((r) => JSON.stringify(r))].join("\n"), "utf8");
    expect(decodeBatch(v1).lines.map((l) => Buffer.from(l).toString("utf8"))).toEqual(records.map((r) => JSON.stringify(r) + "\n"));
  });

  it("queue options are validated, naming the option", () => {
    expect(resolveQueueOptions({ url: "redis://h:1" })).toMatchObject({ name: "voxmetrics", batchSize: 16, jobsAhead: 500 });
    expect(() => resolveQueueOptions({ url: "redis://h:1", batchSize: 0 })).toThrow(/batchSize: must be an integer ≥ 1, got 0/);
    expect(() => resolveQueueOptions({ url: "redis://h:1", name: "a:b" })).toThrow(/queueName: must be letters/);
  });
});
