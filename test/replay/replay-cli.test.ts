// `voxmetrics replay` as a user runs it (child process): --help shows every default, --print-config shows values and their sources, a bad config names file and key, and a run with the harness's resampler, legacy names and stub tools.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio } from "../../src/index.js";
import { decodeHarnessWav, resampleHarnessLinear } from "../../src/replay/audio.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { BUNDLED_DATASET, BUNDLED_TOOLS, REPO, readJsonl } from "./helpers.js";

const run = promisify(execFile);
const ENTRY = ["--import", "tsx", join(REPO, "test", "replay", "replay-entry.ts"), "replay"];
const SECRET = "secret-value-for-the-cli-test";
let tmp: string;
let agent: ReferenceAgent;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "vox-replay-cli-"));
  agent = await startReferenceAgent({ delayMs: 200, vadSilenceMs: 300, replies: ["Your order ships tomorrow."], toolCall: ({ utterance }) => (utterance === 0 ? { name: "get_order_status", arguments: "{}" } : null) });
});

afterAll(async () => {
  await agent.close();
  rmSync(tmp, { recursive: true, force: true });
});

const node = (args: string[], env: NodeJS.ProcessEnv = {}) => run(process.execPath, [...ENTRY, ...args], { cwd: REPO, timeout: 60_000, env: { ...process.env, ...env } });

describe("voxmetrics replay", () => {
  it("--help shows every default", async () => {
    const { stdout } = await node(["--help"]);
    const text = stdout.replace(/\s+/g, " ");
    for (const d of [
      'default: "realtime"',
      'default: "AZURE_VOICELIVE_API_KEY"',
      'default: "band-limited"',
      'default: "per-conversation"',
      "default: 1)",
      'default: "send-whole"',
      'default: "paced"',
      "default: 5000",
      "default: 500)",
      "default: 30000",
      "default: 15)",
      'default: "beta"',
      "default: gpt-realtime",
      "default: en-US-Ava:DragonHDLatestNeural",
      "default: azure-standard",
      "default: 24000",
      "default: azure_deep_noise_suppression",
      "default: server_echo_cancellation",
      "default: azure_semantic_vad_multilingual",
      "default: semantic_detection_v1_multilingual",
      "default: the service's",
      "default: true",
      "default: false",
    ]) {
      expect(text).toContain(d);
    }
  });

  it("--print-config: config file over defaults, command line over both, each value with its source", async () => {
    const cfg = join(tmp, "session.json");
    writeFileSync(cfg, JSON.stringify({ model: "gpt-5", vad_type: "server_vad", silence_duration_ms: 2000, use_eou_detection: false, push_to_talk: true, enable_barge_in: false }));
    const { stdout } = await node(["x", "--config", cfg, "--silence-duration-ms", "800", "--enable-barge-in", "--print-config"]);
    const printed = JSON.parse(stdout);
    expect(printed.session).toMatchObject({
      model: { value: "gpt-5", source: "config" },
      vad_type: { value: "server_vad", source: "config" },
      silence_duration_ms: { value: 800, source: "cli" },
      use_eou_detection: { value: false, source: "config" },
      push_to_talk: { value: true, source: "config" },
      enable_barge_in: { value: true, source: "cli" },
      voice: { value: "en-US-Ava:DragonHDLatestNeural", source: "default" },
    });
    expect(printed.api_key_env).toBe("AZURE_VOICELIVE_API_KEY");
  });

  it("a bad config file is an error naming the file and the key", async () => {
    const cfg = join(tmp, "bad.json");
    writeFileSync(cfg, JSON.stringify({ vad_type: "server_vad", silence_duration_ms: "long" }));
    const err = await node(["x", "--config", cfg, "--print-config"]).catch((e: { stderr: string; code: number }) => e);
    expect((err as { code: number }).code).not.toBe(0);
    expect((err as { stderr: string }).stderr).toMatch(/bad\.json.*silence_duration_ms.*must be a number/);
  });

  it("a run with --resample linear (the harness's bytes), --legacy-names and a stub tools table; the API key from --api-key-env is never printed", async () => {
    const out = join(tmp, "out");
    const r = await node(
      [BUNDLED_DATASET, "--url", `${agent.url}/realtime`, "--out", out, "--resample", "linear", "--legacy-names", "--tools", BUNDLED_TOOLS, "--api-key-env", "VOX_CLI_TEST_KEY", "--drain-ms", "0", "--turn-gap-ms", "0", "--concurrency", "3"],
      { VOX_CLI_TEST_KEY: SECRET },
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ datasets: 1, conversations: 3, records: 4, error_records: 0 });
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    const records = readJsonl(join(out, "dataset.jsonl"));
    for (const rec of records) expect(Object.keys(rec.metrics as object)).toContain("turn-audio-resonse-latency-in-seconds");
    expect(agent.toolOutputs.at(-1)!.output).toBe(JSON.stringify(JSON.parse(readFileSync(BUNDLED_TOOLS, "utf8")).get_order_status));
    // The clip sent is the harness's conversion of the 8 kHz file, sample for sample.
    const harness = decodeHarnessWav(new Uint8Array(readFileSync(join(BUNDLED_DATASET, "..", "clips", "user-1.wav"))), "user-1");
    const sent = decodeAudio(new Uint8Array(readFileSync(join(out, "order-help", "turn_01_input.wav"))));
    expect(Array.from(sent.samples)).toEqual(Array.from(resampleHarnessLinear(harness.pcm, harness.sampleRate, 24000)));
    const manifest = JSON.parse(readFileSync(join(out, "voxmetrics-replay.json"), "utf8"));
    expect(manifest).toMatchObject({ format: "voxmetrics-replay", status: "complete", agent: { api_key_env: "VOX_CLI_TEST_KEY", header_names: ["api-key", "Authorization"] }, options: { resampler: "linear", legacy_names: true } });
    expect(manifest.agent.url).not.toContain("model=");
  }, 60_000);
});
