// `voxmetrics replay`: replays Voice Live datasets through a realtime-API agent and writes the harness's outputs (per-turn JSONL, response WAVs, operational summary) plus honest timings.
import { Command, InvalidArgumentError, Option } from "commander";
import {
  DEFAULT_REPLAY_RUN_OPTIONS,
  DEFAULT_REPLAY_SESSION_CONFIG,
  GROUPING_MODES,
  loadStubTools,
  NO_STUB_TOOLS,
  POST_CLIP_SILENCES,
  readSessionConfigFile,
  REPLAY_RESAMPLERS,
  resolveSessionConfig,
  runReplay,
  VAD_SPLIT_MODES,
  type GroupingMode,
  type PostClipSilence,
  type ReplayResampler,
  type ReplaySessionConfig,
  type VadSplitMode,
} from "../index.js";
import { parseNumber } from "./options.js";

/** The environment variable the API key is read from unless --api-key-env names another. */
export const DEFAULT_API_KEY_ENV = "AZURE_VOICELIVE_API_KEY";

interface ReplayFlags {
  connector: string;
  url?: string;
  out?: string;
  config?: string;
  printConfig?: boolean;
  apiKeyEnv: string;
  tools?: string;
  resample: ReplayResampler;
  sessionMode: GroupingMode;
  concurrency: number;
  resume?: boolean;
  legacyNames?: boolean;
  vadSplit: VadSplitMode;
  postClipSilence: PostClipSilence;
  drainMs: number;
  drainIdleMs: number;
  turnTimeoutMs: number;
  turnGapMs: number;
  connectTimeout: number;
  apiVersion: "beta" | "ga";
  sessionSuffix: string;
  model?: string;
  voice?: string;
  voiceType?: string;
  sampleRate?: number;
  noiseReduction?: string;
  echoCancellation?: string;
  vadType?: string;
  vadThreshold?: number;
  silenceDurationMs?: number;
  prefixPaddingMs?: number;
  enableEouDetection?: boolean;
  disableEouDetection?: boolean;
  eouModel?: string;
  pushToTalk?: boolean;
  enableBargeIn?: boolean;
  disableBargeIn?: boolean;
  transcriptionModel?: string;
}

const d = DEFAULT_REPLAY_SESSION_CONFIG;
const r = DEFAULT_REPLAY_RUN_OPTIONS;
const shown = (v: unknown) => `(default: ${v === null ? "the service's" : String(v)})`;

/** The session flags given on the command line (undefined = not given, so the config file's value stands). */
function cliSessionValues(f: ReplayFlags): Partial<ReplaySessionConfig> {
  const both = (on?: boolean, off?: boolean, name = "") => {
    if (on && off) throw new InvalidArgumentError(`--enable-${name} and --disable-${name} contradict each other`);
    return on ? true : off ? false : undefined;
  };
  return {
    model: f.model,
    voice: f.voice,
    voice_type: f.voiceType,
    sample_rate: f.sampleRate,
    noise_reduction: f.noiseReduction,
    echo_cancellation: f.echoCancellation,
    vad_type: f.vadType,
    vad_threshold: f.vadThreshold,
    silence_duration_ms: f.silenceDurationMs,
    prefix_padding_ms: f.prefixPaddingMs,
    use_eou_detection: both(f.enableEouDetection, f.disableEouDetection, "eou-detection"),
    eou_model: f.eouModel,
    push_to_talk: f.pushToTalk,
    enable_barge_in: both(f.enableBargeIn, f.disableBargeIn, "barge-in"),
    transcription_model: f.transcriptionModel,
  };
}

export function registerReplayCommand(program: Command): void {
  program
    .command("replay")
    .description(
      "replay Voice Live datasets (a .jsonl or a folder of them) through a realtime-API agent; writes the harness's per-turn JSONL, " +
        "response WAVs and operational summary into --out, with timings on one monotonic clock (<name>.timing.jsonl); `voxmetrics score <out>` reads it",
    )
    .argument("<input>", "dataset JSONL, or a folder searched for *.jsonl")
    .addOption(new Option("--connector <kind>", "agent protocol").choices(["realtime"]).default("realtime"))
    .option("--url <url>", "agent WebSocket URL (ws:// or wss://); the model goes in its query unless present")
    .option("--out <folder>", "output folder")
    .option("--config <file>", "session config JSON (the harness's flat keys, or the nested session shape); command-line values override it")
    .option("--print-config", "print every session setting with its value and where it came from (default, config, cli), then exit")
    .option("--api-key-env <name>", "environment variable holding the API key (sent as api-key and Bearer headers; never logged or written)", DEFAULT_API_KEY_ENV)
    .option("--tools <file>", "stub tools: a JSON table {name: output} or a JS module (default export: table or function(name, args))")
    .addOption(new Option("--resample <kind>", "caller audio to the session rate: band-limited (windowed sinc) or linear (the harness, bit for bit, with its WAV loader)").choices(REPLAY_RESAMPLERS).default(r.resampler))
    .addOption(new Option("--session-mode <mode>", "grouping: one session per conversation, per file entry, or one for all").choices(GROUPING_MODES).default(r.grouping))
    .addOption(new Option("--concurrency <n>", "conversations in flight (one session each)").argParser(parseNumber(1, true)).default(r.concurrency))
    .option("--resume", "skip conversations already complete in --out (partial ones are replayed)")
    .option("--legacy-names", "write the older metric names (turn-audio-resonse-latency-in-seconds, …)")
    .addOption(new Option("--vad-split <mode>", "when the agent answers during a pause inside a clip: send the whole clip anyway (recorded as vad_split), or drop the rest as the harness does").choices(VAD_SPLIT_MODES).default(r.vadSplit))
    .addOption(new Option("--post-clip-silence <mode>", "after a clip: paced 20 ms zero frames like a live microphone, or the harness's keepalive (one frame per 100 ms)").choices(POST_CLIP_SILENCES).default(r.postClipSilence))
    .addOption(new Option("--drain-ms <n>", "late-event drain after each turn, at most (ms)").argParser(parseNumber(0, true)).default(r.drainMs))
    .addOption(new Option("--drain-idle-ms <n>", "the drain ends once the transcription is in and nothing arrived for this long (ms)").argParser(parseNumber(0, true)).default(r.drainIdleMs))
    .addOption(new Option("--turn-timeout-ms <n>", "a turn still unanswered this long after its clip ends is recorded as timed out (ms)").argParser(parseNumber(1, true)).default(r.turnTimeoutMs))
    .addOption(new Option("--turn-gap-ms <n>", "pause between turns (ms)").argParser(parseNumber(0, true)).default(r.turnGapMs))
    .addOption(new Option("--connect-timeout <s>", "connection timeout (s)").argParser(parseNumber(0.001, false)).default(r.connectTimeoutS))
    .addOption(new Option("--api-version <v>", "realtime event names of the session.update").choices(["beta", "ga"]).default(r.apiVersion))
    .option("--session-suffix <text>", "session suffix written to the operational summary", r.suffix)
    .option("--model <name>", `model ${shown(d.model)}`)
    .option("--voice <name>", `voice ${shown(d.voice)}`)
    .option("--voice-type <type>", `azure-standard or preset ${shown(d.voice_type)}`)
    .addOption(new Option("--sample-rate <hz>", `session PCM rate ${shown(d.sample_rate)}`).choices(["16000", "24000"]).argParser((v) => Number(v)))
    .option("--noise-reduction <type>", `noise reduction, none = off ${shown(d.noise_reduction)}`)
    .option("--echo-cancellation <type>", `echo cancellation, none = off ${shown(d.echo_cancellation)}`)
    .option("--vad-type <type>", `turn detection type ${shown(d.vad_type)}`)
    .option("--vad-threshold <x>", `VAD threshold ${shown(d.vad_threshold)}`, parseNumber(0, false))
    .option("--silence-duration-ms <n>", `end-of-speech silence (ms) ${shown(d.silence_duration_ms)}`, parseNumber(0, true))
    .option("--prefix-padding-ms <n>", `audio kept before speech (ms) ${shown(d.prefix_padding_ms)}`, parseNumber(0, true))
    .option("--enable-eou-detection", `semantic end-of-utterance detection on ${shown(d.use_eou_detection)}`)
    .option("--disable-eou-detection", "semantic end-of-utterance detection off")
    .option("--eou-model <name>", `end-of-utterance model ${shown(d.eou_model)}`)
    .option("--push-to-talk", `commit each clip and ask for the response (server VAD stays configured) ${shown(d.push_to_talk)}`)
    .option("--enable-barge-in", `the service interrupts and auto-truncates on caller speech ${shown(d.enable_barge_in)}`)
    .option("--disable-barge-in", "no barge-in")
    .option("--transcription-model <name>", "input transcription model (default: gpt-4o-transcribe for realtime models, azure-speech otherwise)")
    .action(async (input: string, f: ReplayFlags) => {
      const file = f.config ? readSessionConfigFile(f.config) : {};
      const { config, sources } = resolveSessionConfig(file, cliSessionValues(f));
      if (f.printConfig) {
        const rows = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { value: v, source: sources[k as keyof ReplaySessionConfig] }]));
        process.stdout.write(`${JSON.stringify({ session: rows, api_key_env: f.apiKeyEnv, api_key_set: Boolean(process.env[f.apiKeyEnv]) }, null, 2)}\n`);
        return;
      }
      if (!f.url) throw new InvalidArgumentError("--url is required");
      if (!f.out) throw new InvalidArgumentError("--out is required");
      const key = process.env[f.apiKeyEnv];
      const headers: Record<string, string> = key ? { "api-key": key, Authorization: `Bearer ${key}` } : {};
      let url = f.url;
      if (!/[?&]model=/.test(url)) url += `${url.includes("?") ? "&" : "?"}model=${encodeURIComponent(config.model)}`;
      const tools = f.tools ? await loadStubTools(f.tools) : NO_STUB_TOOLS;
      const result = await runReplay({
        input,
        out: f.out,
        url,
        headers,
        apiKeyEnv: key ? f.apiKeyEnv : null,
        config,
        configSources: sources,
        tools,
        resampler: f.resample,
        grouping: f.sessionMode,
        concurrency: f.concurrency,
        resume: Boolean(f.resume),
        legacyNames: Boolean(f.legacyNames),
        vadSplit: f.vadSplit,
        postClipSilence: f.postClipSilence,
        drainMs: f.drainMs,
        drainIdleMs: f.drainIdleMs,
        turnTimeoutMs: f.turnTimeoutMs,
        turnGapMs: f.turnGapMs,
        connectTimeoutS: f.connectTimeout,
        apiVersion: f.apiVersion,
        suffix: f.sessionSuffix,
        onProgress: (line) => process.stderr.write(`${line}\n`),
      });
      process.stdout.write(
        `${JSON.stringify({ out: result.out, datasets: result.datasets, conversations: result.conversations, resumed_conversations: result.skippedConversations, records: result.records, error_records: result.errorRecords, user_wer: result.userWer.rate })}\n`,
      );
    });
}
