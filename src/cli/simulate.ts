// `voxmetrics simulate`: a simulated caller per golden (persona, scripted or model policy, TTS, STT, duplex barge-ins) calls a voice agent through a connector; every call is captured into --out, optionally scored.
import { Command, InvalidArgumentError, Option } from "commander";
import {
  DEFAULT_ESPEAK_TTS_OPTIONS,
  DEFAULT_RUN_SIMULATIONS_OPTIONS,
  DEFAULT_SIMULATE_CALL_OPTIONS,
  ESPEAK_INSTALL_HINT,
  EspeakTts,
  INTERRUPTION_FREQUENCIES,
  ModelCallerPolicy,
  ModelJudge,
  OpenAIChatModel,
  OpenAISpeechToText,
  OpenAITextToSpeech,
  OVERLAP_PRESETS,
  PocketsphinxSpeechToText,
  RuleBasedJudge,
  ScriptedCallerPolicy,
  readGoldenFile,
  runSimulations,
  type ConversationalGolden,
  type InterruptionFrequency,
  type OverlapPreset,
  type SpeechToText,
  type TextToSpeech,
} from "../index.js";
import { DEFAULT_POOL_OPTIONS } from "../pool/index.js";
import { addConnectorOptions, callDoneLine, connectorFactory, finishCapturedCalls, type ConnectorFlags } from "./call.js";
import { parseNumber } from "./options.js";

interface SimulateFlags extends ConnectorFlags {
  out: string;
  duplex?: boolean;
  caller: "scripted" | "model";
  judge: "rule" | "model";
  tts: "espeak" | "openai";
  stt: "pocketsphinx" | "openai" | "connector";
  concurrency: number;
  maxTurns: number;
  seed: number;
  frequency?: InterruptionFrequency;
  overlap?: OverlapPreset;
  voice: string;
  ttsRate: number;
  ttsModel?: string;
  sttModel?: string;
  chatModel?: string;
  modelBaseUrl?: string;
  modelTimeoutMs: number;
  score?: boolean;
  workers: number;
}

const EXIT_FAILED = 1;

export function registerSimulateCommand(program: Command): void {
  addConnectorOptions(program.command("simulate"))
    .description("simulate a caller for each golden (persona, script or chat model, TTS, STT, duplex barge-ins) against a voice agent; record every call into --out")
    .argument("<goldens...>", "golden files (.json object or array, or .jsonl): deepeval ConversationalGolden with persona")
    .requiredOption("--out <folder>", "output folder: <name>.json per call, simulation-…/ turn WAVs, recordings/<name>.wav")
    .option("--duplex", "full duplex: the caller listens while the agent talks and barges in per its persona's interruption_behavior")
    .addOption(new Option("--caller <policy>", "what the caller says: the golden's user turns then a sign-off, or a chat model").choices(["scripted", "model"]).default("scripted"))
    .addOption(new Option("--judge <kind>", "duplex barge-in judge: deterministic rules (seeded) or the chat model").choices(["rule", "model"]).default("rule"))
    .addOption(new Option("--tts <model>", "caller voice: espeak-ng (offline) or an OpenAI-compatible /audio/speech").choices(["espeak", "openai"]).default("espeak"))
    .addOption(new Option("--stt <model>", "agent transcripts: pocketsphinx (offline), OpenAI-compatible /audio/transcriptions, or the connector's only").choices(["pocketsphinx", "openai", "connector"]).default("connector"))
    .option("--concurrency <n>", "calls in flight at once, each on its own connection", parseNumber(1, true), DEFAULT_RUN_SIMULATIONS_OPTIONS.concurrency)
    .option("--max-turns <n>", "most caller utterances per call", parseNumber(1, true), DEFAULT_SIMULATE_CALL_OPTIONS.maxTurns)
    .option("--seed <n>", "seed of the rule judge and the restart back-off (same seed, same decisions)", parseNumber(0, true), DEFAULT_SIMULATE_CALL_OPTIONS.seed)
    .addOption(new Option("--frequency <f>", "interruption frequency for personas without interruption_behavior").choices(INTERRUPTION_FREQUENCIES))
    .addOption(new Option("--overlap <o>", "floor-control preset for personas without interruption_behavior").choices(OVERLAP_PRESETS))
    .option("--voice <name>", "espeak-ng voice when the persona has none", DEFAULT_ESPEAK_TTS_OPTIONS.voice)
    .option("--tts-rate <wpm>", "espeak-ng speaking rate (words per minute)", parseNumber(80, true), DEFAULT_ESPEAK_TTS_OPTIONS.wordsPerMinute)
    .option("--tts-model <name>", "OpenAI TTS model (default gpt-4o-mini-tts)")
    .option("--stt-model <name>", "OpenAI STT model (default gpt-4o-transcribe)")
    .option("--chat-model <name>", "chat model of --caller model / --judge model (default $VOXMETRICS_CHAT_MODEL)")
    .option("--model-base-url <url>", "OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1 (default $OPENAI_BASE_URL, else OpenAI); the key is read from $OPENAI_API_KEY only")
    .option("--model-timeout-ms <ms>", "limit on each model request", parseNumber(1, true), 60_000)
    .option("--score", "score the captured calls when done (<out>/scores.jsonl, <out>/summary.json)")
    .option("--workers <n>", "with --score: worker threads", parseNumber(0, true), DEFAULT_POOL_OPTIONS.workers)
    .action(async (goldens: string[], flags: SimulateFlags) => {
      process.exitCode = await runSimulate(goldens, flags);
    });
}

function models(flags: SimulateFlags): { tts: TextToSpeech; stt: SpeechToText | null; chat: () => OpenAIChatModel } {
  const client = { baseUrl: flags.modelBaseUrl ?? null, timeoutMs: flags.modelTimeoutMs };
  const tts: TextToSpeech = flags.tts === "openai" ? new OpenAITextToSpeech({ model: flags.ttsModel ?? null, client }) : new EspeakTts({ voice: flags.voice, wordsPerMinute: flags.ttsRate });
  const stt: SpeechToText | null =
    flags.stt === "pocketsphinx" ? new PocketsphinxSpeechToText() : flags.stt === "openai" ? new OpenAISpeechToText({ model: flags.sttModel ?? null, client }) : null;
  let chat: OpenAIChatModel | null = null;
  return {
    tts,
    stt,
    chat: () => {
      try {
        chat ??= new OpenAIChatModel({ model: flags.chatModel ?? null, client });
      } catch (e) {
        throw new InvalidArgumentError(`${(e as Error).message} (--chat-model)`);
      }
      return chat;
    },
  };
}

async function runSimulate(files: string[], flags: SimulateFlags): Promise<number> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const goldens: ConversationalGolden[] = [];
  let failed = 0;
  for (const file of files) {
    const r = readGoldenFile(file);
    for (const e of r.errors) log(`voxmetrics simulate: ${e.message}`);
    failed += r.errors.length;
    goldens.push(...r.goldens);
  }
  if (goldens.length === 0) {
    log("voxmetrics simulate: no readable golden");
    return EXIT_FAILED;
  }
  if (flags.caller === "scripted") {
    for (const g of goldens) if (g.script.length === 0) log(`voxmetrics simulate: ${g.origin}: the golden has no user turns, so the scripted caller only signs off (use --caller model)`);
  }
  const { make, info } = await connectorFactory(flags);
  const { tts, stt, chat } = models(flags);
  if (tts instanceof EspeakTts && !EspeakTts.isAvailable()) {
    log(`voxmetrics simulate: ${ESPEAK_INSTALL_HINT}`);
    return EXIT_FAILED;
  }
  if (stt instanceof PocketsphinxSpeechToText) {
    try {
      await stt.checkInstallation();
    } catch (e) {
      log(`voxmetrics simulate: ${(e as Error).message}`);
      return EXIT_FAILED;
    }
  }
  const chatModel = flags.caller === "model" || (flags.duplex && flags.judge === "model") ? chat() : null;
  const interruption = flags.frequency || flags.overlap ? { frequency: flags.frequency ?? "normal", overlap: flags.overlap ?? "adaptive" } : null;
  log(
    `voxmetrics simulate: ${goldens.length} call(s), ${flags.concurrency} at a time, ${flags.duplex ? `duplex (${flags.judge} judge)` : "half-duplex"}, ${flags.caller} caller, TTS ${tts.modelName}, STT ${stt?.modelName ?? "connector transcripts"}${chatModel ? `, chat ${chatModel.modelName}` : ""}`,
  );
  const { results, run } = await runSimulations(goldens, make, {
    outDir: flags.out,
    concurrency: flags.concurrency,
    duplex: flags.duplex ?? false,
    tts,
    stt,
    maxTurns: flags.maxTurns,
    seed: flags.seed,
    interruption,
    connectorInfo: info,
    makePolicy: (g) => (flags.caller === "model" ? new ModelCallerPolicy(chatModel!) : new ScriptedCallerPolicy(g.script)),
    makeJudge: () => (flags.judge === "model" && chatModel ? new ModelJudge(chatModel) : new RuleBasedJudge(flags.seed)),
    onProgress: log,
    onCallDone: (r, done, total) => {
      log(callDoneLine(r, done, total));
    },
  });
  failed += await finishCapturedCalls("simulate", results, run, flags, log);
  return failed > 0 ? EXIT_FAILED : 0;
}
