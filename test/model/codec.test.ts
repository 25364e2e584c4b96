// The deepeval JSON codec: containers, aliases, validation messages naming the field, url resolution.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { loadDeepevalJsonFile } from "../../src/ingest/formats/deepeval-json.js";
import { parseTestCaseText, testCaseToJson } from "../../src/model/codec.js";

const turns = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }];

describe("parseTestCaseText containers", () => {
  it("reads one object, an array and JSONL", () => {
    expect(parseTestCaseText(JSON.stringify({ turns })).map((r) => r.testCase?.turns.length)).toEqual([2]);
    expect(parseTestCaseText(JSON.stringify([{ turns }, { turns }])).length).toBe(2);
    const jsonl = `${JSON.stringify({ turns })}\n\n${JSON.stringify({ turns, name: "b" })}\n`;
    const parsed = parseTestCaseText(jsonl);
    expect(parsed.map((r) => r.line)).toEqual([1, 3]);
    expect(parsed[1].testCase?.name).toBe("b");
  });
  it("skips a UTF-8 byte-order mark", () => {
    expect(parseTestCaseText(`\ufeff${JSON.stringify({ turns })}`)[0].testCase).toBeDefined();
  });
  it("a bad JSONL line is one error; the others still load", () => {
    const parsed = parseTestCaseText(`${JSON.stringify({ turns })}\n{"turns": [\n${JSON.stringify({ turns })}`, { file: "calls.jsonl" });
    expect(parsed.map((r) => Boolean(r.testCase))).toEqual([true, false, true]);
    expect(parsed[1].error?.code).toBe("INVALID_JSON");
    expect(parsed[1].error?.message).toBe("calls.jsonl: line 2 column 12: JSON syntax error: unexpected end of input (expected a JSON value)");
  });
  it("a JSON syntax error in a single-object file names the file", () => {
    const [r] = parseTestCaseText('{"turns": [}', { file: "call.json" });
    expect(r.error?.message).toBe('call.json: line 1 column 12: JSON syntax error: unexpected "}" (expected a JSON value)');
  });
});

describe("validation messages", () => {
  const one = (v: unknown) => parseTestCaseText(JSON.stringify(v), { file: "f.json" })[0];
  it("empty turns", () => expect(one({ turns: [] }).error?.message).toBe("f.json: turns: 'turns' must not be empty"));
  it("unknown role names the field", () => {
    const r = one({ turns: [{ role: "robot", content: "x" }] });
    expect(r.error?.field).toBe("turns[0].role");
    expect(r.error?.detail).toMatch(/^Invalid dict for Turn: /);
  });
  it("negative start_time uses deepeval's message", () => {
    const r = one({ turns: [{ role: "user", content: "x", audio: { dataBase64: "AAAA", mimeType: "audio/wav", start_time: -1 } }] });
    expect(r.error?.field).toBe("turns[0].audio.start_time");
    expect(r.error?.detail).toContain("start_time must be greater than or equal to 0.");
  });
  it("dataBase64 without mimeType", () => {
    const r = one({ turns: [{ role: "user", content: "x", audio: { dataBase64: "AAAA" } }] });
    expect(r.error?.detail).toContain("mimeType must be provided when initializing from Base64 data.");
  });
  it("audio without url or data", () => {
    const r = one({ turns: [{ role: "user", content: "x", audio: { start_time: 1 } }] });
    expect(r.error?.detail).toContain("You must provide either a 'url' or both 'dataBase64' and 'mimeType' to create an Audio.");
  });
  it("context must be a list of strings", () => {
    expect(one({ turns, context: "x" }).error?.detail).toBe("'context' must be None or a list of strings or RetrievedContextData");
  });
  it("accepts every alias", () => {
    const tc = one({
      turns: [{ role: "user", content: "x", userId: "u1", latencyMs: 12, retrievalContext: ["a"], toolsCalled: [], additionalMetadata: { k: 1 } }],
      userDescription: "d",
      expectedOutcome: "o",
      chatbotRole: "r",
      additional_metadata: { endReason: "x" },
    }).testCase!;
    expect(tc.turns[0]).toMatchObject({ user_id: "u1", latency_ms: 12, retrieval_context: ["a"], tools_called: [], metadata: { k: 1 } });
    expect(tc).toMatchObject({ user_description: "d", expected_outcome: "o", chatbot_role: "r", metadata: { endReason: "x" } });
  });
  it("tolerates private audio keys and ignores unknown keys", () => {
    const tc = one({ turns: [{ role: "user", content: "x", foo: 1, audio: { dataBase64: "AAAA", mimeType: "audio/wav", _id: "z", _local: false, _filename: null } }] }).testCase!;
    expect(tc.turns[0].audio?.dataBase64).toBe("AAAA");
    expect(tc.voice).toBe(true);
  });
});

describe("urls and startTime", () => {
  const dir = mkdtempSync(join(tmpdir(), "vox-codec-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "a.wav"), writeWavPcm16(new Int16Array(80), 8000));
  const write = (name: string, v: unknown) => {
    writeFileSync(join(dir, name), JSON.stringify(v));
    return join(dir, name);
  };
  it("resolves a relative url against the file that holds it", () => {
    const p = write("ok.json", { turns: [{ role: "user", content: "x", audio: { url: "a.wav", start_time: 0 } }] });
    const tc = loadDeepevalJsonFile(p)[0].testCase!;
    expect(tc.turns[0].audio?.local).toBe(true);
    expect(tc.turns[0].audio?.getBytes().length).toBe(44 + 160);
  });
  it("a missing file: 'Audio file not found' by default, deepeval's remote-url message under compat", () => {
    const p = write("missing.json", { turns: [{ role: "user", content: "x", audio: { url: "nope.wav" } }] });
    const wide = loadDeepevalJsonFile(p)[0].error!;
    expect(wide.code).toBe("AUDIO_NOT_FOUND");
    expect(wide.field).toBe("turns[0].audio.url");
    expect(wide.message).toContain(`Audio file not found: ${join(dir, "nope.wav")}`);
    const compat = loadDeepevalJsonFile(p, { compat: "deepeval" })[0].error!;
    expect(compat.message).toContain("Invalid remote URL format: nope.wav. URL must start with http:// or https://");
  });
  it("http urls are kept without bytes", () => {
    const p = write("remote.json", { turns: [{ role: "user", content: "x", audio: { url: "https://example.invalid/a.wav" } }] });
    const audio = loadDeepevalJsonFile(p)[0].testCase!.turns[0].audio!;
    expect(audio.local).toBe(false);
    expect(() => audio.getBytes()).toThrow("No audio bytes available; this Audio is a remote URL. Fetch it before calling get_bytes().");
  });
  it("startTime is read (with a warning) except under compat deepeval", () => {
    const p = write("st.json", { turns: [{ role: "user", content: "x", audio: { url: "a.wav", startTime: 1.5 } }] });
    const wide = loadDeepevalJsonFile(p)[0];
    expect(wide.testCase!.turns[0].audio?.start_time).toBe(1.5);
    expect(wide.warnings[0]).toMatch(/startTime/);
    expect(loadDeepevalJsonFile(p, { compat: "deepeval" })[0].testCase!.turns[0].audio?.start_time).toBeNull();
  });
  it("writes the reference dump spelling", () => {
    const p = write("dump.json", { turns: [{ role: "user", content: "x", latencyMs: 5, audio: { url: "a.wav", start_time: 0 } }] });
    const json = testCaseToJson(loadDeepevalJsonFile(p)[0].testCase!) as { turns: Array<Record<string, unknown>> };
    expect(json.turns[0].latency_ms).toBe(5);
    expect(json.turns[0].audio).toMatchObject({ url: "a.wav", dataBase64: null, start_time: 0 });
  });
});
