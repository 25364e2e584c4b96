// Replay pieces without an agent: session config precedence, grouping (F3.7), the harness's WAV loader and linear resampler (against numpy), records and summary shapes, stub tools, a refused connection.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadStubTools, resolveSessionConfig, runReplay, sessionUpdateOf, stubToolsFromTable, unknownToolReply, writeWavPcm16 } from "../../src/index.js";
import { decodeHarnessWav, resampleHarnessLinear } from "../../src/replay/audio.js";
import { parseSessionConfig, readSessionConfigFile } from "../../src/replay/config.js";
import { readReplayDataset } from "../../src/replay/dataset.js";
import { ConversationRecordBuilder, operationalSummary, sanitizeText, TURN_RECORD_KEYS } from "../../src/replay/records.js";
import type { TurnObservation } from "../../src/replay/session.js";
import { seededRandom } from "../helpers/random.js";
import { BUNDLED_DATASET, readJsonl, runOptions } from "./helpers.js";

const work = mkdtempSync(join(tmpdir(), "vox-replay-units-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HAS_NUMPY = spawnSync("python3", ["-c", "import numpy"], { encoding: "utf8" }).status === 0;
if (!HAS_NUMPY) console.warn("python3 with numpy is missing: the harness resampler is not compared with numpy (apt-get install python3-numpy)");

describe("session config", () => {
  it("precedence: defaults < config file < command line, with the source of each value", () => {
    const file = join(work, "session.json");
    writeFileSync(file, JSON.stringify({ model: "gpt-4.1", voice: "alloy", voice_type: "preset", silence_duration_ms: 700, enable_barge_in: false }));
    const { config, sources } = resolveSessionConfig(readSessionConfigFile(file), { silence_duration_ms: 300, push_to_talk: true });
    expect(config).toMatchObject({ model: "gpt-4.1", voice: "alloy", voice_type: "preset", silence_duration_ms: 300, enable_barge_in: false, push_to_talk: true, sample_rate: 24000 });
    expect(sources).toMatchObject({ model: "config", silence_duration_ms: "cli", push_to_talk: "cli", sample_rate: "default", enable_barge_in: "config" });
  });

  it("the nested session shape is read too; unknown keys and bad values name the file and key", () => {
    expect(parseSessionConfig({ voice: { name: "en-US-Andrew:DragonHDLatestNeural", type: "azure-standard" }, turn_detection: { type: "server_vad", silence_duration_ms: 2000, end_of_utterance_detection: { model: "semantic_detection_v1" } }, input_audio_noise_reduction: null }, "s.json")).toEqual({
      voice: "en-US-Andrew:DragonHDLatestNeural",
      voice_type: "azure-standard",
      vad_type: "server_vad",
      silence_duration_ms: 2000,
      use_eou_detection: true,
      eou_model: "semantic_detection_v1",
      noise_reduction: "none",
    });
    expect(() => parseSessionConfig({ silense_duration_ms: 1 }, "s.json")).toThrow(/s\.json.*silense_duration_ms.*unknown session config key/);
    expect(() => parseSessionConfig({ sample_rate: 44100 }, "s.json")).toThrow(/s\.json.*sample_rate must be 16000 or 24000/);
    expect(() => parseSessionConfig({ push_to_talk: "yes" }, "s.json")).toThrow(/push_to_talk must be true or false/);
  });

  it("the session.update carries instructions (+ tools suffix), voice, rate, turn detection, noise, echo, transcription, tools", () => {
    const { config } = resolveSessionConfig({}, { silence_duration_ms: 400, vad_threshold: 0.4 });
    const s = sessionUpdateOf(config, "Be brief.", [{ type: "function", name: "f" }]);
    expect(s).toMatchObject({
      instructions: "Be brief. Use available tools when appropriate.",
      voice: { name: "en-US-Ava:DragonHDLatestNeural", type: "azure-standard" },
      input_audio_sampling_rate: 24000,
      turn_detection: { type: "azure_semantic_vad_multilingual", threshold: 0.4, silence_duration_ms: 400, end_of_utterance_detection: { model: "semantic_detection_v1_multilingual" }, create_response: true },
      input_audio_noise_reduction: { type: "azure_deep_noise_suppression" },
      input_audio_echo_cancellation: { type: "server_echo_cancellation" },
      input_audio_transcription: { model: "gpt-4o-transcribe" },
      tools: [{ type: "function", name: "f" }],
      tool_choice: "auto",
    });
    expect(sessionUpdateOf(config, "Be brief.", []).instructions).toBe("Be brief.");
  });
});

describe("grouping (F3.7)", () => {
  it("per-conversation by first appearance, per-file (turn 1 each), single; tools from the first entry, a dict wrapped in a list", () => {
    const conv = readReplayDataset(BUNDLED_DATASET, "per-conversation");
    expect(conv.conversations.map((c) => [c.key, c.turnNumbers])).toEqual([
      ["order-help", [1, 2]],
      ["order-tools", [1]],
      ["thanks", [1]],
    ]);
    expect(conv.conversations[1].tools).toEqual([expect.objectContaining({ name: "get_order_status" })]);
    expect(conv.expectedTurns).toBe(4);
    expect(readReplayDataset(BUNDLED_DATASET, "per-file").conversations.map((c) => [c.key, c.turnNumbers])).toEqual([
      ["file-1", [1]],
      ["file-2", [1]],
      ["file-3", [1]],
      ["file-4", [1]],
    ]);
    expect(readReplayDataset(BUNDLED_DATASET, "single").conversations.map((c) => [c.key, c.turnNumbers])).toEqual([["single", [1, 2, 3, 4]]]);
  });

  it("lines without usable audio are skipped with a warning naming the file and line; the rest is read", () => {
    const dir = join(work, "bad");
    const path = join(dir, "d.jsonl");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "a.wav"), writeWavPcm16(new Int16Array(800), 8000));
    writeFileSync(path, ['{"WavPath": "a.wav", "conversationID": "x"}', "{not json", '{"Question": "no audio"}', '{"WavPath": "missing.wav"}', '{"WavPath": "../../etc/passwd"}', ""].join("\n"));
    const d = readReplayDataset(path);
    expect(d.expectedTurns).toBe(1);
    expect(d.warnings).toHaveLength(4);
    expect(d.warnings[0]).toMatch(/d\.jsonl: line 2: JSON syntax error/);
    expect(d.warnings[1]).toMatch(/line 3: no audio source found/);
    expect(d.warnings[2]).toMatch(/line 4: WavPath: audio file not found/);
    expect(d.warnings[3]).toMatch(/line 5: WavPath.*outside the dataset folder.*path traversal/);
  });
});

describe("the harness's audio path (--resample linear, F3.8)", () => {
  it.skipIf(!HAS_NUMPY)("the linear resampler equals numpy's interp over linspace, truncated to int16, bit for bit", () => {
    const rand = seededRandom(14);
    const cases: Array<{ from: number; to: number; x: number[] }> = [];
    for (const [from, to] of [[8000, 24000], [44100, 24000], [16000, 24000], [22050, 16000], [48000, 16000], [24000, 16000]]) {
      for (const n of [1, 2, 3, 101, 4410]) cases.push({ from, to, x: Array.from({ length: n }, () => Math.floor(rand() * 65536) - 32768) });
    }
    const py = spawnSync(
      "python3",
      ["-c", "import json,sys,numpy as np\nout=[]\nfor c in json.load(sys.stdin):\n  s=np.array(c['x'],dtype=np.int16); n=len(s); m=int(n/c['from']*c['to'])\n  out.append(np.interp(np.linspace(0,n-1,m),np.arange(n),s).astype(np.int16).tolist())\nprint(json.dumps(out))"],
      { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 1 << 26 },
    );
    expect(py.status, py.stderr).toBe(0);
    const expected = JSON.parse(py.stdout) as number[][];
    cases.forEach((c, i) => expect(Array.from(resampleHarnessLinear(Int16Array.from(c.x), c.from, c.to)), `${c.from}→${c.to}, n=${c.x.length}`).toEqual(expected[i]));
  });

  it("the WAV loader: 8-bit keeps the 128 offset (×256), float32 is clipped ×32767 and truncated, stereo is the truncated pair mean", () => {
    const wav = (format: number, channels: number, bits: number, body: Buffer) => {
      const h = Buffer.alloc(44);
      h.write("RIFF", 0);
      h.writeUInt32LE(36 + body.length, 4);
      h.write("WAVEfmt ", 8);
      h.writeUInt32LE(16, 16);
      h.writeUInt16LE(format, 20);
      h.writeUInt16LE(channels, 22);
      h.writeUInt32LE(8000, 24);
      h.writeUInt32LE((8000 * channels * bits) / 8, 28);
      h.writeUInt16LE((channels * bits) / 8, 32);
      h.writeUInt16LE(bits, 34);
      h.write("data", 36);
      h.writeUInt32LE(body.length, 40);
      return new Uint8Array(Buffer.concat([h, body]));
    };
    expect(Array.from(decodeHarnessWav(wav(1, 1, 8, Buffer.from([0, 128, 255])), "u8").pcm)).toEqual([0, -32768, -256]);
    const f = Buffer.alloc(16);
    [0.5, -1.5, 0.99999, -0.00001].forEach((v, i) => f.writeFloatLE(v, i * 4));
    expect(Array.from(decodeHarnessWav(wav(3, 1, 32, f), "f32").pcm)).toEqual([16383, -32768, 32766, 0]);
    const st = Buffer.alloc(8);
    [3, -6, -3, 0].forEach((v, i) => st.writeInt16LE(v, i * 2));
    expect(Array.from(decodeHarnessWav(wav(1, 2, 16, st), "stereo").pcm)).toEqual([-1, -1]);
    expect(() => decodeHarnessWav(wav(1, 1, 24, Buffer.alloc(6)), "s24")).toThrow(/24-bit samples are not supported/);
  });
});

function observation(over: Partial<TurnObservation> = {}): TurnObservation {
  return {
    turnNumber: 1, error: null, sampleRate: 24000, sendStartAt: 1000, sendEndAt: 2000, uplinkEndAt: 2500, clipDurationS: 1, clipSentS: 1, speechEndInClipS: 0.9,
    speechStoppedAt: [2400], speechStoppedAudioEndMs: [900], anchorAt: 2400, transcript: "“Hello”\u00a0there…\nfriend", transcriptionDoneAt: 2450, firstTextAt: 2600.5,
    firstAudioAt: 2601.25, responseFirstAudioAt: [2601.25], responseEndAt: 3000, responses: 1, responseText: "Hi – welcome.", responseFull: "", wasTruncated: false, truncatedAt: null,
    responseAudio: new Int16Array(2400), toolCalls: [], toolResults: [], vadSplit: false, vadSplitAt: null, agentErrors: [], timedOut: false, maxFrameLatenessMs: 1, ...over,
  };
}

describe("records", () => {
  const conversation = readReplayDataset(BUNDLED_DATASET).conversations[0];

  it("sanitising (F4.3): quotes, dashes, ellipsis, NBSP, control characters deleted, whitespace collapsed", () => {
    expect(sanitizeText("“Hello”\u00a0there…\nfriend \u2014 it\u2019s\uFFFD  ok ")).toBe('"Hello" there...friend - it\'s ok');
  });

  it("--legacy-names writes the older metric names in the same order; latencies at microsecond resolution from the harness anchor", () => {
    const current = new ConversationRecordBuilder(conversation, { legacyNames: false }).record(0, observation());
    expect(Object.keys(current)).toEqual([...TURN_RECORD_KEYS]);
    expect(current.metrics).toEqual({ transcription_latency_seconds: 0.05, text_response_latency_seconds: 0.2005, audio_response_latency_seconds: 0.20125, logical_turn_number: 1, audio_response_received: true });
    expect(current.transcript).toBe('"Hello" there...friend');
    const legacy = new ConversationRecordBuilder(conversation, { legacyNames: true }).record(0, observation());
    expect(Object.keys(legacy.metrics as object)).toEqual(["turn-audio-transcription-latency-in-seconds", "turn-text-resonse-latency-in-seconds", "turn-audio-resonse-latency-in-seconds", "logical_turn_number", "audio_response_received"]);
  });

  it("placeholders when there is no response; error records in F4.4 order", () => {
    const b = new ConversationRecordBuilder(conversation, { legacyNames: false });
    expect(b.record(0, observation({ responseText: "", firstAudioAt: null, responseFirstAudioAt: [], wasTruncated: true })).response).toEqual([{ role: "assistant", content: "[No response — barge-in truncated before response]" }]);
    expect(b.record(1, observation({ responseText: "", firstAudioAt: null, responseFirstAudioAt: [] })).response).toEqual([{ role: "assistant", content: "[No response — no response received]" }]);
    expect(b.record(0, observation({ error: "connection lost: x" }))).toEqual({ conversation_id: "order-help", source_file: conversation.entries[0].audio.kind === "file" ? conversation.entries[0].audio.path : "", error: "connection lost: x", turn_number: 1 });
  });

  it("operational summary counts (F4.6): errors count as actual turns, text-only excludes errors", () => {
    const rows = [
      { metrics: { audio_response_received: true }, response: [{}] },
      { metrics: { audio_response_received: false }, response: [{}] },
      { conversation_id: "x", source_file: "y", error: "e", turn_number: 3 },
    ];
    const s = operationalSummary(rows, 3, "2026-01-01_00-00-00", "", new Date(2026, 0, 1, 9, 5, 7));
    expect(s).toEqual({
      operational_metrics: { turns_processed: "3/3", expected_turns: 3, actual_turns: 3, vad_splitting_detected: false, turn_expansion_factor: 1, turns_with_audio_response: 1, turns_with_text_only_response: 1, audio_response_rate: 0.33 },
      session_info: { timestamp: "2026-01-01 09:05:07", evaluation_mode: "enabled", session_id: "2026-01-01_00-00-00", session_suffix: "" },
    });
  });
});

describe("stub tools", () => {
  it("a JSON table answers known tools; anything else gets the unknown-tool reply", async () => {
    const t = stubToolsFromTable({ get_time: "12:00", lookup: { ok: true } });
    expect(await t.call({ call_id: "1", name: "get_time", arguments: "{}" })).toBe("12:00");
    expect(await t.call({ call_id: "2", name: "lookup", arguments: "{}" })).toBe('{"ok":true}');
    expect(await t.call({ call_id: "3", name: "nope", arguments: "{}" })).toBe(unknownToolReply("nope"));
    expect(unknownToolReply("nope")).toBe('{"error":"Unknown tool: nope"}');
  });

  it("a JS module: functions get the parsed arguments", async () => {
    const mod = join(work, "tools.mjs");
    writeFileSync(mod, "export default { add: (a) => ({ sum: a.x + a.y }), fixed: 'x' };\n");
    const t = await loadStubTools(mod);
    expect(await t.call({ call_id: "1", name: "add", arguments: '{"x":2,"y":3}' })).toBe('{"sum":5}');
    expect(await t.call({ call_id: "2", name: "other", arguments: "{}" })).toBe(unknownToolReply("other"));
    await expect(loadStubTools(join(work, "missing.json"))).rejects.toThrow(/missing\.json.*tools table is not readable/);
  });
});

describe("a connection that cannot be opened", () => {
  it("yields an error record (F4.4) for every turn of its conversations instead of vanishing", async () => {
    const out = join(work, "refused");
    // A port nobody listens on: bind one, then close it.
    const net = await import("node:net");
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await runReplay(runOptions(BUNDLED_DATASET, out, `ws://127.0.0.1:${port}/realtime`, { connectTimeoutS: 2 }));
    expect(r).toMatchObject({ records: 4, errorRecords: 4 });
    const records = readJsonl(join(out, "dataset.jsonl"));
    for (const rec of records) {
      expect(Object.keys(rec)).toEqual(["conversation_id", "source_file", "error", "turn_number"]);
      expect(rec.error).toMatch(/^connection failed: /);
    }
    expect(records.map((x) => x.turn_number)).toEqual([1, 2, 1, 1]);
  });
});
