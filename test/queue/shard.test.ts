// Shards and merge: shards 1..4 of 4 merged equal the unsharded run (records, summary, CSV); a missing, doubled, foreign or incomplete part is refused with a clear message.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseShard, readPartHeader, shardOfId } from "../../src/queue/index.js";
import type { ResultRecord } from "../../src/scoring/record.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";

const CALLS = 80;
const tmp = mkdtempSync(join(tmpdir(), "vx-shard-"));
const archive = join(tmp, "archive");
const out = (name: string) => join(tmp, "out", name);

beforeAll(() => {
  ensureBuilt();
  mkdirSync(join(tmp, "out"), { recursive: true });
  cpSync(join(REPO_ROOT, "fixtures", "sample-archive", "clips"), join(archive, "clips"), { recursive: true });
  const names = ["user-1", "agent-1", "user-2", "agent-2"];
  const lines = Array.from({ length: CALLS }, (_, i) =>
    JSON.stringify({
      name: `call-${i}`,
      turns: names.map((n, k) => ({ role: n.startsWith("user") ? "user" : "assistant", content: "words here", audio: { url: `clips/${n}.wav`, start_time: k * 2.5 + (i % 9) * 0.13 } })),
    }),
  );
  writeFileSync(join(archive, "calls.jsonl"), lines.join("\n") + "\n");
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Run the real program in this process; resolves to its exit code, with what it wrote to stderr. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    process.exitCode = 0;
    const code = await main(["node", "voxmetrics", ...args]);
    process.exitCode = 0;
    return { code, stderr };
  } finally {
    process.stderr.write = write;
  }
}

function recordsOf(path: string): Map<string, Omit<ResultRecord, "elapsed_ms">> {
  const map = new Map<string, Omit<ResultRecord, "elapsed_ms">>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const value = JSON.parse(line);
    if (!("id" in value)) continue;
    const { elapsed_ms: _, ...rest } = value as ResultRecord;
    expect(map.has(rest.id), `duplicate ${rest.id}`).toBe(false);
    map.set(rest.id, rest);
  }
  return map;
}

const summaryOf = (path: string) => {
  const { elapsed_s: _, ...rest } = JSON.parse(readFileSync(path, "utf8"));
  return rest;
};
const csvRowsOf = (path: string) => readFileSync(path, "utf8").split("\r\n").filter(Boolean).sort();

describe("shard assignment", () => {
  it("parses K/N and refuses anything else, naming the option", () => {
    expect(parseShard("3/8")).toEqual({ index: 3, count: 8 });
    for (const bad of ["0/4", "5/4", "1/0", "a/b", "2", "-1/4", "1.5/4"]) expect(() => parseShard(bad), bad).toThrow(/shard: must be K\/N/);
  });

  it("puts every id in exactly one shard, the same one each time, and spreads ids evenly", () => {
    const counts = new Array(8).fill(0);
    for (let i = 0; i < 8000; i++) {
      const k = shardOfId(`calls/batch-${i}.json#0`, 8);
      expect(k).toBeGreaterThanOrEqual(1);
      expect(k).toBeLessThanOrEqual(8);
      expect(shardOfId(`calls/batch-${i}.json#0`, 8)).toBe(k);
      counts[k - 1]++;
    }
    // 1,000 expected per shard; a binomial standard deviation is ≈ 30.
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });
});

describe("score --shard K/N and merge", () => {
  const parts = [1, 2, 3, 4].map((k) => out(`part-${k}.jsonl`));

  beforeAll(async () => {
    expect((await cli(["score", archive, "--out", out("full.jsonl"), "--summary", out("full-summary.json"), "--csv", out("full.csv"), "--workers", "2"])).code).toBe(0);
    for (const [i, part] of parts.entries()) expect((await cli(["score", archive, "--shard", `${i + 1}/4`, "--out", part, "--workers", "2"])).code).toBe(0);
  }, 180_000);

  it("each part opens with a header recording K/N, its call count and the run's options, and holds just its calls", () => {
    let total = 0;
    for (const [i, part] of parts.entries()) {
      const header = readPartHeader(part)!;
      expect(header).toMatchObject({ shard: `${i + 1}/4`, index: i + 1, count: 4 });
      expect(header.options.score).toMatchObject({ threshold: 0.5, strict: false, compat: "voxmetrics" });
      const records = recordsOf(part);
      expect(records.size).toBe(header.calls);
      expect(records.size).toBeGreaterThan(CALLS / 8);
      for (const id of records.keys()) expect(shardOfId(id, 4)).toBe(i + 1);
      total += records.size;
    }
    expect(total).toBe(CALLS);
  });

  it("merging shards 1..4 of 4 gives the unsharded run's records, summary and CSV", async () => {
    const r = await cli(["merge", ...parts.slice().reverse(), "--out", out("merged.jsonl"), "--summary", out("merged-summary.json"), "--csv", out("merged.csv")]);
    expect(r.stderr).toContain(`merged ${CALLS} call(s) from 4 shard(s)`);
    expect(r.code).toBe(0);
    const full = recordsOf(out("full.jsonl"));
    const merged = recordsOf(out("merged.jsonl"));
    expect(full.size).toBe(CALLS);
    expect([...merged.keys()].sort()).toEqual([...full.keys()].sort());
    for (const [id, record] of full) expect(merged.get(id), id).toEqual(record);
    expect(readFileSync(out("merged.jsonl"), "utf8")).not.toContain("voxmetrics_part");
    expect(summaryOf(out("merged-summary.json"))).toEqual(summaryOf(out("full-summary.json")));
    expect(csvRowsOf(out("merged.csv"))).toEqual(csvRowsOf(out("full.csv")));
  });

  it("refuses a missing shard, naming it", async () => {
    const r = await cli(["merge", parts[0], parts[1], parts[3], "--out", out("refused.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing to merge:[\s\S]*missing shard\(s\) 3\/4 of a 4-way split/);
  });

  it("refuses a doubled shard: the shard given twice and the calls in both files", async () => {
    const copy = out("part-2-copy.jsonl");
    copyFileSync(parts[1], copy);
    const r = await cli(["merge", ...parts, copy, "--out", out("refused.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`shard 2/4 given twice: ${parts[1]}, ${copy}`);
    expect(r.stderr).toMatch(new RegExp(`call \\S+ is in both ${parts[1].replace(/[.]/g, "\\.")} and ${copy.replace(/[.]/g, "\\.")} \\(overlapping parts\\)`));
  });

  it("refuses parts scored with other options, a part of another split, an incomplete part and a file that is no part", async () => {
    const other = out("part-3-strict.jsonl");
    expect((await cli(["score", archive, "--shard", "3/4", "--strict", "--out", other, "--workers", "1"])).code).toBe(0);
    const r1 = await cli(["merge", parts[0], parts[1], other, parts[3]]);
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/part-3-strict\.jsonl was scored with other options than .*part-1\.jsonl/);

    const split = out("part-1-of-2.jsonl");
    writeFileSync(split, readFileSync(parts[0], "utf8").replace('"shard":"1/4","index":1,"count":4', '"shard":"1/2","index":1,"count":2'));
    const r2 = await cli(["merge", split, ...parts.slice(1)]);
    expect(r2.stderr).toMatch(/is shard 2\/4 but .*part-1-of-2\.jsonl is shard 1\/2: parts of different splits/);

    const cut = out("part-4-cut.jsonl");
    const lines = readFileSync(parts[3], "utf8").trim().split("\n");
    writeFileSync(cut, lines.slice(0, -2).join("\n") + "\n");
    const r3 = await cli(["merge", ...parts.slice(0, 3), cut]);
    expect(r3.stderr).toContain(`${cut}: shard 4/4 is incomplete: ${lines.length - 3} of its ${lines.length - 1} calls (rerun it with --resume)`);

    const r4 = await cli(["merge", out("full.jsonl"), ...parts]);
    expect(r4.stderr).toContain(`${out("full.jsonl")}: not a shard part`);
    for (const r of [r2, r3, r4]) expect(r.code).toBe(1);
  }, 60_000);

  it("--resume completes an incomplete part, and refuses to resume a part as another shard", async () => {
    const part = out("part-4-resumed.jsonl");
    const lines = readFileSync(parts[3], "utf8").trim().split("\n");
    writeFileSync(part, lines.slice(0, -3).join("\n") + "\n" + lines[lines.length - 3].slice(0, 40));
    expect((await cli(["score", archive, "--shard", "4/4", "--out", part, "--resume", "--workers", "1"])).code).toBe(0);
    expect(recordsOf(part)).toEqual(recordsOf(parts[3]));
    expect((await cli(["merge", ...parts.slice(0, 3), part, "--out", out("merged-resumed.jsonl")])).code).toBe(0);

    const wrong = await cli(["score", archive, "--shard", "3/4", "--out", part, "--resume", "--workers", "1"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`${part}: --resume of shard 3/4: the file holds shard 4/4`);
  }, 60_000);
});
