// Fault isolation: twenty-odd kinds of bad input each yield exactly one error record with a clear message; every other call is scored.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio, writeWavPcm16 } from "../../src/audio/index.js";
import type { ResultRecord } from "../../src/scoring/record.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";
import { lastStderr, runCli } from "./score-program.js";
import { bareId } from "../helpers/ids.js";

const SAMPLE = join(REPO_ROOT, "fixtures", "sample-archive");
const tmp = mkdtempSync(join(tmpdir(), "vx-faults-"));
const archive = join(tmp, "archive");
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const clip = decodeAudio(readFileSync(join(SAMPLE, "clips", "user-1.wav"))).samples;
const clipWav = readFileSync(join(SAMPLE, "clips", "user-1.wav"));
const json = (o: unknown) => JSON.stringify(o);
const turn = (extra: Record<string, unknown> = {}) => ({ role: "user", content: "hi", ...extra });

function stereo(left: Int16Array, right: Int16Array, channels = 2): Uint8Array {
  const frames = Math.max(left.length, right.length);
  const out = new Int16Array(frames * channels);
  for (let k = 0; k < frames; k++) {
    out[k * channels] = left[k] ?? 0;
    out[k * channels + 1] = right[k] ?? 0;
  }
  return writeWavPcm16(out, 8000, channels);
}

function write(rel: string, data: string | Uint8Array): string {
  const path = join(archive, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, data);
  return path;
}

/** Every kind of bad input: where it lives, the id of its error record, the code, the format it was detected as (null: none) and the message it must carry. */
const KINDS: Array<{ kind: string; id: string; code: string; format: string | null; message: RegExp; make: () => string | void }> = [
  { kind: "truncated JSON", id: "archive/bad/truncated.json", code: "INVALID_JSON", format: null, message: /bad\/truncated\.json: line 1 column 44: JSON syntax error: unexpected end of input \(expected "," or "}"\)$/, make: () => void write("bad/truncated.json", '{"turns": [{"role": "user", "content": "hi"') },
  { kind: "JSONL line that does not parse", id: "archive/bad/lines.jsonl#1", code: "INVALID_JSON", format: "deepeval-jsonl", message: /bad\/lines\.jsonl: line 2 column 12: JSON syntax error: unexpected end of input \(expected a JSON value\)$/, make: () => void write("bad/lines.jsonl", `${json({ turns: [turn()] })}\n{"turns": [\n`) },
  { kind: "binary garbage named .json", id: "archive/bad/garbage.json", code: "INVALID_JSON", format: null, message: /bad\/garbage\.json: line 1 column 1: JSON syntax error: unexpected U\+FFFD \(expected a JSON value\)$/, make: () => void write("bad/garbage.json", new Uint8Array([0xff, 0x00, 0x13, 0x37, 0x80, 0x7b])) },
  { kind: "empty file", id: "archive/bad/empty.json", code: "UNSUPPORTED_INPUT", format: null, message: /bad\/empty\.json: the file holds no JSON record/, make: () => void write("bad/empty.json", "") },
  { kind: "empty turns", id: "archive/bad/empty-turns.json#0", code: "INVALID_TEST_CASE", format: "deepeval-json", message: /bad\/empty-turns\.json: turns: 'turns' must not be empty/, make: () => void write("bad/empty-turns.json", json({ turns: [] })) },
  { kind: "invalid role", id: "archive/bad/bad-role.json#0", code: "INVALID_TURN", format: "deepeval-json", message: /bad-role\.json: turns\[0\]\.role: Invalid dict for Turn: .*Input should be 'user' or 'assistant'/, make: () => void write("bad/bad-role.json", json({ turns: [turn({ role: "robot" })] })) },
  { kind: "turn without content", id: "archive/bad/no-content.json#0", code: "INVALID_TURN", format: "deepeval-json", message: /no-content\.json: turns\[0\]\.content: .*content: Field required/, make: () => void write("bad/no-content.json", json({ turns: [{ role: "user" }] })) },
  { kind: "audio url to a missing file", id: "archive/bad/missing-audio.json#0", code: "AUDIO_NOT_FOUND", format: "deepeval-json", message: /missing-audio\.json: turns\[0\]\.audio\.url: Audio file not found: .*bad\/nope\.wav/, make: () => void write("bad/missing-audio.json", json({ turns: [turn({ audio: { url: "nope.wav" } })] })) },
  { kind: "turns not a list", id: "archive/bad/turns-not-list.json#0", code: "INVALID_TEST_CASE", format: "deepeval-json", message: /turns-not-list\.json: turns: 'turns' must be a list/, make: () => void write("bad/turns-not-list.json", json({ turns: "hello" })) },
  { kind: "array element that is not an object", id: "archive/bad/mixed-array.json#1", code: "INVALID_TEST_CASE", format: "deepeval-json", message: /mixed-array\.json: record 1: \$: a test case must be a JSON object, got str/, make: () => void write("bad/mixed-array.json", json([{ turns: [turn()] }, "x"])) },
  { kind: "negative start_time", id: "archive/bad/negative-start.json#0", code: "INVALID_AUDIO", format: "deepeval-json", message: /negative-start\.json: turns\[0\]\.audio\.start_time: .*start_time must be greater than or equal to 0/, make: () => void write("bad/negative-start.json", json({ turns: [turn({ audio: { dataBase64: clipWav.toString("base64"), mimeType: "audio/wav", start_time: -1 } })] })) },
  { kind: "dataBase64 without mimeType", id: "archive/bad/base64-no-mime.json#0", code: "INVALID_AUDIO", format: "deepeval-json", message: /base64-no-mime\.json: turns\[0\]\.audio\.mimeType: .*mimeType must be provided/, make: () => void write("bad/base64-no-mime.json", json({ turns: [turn({ audio: { dataBase64: "UklGRg==" } })] })) },
  { kind: "truncated stereo WAV", id: "archive/bad/truncated-stereo.wav", code: "DECODE_ERROR", format: "dual-channel", message: /truncated-stereo\.wav: .*truncated WAV/, make: () => void write("bad/truncated-stereo.wav", stereo(clip, clip).subarray(0, 20000)) },
  { kind: "WAV without fmt chunk", id: "archive/bad/no-fmt.wav", code: "UNSUPPORTED_INPUT", format: null, message: /no-fmt\.wav: unreadable WAV header \(no fmt chunk\)/, make: () => void write("bad/no-fmt.wav", new TextEncoder().encode("RIFF\x10\x00\x00\x00WAVEjunk\x04\x00\x00\x00abcd")) },
  { kind: "silent stereo recording", id: "archive/bad/silent.wav", code: "INVALID_AUDIO", format: "dual-channel", message: /silent\.wav: no speech found on either channel/, make: () => void write("bad/silent.wav", stereo(new Int16Array(16000), new Int16Array(16000))) },
  { kind: "stereo recording with a broken sidecar", id: "archive/bad/sidecar/call.wav", code: "INVALID_JSON", format: "dual-channel", message: /sidecar\/call\.json: sidecar JSON syntax error/, make: () => { write("bad/sidecar/call.wav", stereo(clip, new Int16Array(clip.length))); write("bad/sidecar/call.json", "{nope"); } },
  { kind: "three channels without a mapping", id: "archive/bad/three.wav", code: "UNSUPPORTED_INPUT", format: "dual-channel", message: /three\.wav: 3 channels: name caller_channel and agent_channel/, make: () => void write("bad/three.wav", stereo(clip, clip, 3)) },
  { kind: "undecodable container given directly", id: "explicit/garbage.mp3", code: "DECODE_ERROR", format: "dual-channel", message: /garbage\.mp3: .*ffmpeg could not decode it/, make: () => void write("../explicit/garbage.mp3", new Uint8Array(4096).map((_, i) => (i * 7919) % 251)) },
  { kind: "Voice Live path leaving the dataset folder", id: "archive/bad/vl-escape/dataset.jsonl#c1", code: "PATH_REFUSED", format: "voicelive-dataset", message: /dataset\.jsonl: line 1: WavPath: audio path "\.\.\/\.\.\/secret\.wav" resolves to .*secret\.wav, outside the dataset folder .*vl-escape; refused/, make: () => { write("secret.wav", clipWav); write("bad/vl-escape/dataset.jsonl", json({ WavPath: "../../secret.wav", conversationID: "c1" })); } },
  { kind: "Voice Live dataset audio missing", id: "archive/bad/vl-missing.jsonl#c2", code: "AUDIO_NOT_FOUND", format: "voicelive-dataset", message: /vl-missing\.jsonl: line 1: audio_path: Audio file not found: .*none\.wav/, make: () => void write("bad/vl-missing.jsonl", json({ audio_path: "audio/none.wav", conversation_id: "c2" })) },
  { kind: "Voice Live data: URI that is not strict base64", id: "archive/bad/vl-media.jsonl#c3", code: "INVALID_AUDIO", format: "voicelive-dataset", message: /vl-media\.jsonl: line 1: messages\[0\]\.content\[0\]\.input_audio\.data: Failed to resolve media audio for turn 1/, make: () => void write("bad/vl-media.jsonl", json({ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "data:audio/wav;base64,@@@@" } }] }], conversationID: "c3" })) },
  { kind: "Voice Live output line that does not parse", id: "archive/bad/vl-output.jsonl#line-2", code: "INVALID_JSON", format: "voicelive-output", message: /vl-output\.jsonl: line 2 column 12: JSON syntax error: unexpected end of input \(expected a JSON value\)$/, make: () => void write("bad/vl-output.jsonl", `${json({ query: [{ role: "user", content: "q" }], response: [{ role: "assistant", content: "a" }], conversation_id: "ok-conv", turn_number: 1 })}\n{"query": [\n`) },
  { kind: "missing input path", id: "explicit/nowhere.json", code: "IO_ERROR", format: null, message: /nowhere\.json: no such file or folder/, make: () => join(tmp, "explicit", "nowhere.json") },
  { kind: "mono clip given directly", id: "explicit/mono.wav", code: "UNSUPPORTED_INPUT", format: "wav", message: /mono\.wav: a mono clip, not a call recording/, make: () => void write("../explicit/mono.wav", clipWav) },
  { kind: "unknown file type given directly", id: "explicit/notes.txt", code: "UNSUPPORTED_INPUT", format: null, message: /notes\.txt: unknown file type "\.txt"/, make: () => void write("../explicit/notes.txt", "hello") },
  { kind: "JSON that is no call, given directly", id: "explicit/settings.json", code: "UNSUPPORTED_INPUT", format: null, message: /settings\.json: no deepeval test case/, make: () => void write("../explicit/settings.json", json({ foo: 1 })) },
];

describe("score on an archive full of bad inputs", () => {
  it(`records each of the ${KINDS.length} kinds of bad input once, with a clear message, and scores everything else`, async () => {
    expect(KINDS.length).toBeGreaterThanOrEqual(20);
    cpSync(SAMPLE, archive, { recursive: true });
    const explicit = KINDS.map((k) => k.make()).filter((p): p is string => typeof p === "string");
    for (const name of ["garbage.mp3", "mono.wav", "notes.txt", "settings.json"]) explicit.push(join(tmp, "explicit", name));
    const out = join(tmp, "out", "results.jsonl");
    const code = await runCli(["score", archive, ...explicit, "--out", out, "--workers", "2", "--summary", join(tmp, "out", "summary.json")]);
    // A named input that is missing makes the run exit 1 (its error record is still written).
    expect(code).toBe(1);
    expect(lastStderr()).toContain(`voxmetrics: 1 input(s) missing or unreadable: ${join(tmp, "explicit", "nowhere.json")}`);
    const records = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
    // Ids are the file name, the record and a content digest (whatever folder was passed): compare the readable part.
    const key = (id: string) => bareId(id);
    const expected = (id: string) => id.split("/").pop()!;
    const byId = new Map(records.map((r) => [key(r.id), r]));
    expect(byId.size).toBe(records.length);
    for (const k of KINDS) {
      const r = byId.get(expected(k.id));
      expect(r, `${k.kind}: no record ${k.id}`).toBeDefined();
      expect(r!.status, k.kind).toBe("error");
      expect(r!.error!.code, `${k.kind}: ${r!.error!.message}`).toBe(k.code);
      expect(r!.error!.message, k.kind).toMatch(k.message);
      expect(r!.source.format, `${k.kind}: the format detected`).toBe(k.format);
      expect(r).not.toHaveProperty("metrics");
    }
    const errors = records.filter((r) => r.status === "error");
    expect(errors.map((r) => key(r.id)).sort()).toEqual(KINDS.map((k) => expected(k.id)).sort());
    const oks = records.filter((r) => r.status === "ok").map((r) => key(r.id));
    expect(oks).toEqual(expect.arrayContaining(["order-status.json#0", "call-0001.flac", "lines.jsonl#0", "mixed-array.json#0", "vl-output.jsonl#ok-conv"]));
    expect(oks).toHaveLength(11 + 3);
    const summary = JSON.parse(readFileSync(join(tmp, "out", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ calls: records.length, ok: 14, errors: KINDS.length });
  }, 120_000);
});
