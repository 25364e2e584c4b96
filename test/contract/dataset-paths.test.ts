// Per-input contract, dataset paths: Voice Live paths that are absolute or leave the dataset folder through a symlink are refused by default (--allow-outside-paths opts in); deepeval urls resolve as deepeval resolves them, and --confine-paths DIR refuses anything outside DIR.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/index.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { jsonLines, runBuiltCli, speechLike } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "vx-paths-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const wav = writeWavPcm16(speechLike(16000, 1), 16000);
for (const d of ["dataset", "clips", "project/cases", "project/clips"]) mkdirSync(join(root, d), { recursive: true });
writeFileSync(join(root, "dataset", "inside.wav"), wav);
writeFileSync(join(root, "clips", "outside.wav"), wav);
writeFileSync(join(root, "project", "clips", "a.wav"), wav);
symlinkSync(join(root, "clips", "outside.wav"), join(root, "dataset", "link.wav"));
const rows = [
  { WavPath: "/etc/passwd", Question: "q", conversationID: "etc" },
  { WavPath: join(root, "clips", "outside.wav"), Question: "q", conversationID: "abs" },
  { WavPath: "link.wav", Question: "q", conversationID: "link" },
  { WavPath: "inside.wav", Question: "q", conversationID: "inside" },
  { WavPath: join(root, "dataset", "inside.wav"), Question: "q", conversationID: "abs-inside" },
];
writeFileSync(join(root, "dataset", "dataset.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

describe("Voice Live dataset paths", () => {
  it("absolute paths and symlinks leaving the dataset folder are PATH_REFUSED records by default; /etc/passwd is never read", () => {
    const records = jsonLines(runBuiltCli(["score", "--workers", "0", "dataset/dataset.jsonl"], { cwd: root }).stdout);
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(records).toHaveLength(5);
    expect(byId.get("dataset.jsonl#etc")!.error).toEqual({
      code: "PATH_REFUSED",
      message: `dataset/dataset.jsonl: line 1: WavPath: audio path "/etc/passwd" resolves to /etc/passwd, outside the dataset folder ${join(root, "dataset")}; refused (an absolute path; --allow-outside-paths accepts it)`,
    });
    expect(byId.get("dataset.jsonl#abs")!.error.code).toBe("PATH_REFUSED");
    expect(byId.get("dataset.jsonl#link")!.error).toEqual({
      code: "PATH_REFUSED",
      message: `dataset/dataset.jsonl: line 3: WavPath: audio path "link.wav" resolves to ${join(root, "clips", "outside.wav")}, outside the dataset folder ${join(root, "dataset")}; refused (a symlink leaves the folder; --allow-outside-paths accepts it)`,
    });
    expect(byId.get("dataset.jsonl#inside")!.status).toBe("ok");
    expect(byId.get("dataset.jsonl#abs-inside")!.status).toBe("ok");
  }, 60_000);

  it("--allow-outside-paths reads absolute paths and symlinks as the harness does (relative ../ stays refused)", () => {
    writeFileSync(join(root, "dataset", "up.jsonl"), JSON.stringify({ WavPath: "../clips/outside.wav", conversationID: "up" }) + "\n");
    const records = jsonLines(runBuiltCli(["score", "--workers", "0", "--allow-outside-paths", "dataset/dataset.jsonl", "dataset/up.jsonl"], { cwd: root }).stdout);
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(byId.get("dataset.jsonl#abs")!.status).toBe("ok");
    expect(byId.get("dataset.jsonl#link")!.status).toBe("ok");
    // /etc/passwd is read now, and is no audio: its turn is a measurement error, not a refusal.
    expect(byId.get("dataset.jsonl#etc")!.status).toBe("ok");
    expect(byId.get("dataset.jsonl#etc")!.turns[0].measurements.error).toBe("Audio is not a decodable PCM WAV.");
    expect(byId.get("up.jsonl#up")!.error.code).toBe("PATH_REFUSED");
    expect(byId.get("up.jsonl#up")!.error.message).toMatch(/refused \(path traversal\)$/);
  }, 60_000);
});

describe("deepeval urls and --confine-paths", () => {
  const testCase = (url: string) => JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url, start_time: 0 } }] });
  writeFileSync(join(root, "project", "cases", "relative.json"), testCase("../clips/a.wav"));
  writeFileSync(join(root, "project", "cases", "escape.json"), testCase(join(root, "clips", "outside.wav")));
  symlinkSync(join(root, "clips", "outside.wav"), join(root, "project", "clips", "sneaky.wav"));
  writeFileSync(join(root, "project", "cases", "sneaky.json"), testCase("../clips/sneaky.wav"));

  it("without --confine-paths, urls resolve as deepeval resolves them (relative ../clips, absolute, symlinks)", () => {
    const records = jsonLines(runBuiltCli(["score", "--workers", "0", "project/cases"], { cwd: root }).stdout);
    expect(records.map((r) => [bareId(r.id), r.status])).toEqual([["escape.json#0", "ok"], ["relative.json#0", "ok"], ["sneaky.json#0", "ok"]]);
    expect(records.every((r) => r.turns[0].measurements.duration === 1)).toBe(true);
  }, 60_000);

  it("--confine-paths project: ../clips inside it stays valid; an absolute url or a symlink leaving it is a PATH_REFUSED record naming file and field", () => {
    const records = jsonLines(runBuiltCli(["score", "--workers", "0", "--confine-paths", "project", "project/cases"], { cwd: root }).stdout);
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(byId.get("relative.json#0")!.status).toBe("ok");
    expect(byId.get("escape.json#0")!.error).toEqual({
      code: "PATH_REFUSED",
      message: `project/cases/escape.json: turns[0].audio.url: audio url "${join(root, "clips", "outside.wav")}" resolves to ${join(root, "clips", "outside.wav")}, outside ${join(root, "project")} (--confine-paths); refused`,
    });
    expect(byId.get("sneaky.json#0")!.error.message).toMatch(/sneaky\.json: turns\[0\]\.audio\.url: audio url "\.\.\/clips\/sneaky\.wav" resolves to .*\/clips\/outside\.wav, outside .*project \(--confine-paths\); refused/);
  }, 60_000);
});
