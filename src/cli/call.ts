// `voxmetrics call`: calls a voice agent through a connector for each caller script, records every call into --out, optionally scores it.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Command, InvalidArgumentError, Option } from "commander";
import {
  BaseConnector,
  CallbackConnector,
  DEFAULT_ESPEAK_TTS_OPTIONS,
  DEFAULT_REALTIME_CONNECTOR_OPTIONS,
  DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS,
  DEFAULT_SCRIPTED_CALL_OPTIONS,
  DEFAULT_WEBSOCKET_CONNECTOR_OPTIONS,
  ElevenLabsConnector,
  EspeakTts,
  ESPEAK_INSTALL_HINT,
  RealtimeConnector,
  WebSocketConnector,
  formatSummaryTable,
  readScriptFile,
  runScriptedCalls,
  scoreArchive,
  type CallRecord,
  type CallScript,
  type CaptureRun,
  type VoxError,
  type RealtimeTurnMode,
  type ResamplerKind,
  type TurnDetectionPreset,
  type VoiceAgentFunction,
  type VoiceConnector,
  type WebSocketConnectorOptions,
} from "../index.js";
import { DEFAULT_POOL_OPTIONS } from "../pool/index.js";

/** The connector flags (see addConnectorOptions). */
export interface ConnectorFlags {
  connector: string;
  url?: string;
  turnDetection: TurnDetectionPreset;
  header: string[];
  sampleRate: number;
  trailingSilenceMs: number;
  connectTimeout: number;
  sendKey: string;
  receiveAudioKey: string;
  receiveTranscriptKey?: string;
  turnCompleteType?: string;
  typeKey: string;
  binaryOutbound?: boolean;
  binaryInbound?: boolean;
  readyOn: "connect" | "message";
  initMessage: string[];
  turnMode: RealtimeTurnMode;
  apiVersion: "beta" | "ga";
  agentId?: string;
  resampler: ResamplerKind;
}

interface CallFlags extends ConnectorFlags {
  script: string[];
  out: string;
  duplex?: boolean;
  score?: boolean;
  concurrency: number;
  voice: string;
  ttsRate: number;
  bargeInGraceMs: number;
  workers: number;
}

const EXIT_FAILED = 1;

function parseNumber(min: number, integer: boolean) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) throw new InvalidArgumentError(`expected ${integer ? "an integer" : "a number"} ≥ ${min}, got "${value}"`);
    return n;
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The connector flags `call` and `simulate` share. */
export function addConnectorOptions(command: Command): Command {
  const ws = DEFAULT_WEBSOCKET_CONNECTOR_OPTIONS;
  return command
    .requiredOption("--connector <kind>", "websocket | realtime | elevenlabs | a module exporting createConnector(), a connector class or an agent function")
    .option("--url <url>", "agent URL (ws:// or wss://); for elevenlabs instead of --agent-id")
    .addOption(new Option("--turn-detection <preset>", "end-of-turn preset: eager 500 ms/20 s, balanced 800 ms/30 s, patient 2500 ms/120 s").choices(["eager", "balanced", "patient"]).default("balanced"))
    .option("--header <name: value>", "handshake header; ${NAME} in the value reads environment variable NAME (quote it: '…'); repeatable", collect, [] as string[])
    .option("--sample-rate <hz>", "PCM rate sent to the agent (elevenlabs: taken from the agent)", parseNumber(4000, true), ws.sampleRate)
    .option("--trailing-silence-ms <ms>", "zeros appended to each caller turn so the agent's VAD fires", parseNumber(0, false), ws.trailingSilenceMs)
    .option("--connect-timeout <s>", "connection timeout (s)", parseNumber(0.1, false), ws.connectTimeoutS)
    .option("--send-key <key>", "websocket: dotted key of outbound base64 audio", ws.sendKey)
    .option("--receive-audio-key <key>", "websocket: dotted key of inbound base64 audio", ws.receiveAudioKey)
    .option("--receive-transcript-key <key>", "websocket: dotted key of the agent's transcript (default: none)")
    .option("--turn-complete-type <type>", "websocket: message type that ends the agent's turn (default: none)")
    .option("--type-key <key>", "websocket: dotted key of the message type", ws.typeKey)
    .option("--binary-outbound", "websocket: send raw PCM binary frames")
    .option("--binary-inbound", "websocket: read binary frames as raw PCM")
    .addOption(new Option("--ready-on <when>", "websocket: ready on connect or on the first message").choices(["connect", "message"]).default(ws.readyOn))
    .option("--init-message <json>", "websocket: JSON message sent on connect; repeatable", collect, [] as string[])
    .addOption(new Option("--turn-mode <mode>", "realtime: server VAD (trailing silence) or push-to-talk (commit)").choices(["server-vad", "push-to-talk"]).default(DEFAULT_REALTIME_CONNECTOR_OPTIONS.turnMode))
    .addOption(new Option("--api-version <v>", "realtime: session.update shape").choices(["beta", "ga"]).default(DEFAULT_REALTIME_CONNECTOR_OPTIONS.apiVersion))
    .option("--agent-id <id>", "elevenlabs: agent id (key from ELEVENLABS_API_KEY when set)")
    .addOption(new Option("--resampler <kind>", "caller audio to the connector's rate").choices(["linear", "band-limited"]).default("linear"));
}

export function registerCallCommand(program: Command): void {
  addConnectorOptions(program.command("call"))
    .description("call a voice agent for each caller script, record every call (deepeval test case + simulation folder + stereo recording) into --out")
    .requiredOption("--script <file>", "caller script (.json object or array, or .jsonl, one script per line); repeatable", collect, [] as string[])
    .requiredOption("--out <folder>", "output folder: <name>.json per call, simulation-…/ turn WAVs, recordings/<name>.wav")
    .option("--duplex", "full duplex: agent audio is read while the caller speaks (barge-ins need it)")
    .option("--score", "score the captured calls when done (<out>/scores.jsonl, <out>/summary.json)")
    .option("--concurrency <n>", "calls in flight at once, each on its own connection", parseNumber(1, true), DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS.concurrency)
    .option("--voice <name>", "espeak-ng voice for text turns", DEFAULT_ESPEAK_TTS_OPTIONS.voice)
    .option("--tts-rate <wpm>", "espeak-ng speaking rate (words per minute)", parseNumber(80, true), DEFAULT_ESPEAK_TTS_OPTIONS.wordsPerMinute)
    .option("--barge-in-grace-ms <ms>", "a barge-in succeeds when the agent stops within this time", parseNumber(0, false), DEFAULT_SCRIPTED_CALL_OPTIONS.bargeInGraceMs)
    .option("--workers <n>", "with --score: worker threads", parseNumber(0, true), DEFAULT_POOL_OPTIONS.workers)
    .action(async (flags: CallFlags) => {
      process.exitCode = await runCall(flags);
    });
}

function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(":");
    if (i <= 0) throw new InvalidArgumentError(`--header must be "Name: value", got a value without a name`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

/** A connector factory from a user module: createConnector(), a connector class, or an agent function. */
async function moduleConnector(spec: string, base: { turnDetection: TurnDetectionPreset; resampler: ResamplerKind; sampleRate: number }): Promise<() => VoiceConnector> {
  const mod = (await import(pathToFileURL(resolve(spec)).href)) as Record<string, unknown>;
  const factory = mod.createConnector;
  if (typeof factory === "function") return () => factory(base) as VoiceConnector;
  const value = mod.default ?? mod.agent ?? mod.connector;
  if (typeof value === "function" && value.prototype instanceof BaseConnector) return () => new (value as new (o: unknown) => VoiceConnector)(base);
  if (typeof value === "function") return () => new CallbackConnector(value as VoiceAgentFunction, base);
  throw new InvalidArgumentError(`${spec} exports no createConnector(), connector class or agent function (default, agent or connector)`);
}

export async function connectorFactory(flags: ConnectorFlags): Promise<{ make: () => VoiceConnector | Promise<VoiceConnector>; info: Record<string, unknown> }> {
  const base = { turnDetection: flags.turnDetection, resampler: flags.resampler };
  const wsBase: Omit<WebSocketConnectorOptions, "url"> = {
    ...base,
    headers: parseHeaders(flags.header),
    sampleRate: flags.sampleRate,
    trailingSilenceMs: flags.trailingSilenceMs,
    connectTimeoutS: flags.connectTimeout,
  };
  const needUrl = () => {
    if (!flags.url) throw new InvalidArgumentError(`--connector ${flags.connector} needs --url`);
    return flags.url;
  };
  const info = (kind: string) => ({ kind, url: flags.url ? new URL(flags.url).origin + new URL(flags.url).pathname : null, headers: Object.keys(wsBase.headers!) });
  switch (flags.connector) {
    case "websocket": {
      const url = needUrl();
      const o: WebSocketConnectorOptions = {
        ...wsBase,
        url,
        sendKey: flags.sendKey,
        receiveAudioKey: flags.receiveAudioKey,
        receiveTranscriptKey: flags.receiveTranscriptKey ?? null,
        turnCompleteType: flags.turnCompleteType ?? null,
        typeKey: flags.typeKey,
        binaryOutbound: flags.binaryOutbound ?? false,
        binaryInbound: flags.binaryInbound ?? false,
        readyOn: flags.readyOn,
        initMessages: flags.initMessage.map((m, i) => {
          try {
            return JSON.parse(m) as unknown;
          } catch (e) {
            throw new InvalidArgumentError(`--init-message ${i + 1} is not JSON: ${(e as Error).message}`);
          }
        }),
      };
      return { make: () => new WebSocketConnector(o), info: info("websocket") };
    }
    case "realtime": {
      const url = needUrl();
      return { make: () => new RealtimeConnector({ ...wsBase, url, turnMode: flags.turnMode, apiVersion: flags.apiVersion }), info: { ...info("realtime"), turn_mode: flags.turnMode } };
    }
    case "elevenlabs": {
      if (!flags.url && !flags.agentId) throw new InvalidArgumentError("--connector elevenlabs needs --agent-id or --url");
      return { make: () => ElevenLabsConnector.create({ ...wsBase, url: flags.url, agentId: flags.agentId }), info: { ...info("elevenlabs"), agent_id: flags.agentId ?? null } };
    }
    default: {
      const make = await moduleConnector(flags.connector, { ...base, sampleRate: flags.sampleRate });
      return { make, info: { kind: "module", module: flags.connector } };
    }
  }
}

async function runCall(flags: CallFlags): Promise<number> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const scripts: CallScript[] = [];
  let failed = 0;
  for (const file of flags.script) {
    const r = readScriptFile(file);
    for (const e of r.errors) log(`voxmetrics call: ${e.message}`);
    failed += r.errors.length;
    scripts.push(...r.scripts);
  }
  if (scripts.length === 0) {
    log("voxmetrics call: no readable script");
    return EXIT_FAILED;
  }
  const { make, info } = await connectorFactory(flags);
  const needsTts = scripts.some((s) => s.turns.some((t) => t.text !== null));
  const tts = needsTts ? new EspeakTts({ voice: flags.voice, wordsPerMinute: flags.ttsRate }) : null;
  if (tts && !EspeakTts.isAvailable()) {
    log(`voxmetrics call: ${ESPEAK_INSTALL_HINT}`);
    return EXIT_FAILED;
  }
  log(`voxmetrics call: ${scripts.length} call(s), ${flags.concurrency} at a time, ${flags.duplex ? "duplex" : "half-duplex"}, turn detection ${flags.turnDetection}`);
  let done = 0;
  const { results, run } = await runScriptedCalls(scripts, make, {
    outDir: flags.out,
    concurrency: flags.concurrency,
    duplex: flags.duplex ?? false,
    tts,
    bargeInGraceMs: flags.bargeInGraceMs,
    connectorInfo: info,
    onProgress: log,
    onCallDone: (r) => {
      done++;
      log(callDoneLine(r, done, scripts.length));
    },
  });
  failed += await finishCapturedCalls("call", results, run, flags, log);
  return failed > 0 ? EXIT_FAILED : 0;
}

/** A captured call's outcome as `call` and `simulate` report it. */
interface CapturedCallResult {
  name: string;
  testCasePath: string | null;
  record: CallRecord | null;
  error: VoxError | null;
}

/** One progress line per finished call (stderr). */
export function callDoneLine(r: CapturedCallResult, done: number, total: number): string {
  return `${done}/${total} calls · ${r.name}: ${r.testCasePath ? `${r.record?.turns.length ?? 0} turn(s)` : "not recorded"}${r.record?.endReason ? ` · end_reason ${r.record.endReason}` : ""}${r.error ? ` · ${r.error.message}` : ""}`;
}

/**
 * What `call` and `simulate` do once their calls are captured: one JSON line per call on stdout,
 * the folder on stderr, then --score (scores.jsonl and summary.json in the folder). Returns the
 * number of failed calls.
 */
export async function finishCapturedCalls(
  command: "call" | "simulate",
  results: readonly CapturedCallResult[],
  run: CaptureRun,
  flags: { out: string; score?: boolean; workers: number },
  log: (m: string) => void,
): Promise<number> {
  let failed = 0;
  for (const r of results) {
    process.stdout.write(
      `${JSON.stringify({ name: r.name, test_case: r.testCasePath, turns: r.record?.turns.length ?? 0, end_reason: r.record?.endReason ?? null, error: r.error ? { code: r.error.code, message: r.error.message } : null })}\n`,
    );
    if (r.error) failed++;
  }
  log(`voxmetrics ${command}: wrote ${results.filter((r) => r.testCasePath).length} call(s) to ${run.outDir} (${run.simulationFolder})`);
  if (flags.score) {
    const out = resolve(flags.out, "scores.jsonl");
    const result = await scoreArchive({ inputs: [flags.out], out, summary: resolve(flags.out, "summary.json"), pool: { workers: flags.workers } });
    process.stderr.write(formatSummaryTable(result.summary));
    log(`voxmetrics ${command}: scores in ${out}`);
  }
  return failed;
}
