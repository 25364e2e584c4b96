// Errors people can act on: bad invocations and bad inputs through the built CLI, each with its exit code and the exact stderr line or error record.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { jsonLines, runVoxmetrics } from "../helpers/cli.js";
import { FFMPEG } from "../helpers/tools.js";
import { REPO_ROOT } from "../helpers/shared.js";

const SAMPLE = join(REPO_ROOT, "fixtures", "sample-archive");
/** Every case runs in this folder, so the paths in messages are the short relative ones a user typed. */
const cwd = mkdtempSync(join(tmpdir(), "vx-bad-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const json = (o: unknown) => JSON.stringify(o);
const turn = (extra: Record<string, unknown> = {}) => ({ role: "user", content: "hi", ...extra });
const clipWav = () => join(SAMPLE, "clips", "user-1.wav");

function write(rel: string, data: string | Uint8Array): void {
  const path = join(cwd, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, data);
}

beforeAll(() => {
  copyFileSync(join(SAMPLE, "calls", "more.jsonl"), join(cwd, "good.jsonl"));
  write("afile", "");
  mkdirSync(join(cwd, "a-folder"), { recursive: true });
  write("truncated.json", '{"turns": [{"role": "user", "content": "hi"');
  write("lines.jsonl", `${json({ turns: [turn()] })}\n{"turns": [\n`);
  write("array.json", `[${json({ turns: [turn()] })},\n  {"turns": [x]}]`);
  write("garbage.json", new Uint8Array([0xff, 0x00, 0x13, 0x37, 0x80, 0x7b]));
  write("empty.json", "");
  write("empty-turns.json", json({ turns: [] }));
  write("no-turns.json", json({ name: "x", turns: null }));
  write("bad-role.json", json({ turns: [turn({ role: "robot" })] }));
  write("no-content.json", json({ turns: [{ role: "user" }] }));
  write("missing-audio.json", json({ turns: [turn({ audio: { url: "clips/nope.wav" } })] }));
  write("negative-start.json", json({ turns: [turn({ audio: { url: "mono.wav", start_time: -1 } })] }));
  write("base64-no-mime.json", json({ turns: [turn({ audio: { dataBase64: "UklGRg==" } })] }));
  write("mixed-array.json", json([{ turns: [turn()] }, "x"]));
  write("notes.txt", "hello");
  write("settings.json", json({ foo: 1 }));
  copyFileSync(clipWav(), join(cwd, "mono.wav"));
  write("garbage.mp3", new Uint8Array(4096).map((_, i) => (i * 7919) % 251));
  write("vl/sub/dataset.jsonl", json({ WavPath: "../../secret.wav", conversationID: "c1" }));
  copyFileSync(clipWav(), join(cwd, "secret.wav"));
  write("vl-missing.jsonl", json({ audio_path: "audio/none.wav", conversation_id: "c2" }));
});

interface Case {
  what: string;
  args: string[];
  code: number;
  /** Lines stderr must contain, exactly. */
  stderr?: string[];
  /** The one error record on stdout: its code, message and the format detected (null: none). */
  record?: { code: string; message: string; format: string | null };
  skip?: boolean;
}

const USAGE = (line: string) => [line, "(run with --help for usage)"];

const CASES: Case[] = [
  // Invocations: usage errors, before any scoring.
  { what: "no command", args: ["bogus"], code: 1, stderr: USAGE("error: unknown command 'bogus'") },
  { what: "score without inputs", args: ["score"], code: 1, stderr: USAGE("error: missing required argument 'inputs'") },
  { what: "unknown flag", args: ["score", "good.jsonl", "--loud"], code: 1, stderr: USAGE("error: unknown option '--loud'") },
  { what: "threshold above 1", args: ["score", "good.jsonl", "--threshold", "1.5"], code: 1, stderr: USAGE(`error: option '--threshold <n>' argument '1.5' is invalid. expected a number between 0 and 1, got "1.5"`) },
  { what: "threshold not a number", args: ["score", "good.jsonl", "--threshold", "high"], code: 1, stderr: USAGE(`error: option '--threshold <n>' argument 'high' is invalid. expected a number between 0 and 1, got "high"`) },
  { what: "fail-under below 0", args: ["score", "good.jsonl", "--fail-under=-0.5"], code: 1, stderr: USAGE(`error: option '--fail-under <n>' argument '-0.5' is invalid. expected a number between 0 and 1, got "-0.5"`) },
  { what: "negative workers", args: ["score", "good.jsonl", "--workers", "-1"], code: 1, stderr: USAGE(`error: option '--workers <n>' argument '-1' is invalid. expected an integer ≥ 0, got "-1"`) },
  { what: "fractional workers", args: ["score", "good.jsonl", "--workers", "1.5"], code: 1, stderr: USAGE(`error: option '--workers <n>' argument '1.5' is invalid. expected an integer ≥ 0, got "1.5"`) },
  { what: "unknown metric", args: ["score", "good.jsonl", "--metrics", "naturalness,pitch"], code: 1, stderr: [`voxmetrics: --metrics: unknown metric "pitch"; choose from naturalness, intelligibility, consistency, turn-taking, responsiveness, integrity, reliability`] },
  { what: "unknown compat mode", args: ["score", "good.jsonl", "--compat", "python"], code: 1, stderr: USAGE("error: option '--compat <mode>' argument 'python' is invalid. Allowed choices are voxmetrics, deepeval.") },
  { what: "unknown agent channel", args: ["score", "good.jsonl", "--agent-channel", "middle"], code: 1, stderr: USAGE("error: option '--agent-channel <side>' argument 'middle' is invalid. Allowed choices are left, right.") },
  { what: "forcing wav", args: ["score", "good.jsonl", "--input-format", "wav"], code: 1, stderr: USAGE(`error: option '--input-format <format>' argument 'wav' is invalid. "wav" (a single mono clip) holds no call: score reads two-channel call recordings (--input-format dual-channel); \`voxmetrics analyze\` measures clips`) },
  { what: "unknown input format", args: ["score", "good.jsonl", "--input-format", "csv"], code: 1, stderr: USAGE("error: option '--input-format <format>' argument 'csv' is invalid. expected one of deepeval-json, deepeval-jsonl, deepeval-sim-folder, voicelive-dataset, voicelive-output, dual-channel") },
  { what: "resume without out", args: ["score", "good.jsonl", "--resume"], code: 1, stderr: ["voxmetrics: --resume needs --out <file.jsonl> (results on stdout cannot be resumed)"] },
  { what: "out is a folder", args: ["score", "good.jsonl", "--out", "a-folder"], code: 1, stderr: ["voxmetrics: --out a-folder: is a folder; name a file"] },
  { what: "summary under a file", args: ["score", "good.jsonl", "--summary", "afile/summary.json"], code: 1, stderr: ["voxmetrics: --summary afile/summary.json: cannot create its folder afile: a file is in the way"] },
  { what: "csv under a file", args: ["score", "good.jsonl", "--csv", "afile/x/results.csv"], code: 1, stderr: ["voxmetrics: --csv afile/x/results.csv: cannot create its folder afile/x: a file is in the way"] },
  { what: "analyze: unknown set", args: ["analyze", "mono.wav", "--set", "pitch"], code: 1, stderr: USAGE("error: option '--set <set>' argument 'pitch' is invalid. Allowed choices are parity, loudness, standards, all.") },
  { what: "timeline: no such call", args: ["timeline", "good.jsonl", "--id", "nope"], code: 1, stderr: ['voxmetrics: no call "nope" in good.jsonl (calls: good.jsonl#0 (barge-in), good.jsonl#1 (inline-audio), good.jsonl#2 (text-only))'] },
  { what: "timeline: missing input", args: ["timeline", "nowhere.json"], code: 1, stderr: ["voxmetrics: nowhere.json: no such file or folder"] },
  // Inputs: one error record each, naming the file, the line / record / JSON pointer and the field.
  { what: "missing input", args: ["score", "nowhere.json"], code: 1, stderr: ["voxmetrics: 1 input(s) missing or unreadable: nowhere.json"], record: { code: "IO_ERROR", message: "nowhere.json: no such file or folder", format: null } },
  { what: "truncated JSON", args: ["score", "truncated.json"], code: 1, stderr: ["voxmetrics: every call errored (1 of 1)"], record: { code: "INVALID_JSON", message: 'truncated.json: line 1 column 44: JSON syntax error: unexpected end of input (expected "," or "}")', format: null } },
  { what: "JSONL line that does not parse", args: ["score", "lines.jsonl"], code: 0, record: { code: "INVALID_JSON", message: "lines.jsonl: line 2 column 12: JSON syntax error: unexpected end of input (expected a JSON value)", format: "deepeval-jsonl" } },
  { what: "array element that does not parse", args: ["score", "array.json"], code: 0, record: { code: "INVALID_JSON", message: 'array.json: line 2 column 14: JSON syntax error: unexpected "x" (expected a JSON value)', format: "deepeval-json" } },
  { what: "binary named .json", args: ["score", "garbage.json"], code: 1, record: { code: "INVALID_JSON", message: "garbage.json: line 1 column 1: JSON syntax error: unexpected U+FFFD (expected a JSON value)", format: null } },
  { what: "empty file", args: ["score", "empty.json"], code: 1, record: { code: "UNSUPPORTED_INPUT", message: "empty.json: the file holds no JSON record", format: null } },
  { what: "empty turns", args: ["score", "empty-turns.json"], code: 1, record: { code: "INVALID_TEST_CASE", message: "empty-turns.json: turns: 'turns' must not be empty", format: "deepeval-json" } },
  { what: "turns null", args: ["score", "no-turns.json"], code: 1, record: { code: "INVALID_TEST_CASE", message: "no-turns.json: turns: 'turns' must be a list of Turn or dict, got NoneType", format: "deepeval-json" } },
  { what: "invalid role", args: ["score", "bad-role.json"], code: 1, record: { code: "INVALID_TURN", message: "bad-role.json: turns[0].role: Invalid dict for Turn: {'role': 'robot', 'content': 'hi'} (role: Input should be 'user' or 'assistant', got 'robot')", format: "deepeval-json" } },
  { what: "turn without content", args: ["score", "no-content.json"], code: 1, record: { code: "INVALID_TURN", message: "no-content.json: turns[0].content: Invalid dict for Turn: {'role': 'user'} (content: Field required)", format: "deepeval-json" } },
  { what: "audio url to a missing file", args: ["score", "missing-audio.json"], code: 1, record: { code: "AUDIO_NOT_FOUND", message: `missing-audio.json: turns[0].audio.url: Audio file not found: ${join(cwd, "clips", "nope.wav")}`, format: "deepeval-json" } },
  { what: "negative start_time", args: ["score", "negative-start.json"], code: 1, record: { code: "INVALID_AUDIO", message: `negative-start.json: turns[0].audio.start_time: Invalid dict for Turn: {'role': 'user', 'content': 'hi', 'audio': {'url': 'mono.wav', 'start_time': -1}} (audio.start_time: start_time must be greater than or equal to 0.)`, format: "deepeval-json" } },
  { what: "dataBase64 without mimeType", args: ["score", "base64-no-mime.json"], code: 1, record: { code: "INVALID_AUDIO", message: "base64-no-mime.json: turns[0].audio.mimeType: Invalid dict for Turn: {'role': 'user', 'content': 'hi', 'audio': {'dataBase64': 'UklGRg=='}} (audio.mimeType: mimeType must be provided when initializing from Base64 data.)", format: "deepeval-json" } },
  { what: "array element not an object", args: ["score", "mixed-array.json"], code: 0, record: { code: "INVALID_TEST_CASE", message: "mixed-array.json: record 1: $: a test case must be a JSON object, got str", format: "deepeval-json" } },
  { what: "unknown file type", args: ["score", "notes.txt"], code: 1, record: { code: "UNSUPPORTED_INPUT", message: 'notes.txt: unknown file type ".txt" (expected .json, .jsonl or an audio file)', format: null } },
  { what: "JSON that holds no call", args: ["score", "settings.json"], code: 1, record: { code: "UNSUPPORTED_INPUT", message: "settings.json: no deepeval test case (turns), Voice Live dataset or Voice Live output record", format: null } },
  { what: "mono clip named", args: ["score", "mono.wav"], code: 1, record: { code: "UNSUPPORTED_INPUT", message: "mono.wav: a mono clip, not a call recording (score reads dual-channel recordings; use `analyze` for clips)", format: "wav" } },
  { what: "JSON format forced on audio", args: ["score", "mono.wav", "--input-format", "deepeval-json"], code: 1, record: { code: "UNSUPPORTED_INPUT", message: "mono.wav: --input-format deepeval-json expects JSON text, but this is a WAV audio file", format: null } },
  { what: "undecodable audio", args: ["score", "garbage.mp3"], code: 1, skip: !FFMPEG, record: { code: "DECODE_ERROR", message: "garbage.mp3: not a RIFF/WAVE file; ffmpeg could not decode it: Invalid data found when processing input", format: "dual-channel" } },
  { what: "Voice Live path leaving its folder", args: ["score", "vl/sub/dataset.jsonl"], code: 1, record: { code: "PATH_REFUSED", message: `vl/sub/dataset.jsonl: line 1: WavPath: audio path "../../secret.wav" resolves to ${join(cwd, "secret.wav")}, outside the dataset folder ${join(cwd, "vl", "sub")}; refused (path traversal)`, format: "voicelive-dataset" } },
  { what: "Voice Live audio missing", args: ["score", "vl-missing.jsonl"], code: 1, record: { code: "AUDIO_NOT_FOUND", message: `vl-missing.jsonl: line 1: audio_path: Audio file not found: ${join(cwd, "audio", "none.wav")}`, format: "voicelive-dataset" } },
  { what: "analyze: missing file", args: ["analyze", "nowhere.wav"], code: 1 },
];

describe("bad invocations and inputs", () => {
  it("lists at least 30 of them", () => expect(CASES.length).toBeGreaterThanOrEqual(30));

  it.each(CASES.map((c) => [c.what, c] as const))("%s", (_what, c) => {
    if (c.skip) return;
    const r = runVoxmetrics([...c.args, ...(c.args[0] === "score" ? ["--workers", "0"] : [])], { cwd });
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: c.code });
    // Call ids end in a content digest (@ and 10 hex digits); the expected lines leave it out.
    for (const line of c.stderr ?? []) expect(r.stderr.split("\n").map((l) => l.replace(/@[0-9a-f]{10}/g, ""))).toContain(line);
    if (c.record) {
      const errors = jsonLines(r.stdout).filter((x) => x.status === "error");
      expect(errors).toHaveLength(1);
      expect({ ...errors[0].error, format: errors[0].source.format }).toEqual(c.record);
    }
  });
});
