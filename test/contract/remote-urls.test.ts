// Per-input contract, audio urls that cannot be parsed: an http(s) url without a host (`https://`) or with a broken host (`http://[bad`) in a deepeval test case, or in a Voice Live dataset's input_audio data, is one clear error record naming the file, the line or record and the field — never INTERNAL "Invalid URL" — and the other calls of the file still score.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/index.js";
import { remoteUrlProblem } from "../../src/ingest/formats/remote-url.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { jsonLines, runBuiltCli, speechLike } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "vx-urls-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(join(root, "clip.wav"), writeWavPcm16(speechLike(16000, 1), 16000));

const turn = (role: string, url: string) => ({ role, content: `${role} words`, audio: { url } });
const testCase = (name: string, urls: string[]) => ({ name, turns: urls.map((u, i) => turn(i % 2 ? "assistant" : "user", u)) });

/** score --workers 0 on `files` in the scratch folder: the records by bare id. */
function score(files: string[]) {
  const r = runBuiltCli(["score", "--workers", "0", ...files], { cwd: root });
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  const records = jsonLines(r.stdout);
  return { records, byId: new Map(records.map((x) => [bareId(x.id), x])) };
}

describe("audio urls that do not parse", () => {
  it("names why: no host, a broken bracketed host, a bad port; urls that parse and local paths are not its business", () => {
    expect(remoteUrlProblem("https://")).toBe('not a valid URL or path ("https://": it has no host)');
    expect(remoteUrlProblem("http://")).toBe('not a valid URL or path ("http://": it has no host)');
    expect(remoteUrlProblem("http://[bad")).toBe('not a valid URL or path ("http://[bad": its host is not a valid bracketed IPv6 address)');
    expect(remoteUrlProblem("http://host:99999/a.wav")).toBe('not a valid URL or path ("http://host:99999/a.wav": its host or port is not valid)');
    expect(remoteUrlProblem(`https://${"x".repeat(200)}:1:2`)).toMatch(/^not a valid URL or path \("https:\/\/x{72}…": its host or port is not valid\)$/);
    for (const ok of ["https://example.com/a.wav", "http://[::1]:8080/a.wav", "clip.wav", "file:///tmp/a.wav", "https:/x", ""]) expect(remoteUrlProblem(ok)).toBeNull();
  });

  it("deepeval JSONL: turns[i].audio.url of `http://[bad` and `https://` are INVALID_AUDIO records naming file, line and field; the other lines score", () => {
    const lines = [testCase("fine", ["clip.wav", "clip.wav"]), testCase("ipv6", ["clip.wav", "clip.wav", "http://[bad"]), testCase("nohost", ["https://"])];
    writeFileSync(join(root, "cases.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const { records, byId } = score(["cases.jsonl"]);
    expect(records).toHaveLength(3);
    expect(byId.get("cases.jsonl#0")!.status).toBe("ok");
    const ipv6 = byId.get("cases.jsonl#1")!;
    expect(ipv6.status).toBe("error");
    expect(ipv6.error.code).toBe("INVALID_AUDIO");
    expect(ipv6.error.message).toMatch(/^cases\.jsonl: line 2: turns\[2\]\.audio\.url: /);
    expect(ipv6.error.message).toContain('(audio.url: not a valid URL or path ("http://[bad": its host is not a valid bracketed IPv6 address))');
    const nohost = byId.get("cases.jsonl#2")!;
    expect(nohost.error.code).toBe("INVALID_AUDIO");
    expect(nohost.error.message).toMatch(/^cases\.jsonl: line 3: turns\[0\]\.audio\.url: .*not a valid URL or path \("https:\/\/": it has no host\)\)$/);
    for (const r of records) expect(r.error?.message ?? "").not.toMatch(/Invalid URL/);
  }, 60_000);

  it("deepeval JSON array and --compat deepeval: the record index and field are named the same way", () => {
    writeFileSync(join(root, "cases.json"), JSON.stringify([testCase("fine", ["clip.wav"]), testCase("nohost", ["clip.wav", "https://"])]));
    for (const compat of [[], ["--compat", "deepeval"]]) {
      const { byId } = score([...compat, "cases.json"]);
      expect(byId.get("cases.json#0")!.status).toBe("ok");
      const bad = byId.get("cases.json#1")!;
      expect(bad.error.code).toBe("INVALID_AUDIO");
      expect(bad.error.message).toMatch(/^cases\.json: record 1: turns\[1\]\.audio\.url: .*not a valid URL or path \("https:\/\/": it has no host\)\)$/);
    }
  }, 60_000);

  it("Voice Live dataset: input_audio data of `https://` is an INVALID_AUDIO record naming the line and the field; the other conversations score", () => {
    const rows = [
      { conversationID: "good", messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: `data:audio/wav;base64,${Buffer.from(writeWavPcm16(speechLike(16000, 1), 16000)).toString("base64")}`, format: "wav" } }] }] },
      { conversationID: "nohost", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "input_audio", input_audio: { data: "https://", format: "wav" } }] }] },
      { conversationID: "ipv6", audio: { type: "input_audio", input_audio: { data: "http://[bad/a.wav", format: "wav" } } },
    ];
    writeFileSync(join(root, "dataset.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const { records, byId } = score(["dataset.jsonl"]);
    expect(records).toHaveLength(3);
    expect(byId.get("dataset.jsonl#good")!.status).toBe("ok");
    expect(byId.get("dataset.jsonl#nohost")!.error).toEqual({
      code: "INVALID_AUDIO",
      message: 'dataset.jsonl: line 2: messages[0].content[1].input_audio.data: Failed to resolve media audio for turn 1: not a valid URL or path ("https://": it has no host)',
    });
    expect(byId.get("dataset.jsonl#ipv6")!.error).toEqual({
      code: "INVALID_AUDIO",
      message: 'dataset.jsonl: line 3: audio.input_audio.data: Failed to resolve media audio for turn 1: not a valid URL or path ("http://[bad/a.wav": its host is not a valid bracketed IPv6 address)',
    });
  }, 60_000);
});
