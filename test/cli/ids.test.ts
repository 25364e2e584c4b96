// Call ids do not depend on how the run was invoked: the same ids from the archive, its parent or its files one by one, from any working directory, so --resume scores nothing twice.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { jsonLines, runVoxmetrics } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/shared.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-ids-"));
const root = join(tmp, "root");
const archive = join(root, "archive");
const elsewhere = join(tmp, "elsewhere");
beforeAll(ensureBuilt, 120_000);
beforeAll(() => {
  cpSync(join(REPO_ROOT, "fixtures", "sample-archive"), archive, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const idsOf = (path: string) => jsonLines(readFileSync(path, "utf8")).map((r) => r.id as string);

describe("call ids", () => {
  it("are the same from the archive folder, its parent and its files one by one, from any working directory", () => {
    const a = runVoxmetrics(["score", "archive", "-o", join(tmp, "a.jsonl"), "--metrics", "integrity", "--workers", "1"], { cwd: root });
    const b = runVoxmetrics(["score", root, "-o", join(tmp, "b.jsonl"), "--metrics", "integrity", "--workers", "1"], { cwd: elsewhere });
    const files = ["calls/more.jsonl", "calls/batch.json", "recordings/call-0001.flac", "voicelive-dataset.jsonl"];
    const c = runVoxmetrics(["score", ...files, "-o", join(tmp, "c.jsonl"), "--metrics", "integrity", "--workers", "1"], { cwd: archive });
    expect([a.code, b.code, c.code]).toEqual([0, 0, 0]);
    const whole = idsOf(join(tmp, "a.jsonl")).sort();
    expect(whole).toHaveLength(11);
    expect(idsOf(join(tmp, "b.jsonl")).sort()).toEqual(whole);
    const some = idsOf(join(tmp, "c.jsonl")).sort();
    expect(some).toHaveLength(3 + 2 + 1 + 2);
    for (const id of some) expect(whole).toContain(id);
  });

  it("--resume scores nothing twice after a run from another root or another folder", () => {
    const out = join(root, "results.jsonl");
    const first = runVoxmetrics(["score", "archive", "-o", out, "--metrics", "integrity", "--workers", "1"], { cwd: root });
    expect(first.code).toBe(0);
    const ids = idsOf(out);
    expect(ids).toHaveLength(11);
    // The parent folder as root, run from elsewhere: everything is already in the output.
    const parent = runVoxmetrics(["score", root, "-o", out, "--resume", "--metrics", "integrity", "--workers", "1", "--progress"], { cwd: elsewhere });
    expect(parent.code).toBe(0);
    expect(parent.stderr).toContain("resuming: 11 call(s) already in the output");
    expect(idsOf(out)).toEqual(ids);
    // Files one by one from inside the archive, the output named relative to there.
    const oneByOne = runVoxmetrics(["score", "calls/more.jsonl", "recordings/call-0001.flac", "-o", "../results.jsonl", "--resume", "--metrics", "integrity", "--workers", "1"], { cwd: archive });
    expect(oneByOne.code).toBe(0);
    expect(idsOf(out)).toEqual(ids);
  });
});
