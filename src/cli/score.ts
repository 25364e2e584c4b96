// `voxmetrics score <inputs...>`: scores archives through the worker pool into JSONL, summary and CSV, with progress and resume.
import { accessSync, constants } from "node:fs";
import { resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { Command } from "commander";
import { DEFAULT_QUEUE_OPTIONS, failUnder, formatSummaryTable, scoreArchive, STDIN_INPUT, writeHtmlReportOfResults, type AgentChannel, type CompatMode, type InputFormat, type MetricProfile, type QueueStatus, type ScoreArchiveResult } from "../index.js";
import { agentChannelOption, callTimeoutOption, checkOutputPath, compatOption, embedAudioOption, inputFormatOption, maxAudioSecondsOption, maxChannelsOption, parseNumber, parseScore, profileOption, saveStdin, stderrIsRichTerminal, STDOUT_PATH, thresholdOption, workerHeapOption, workersOption } from "./options.js";

interface ScoreFlags {
  out?: string;
  metrics?: string;
  threshold: number;
  strict?: boolean;
  compat: CompatMode;
  profile: MetricProfile;
  workers: number;
  summary?: string;
  csv?: string;
  resume?: boolean;
  failUnder?: number;
  failOnThreshold?: boolean;
  inputFormat?: InputFormat;
  agentChannel: AgentChannel;
  inferStartTimes: boolean;
  acoustics?: boolean;
  progress?: boolean;
  printSummary?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  html?: string;
  embedAudio?: boolean;
  shard?: string;
  queue?: string;
  queueName: string;
  batchSize: number;
  maxAudioSeconds: number;
  maxChannels: number;
  allowOutsidePaths?: boolean;
  confinePaths?: string;
  callTimeout: number;
  workerHeapMb: number;
}

/** ffmpeg is stopped this long after --call-timeout, so that a worker blocked waiting for it is freed once the call has timed out. */
const DECODE_TIMEOUT_MARGIN_S = 1;

/** Exit code of an interrupted run (128 + SIGINT), as shells report it. */
const EXIT_INTERRUPTED = 130;
const EXIT_ERROR = 1;
const EXIT_GATE_FAILED = 2;
/** Progress redraw interval on a terminal, and line interval when forced into a pipe (ms). */
const TTY_REDRAW_MS = 200;
const PIPE_LINE_MS = 2000;

export function registerScoreCommand(program: Command): void {
  program
    .command("score")
    .description("score calls: deepeval test cases (JSON/JSONL), deepeval simulation folders, Voice Live datasets and outputs, dual-channel recordings, folders of them")
    .argument("<inputs...>", "files or folders (folders are recursed, each file dispatched by kind); - reads deepeval JSON or JSONL from stdin (relative audio urls resolve against the working directory)")
    .option("-o, --out <file.jsonl>", "results, one JSON line per call (default, or -: stdout)")
    .option("--metrics <list>", "comma list of metric ids, names or deepeval class names (default: all seven; docs/metrics.md)")
    .addOption(thresholdOption())
    .option("--strict", "strict mode for every metric")
    .addOption(compatOption("audio acceptance: 'deepeval' accepts exactly what deepeval accepts"))
    .addOption(profileOption())
    .addOption(workersOption())
    .option("--summary <file.json>", "aggregate per metric (mean, p50, p95, pass rate, skipped, errors), written atomically")
    .option("--csv <file.csv>", "one row per call and metric")
    .option("--resume", "skip calls whose id is already in --out; append the rest")
    .option("--fail-under <n>", "exit 2 if any metric's mean score is below n (0–1), or nothing was scored", parseScore)
    .option("--fail-on-threshold", "exit 2 if any scored metric of any call is below its threshold (deepeval's assert_test), listing the worst")
    .addOption(inputFormatOption("read every input as this format instead of detecting it"))
    .addOption(agentChannelOption("agent side of dual-channel recordings (the caller is on the other)"))
    .option("--no-infer-start-times", "do not recover deepeval simulation start times from deepeval-conversation.wav")
    .option("--acoustics", "add the standards-set acoustics block to every turn")
    .option("--progress", "show progress on stderr even when it is not a terminal")
    .option("--print-summary", "print the summary table when done (stdout, or stderr when results go to stdout)")
    .option("-q, --quiet", "no progress and no warnings on stderr (errors and gate results still)")
    .option("-v, --verbose", "also list each call as it finishes and every file passed over")
    .option("--html <file.html>", "also write the HTML report of the results (needs --out)")
    .addOption(embedAudioOption())
    .option("--queue <redis-url>", "score through a Redis queue (BullMQ) with `voxmetrics worker` processes on any machines, e.g. redis://host:6379/0; this process stays the only writer of the results")
    .option("--queue-name <name>", "BullMQ queue name (workers must use the same)", DEFAULT_QUEUE_OPTIONS.name)
    .option("--batch-size <n>", "calls per queue job", parseNumber(1, true), DEFAULT_QUEUE_OPTIONS.batchSize)
    .option("--shard <K/N>", "score only shard K of N (calls split by a hash of their id; combine the parts with `voxmetrics merge`)")
    .addOption(maxAudioSecondsOption())
    .addOption(maxChannelsOption())
    .option("--allow-outside-paths", "Voice Live datasets: accept audio paths that are absolute or leave the dataset folder through symlinks (refused by default)")
    .option("--confine-paths <dir>", "refuse deepeval audio urls that resolve (symlinks followed) outside <dir>")
    .addOption(callTimeoutOption())
    .addOption(workerHeapOption())
    .action(async (inputs: string[], flags: ScoreFlags) => {
      if (flags.out === STDOUT_PATH) flags.out = undefined;
      const stdin = inputs.includes(STDIN_INPUT) ? saveStdin() : null;
      try {
        process.exitCode = await runScore(inputs, flags, stdin?.path);
      } finally {
        stdin?.cleanup();
      }
    });
}

/**
 * V8's memory-saving heuristics for a scoring process, set before its worker threads start: V8's
 * flags belong to the process, so they reach every worker isolate made afterwards as well as the
 * main thread's collector. With them V8 grows a heap in smaller steps and collects before growing
 * (its heuristics for memory-constrained devices): peak RSS of `score --workers 1` on a 4-h
 * dual-channel recording 114 → 101 MB (medians of three runs), CPU time the same within noise
 * (docs/long-recordings.md). Worker threads cannot be given V8 flags of their own (Node refuses
 * them in a worker's execArgv).
 */
export const SCORE_V8_FLAGS = "--optimize-for-size";

async function runScore(inputs: string[], flags: ScoreFlags, stdinPath: string | undefined): Promise<number> {
  setFlagsFromString(SCORE_V8_FLAGS);
  if (flags.quiet && flags.verbose) throw new Error("--quiet and --verbose contradict each other; give one");
  if (flags.html && !flags.out) throw new Error("--html needs --out <file.jsonl>: the report is made from the results file");
  for (const [option, path] of [["--out", flags.out], ["--summary", flags.summary], ["--csv", flags.csv], ["--html", flags.html]] as const) if (path) checkOutputPath(option, path);
  const rich = stderrIsRichTerminal();
  const progress = new Progress(!flags.quiet && (Boolean(flags.progress) || Boolean(process.stderr.isTTY)), rich);
  const warn = (line: string) => {
    if (!flags.quiet) progress.note(`warning: ${line}`);
  };
  const abort = new AbortController();
  const onSigint = () => {
    if (abort.signal.aborted) process.exit(EXIT_INTERRUPTED);
    abort.abort();
    progress.note("interrupted: finishing the calls in flight (Ctrl-C again to stop at once); rerun with --resume to continue");
  };
  process.on("SIGINT", onSigint);
  let skipped = 0;
  // Inputs the run could not read, checked when they are read (discovery): in queue mode workers may read
  // them later at other paths (--path-map) and the coordinator's copy may move meanwhile.
  let missing: string[] = [];
  try {
    const result = await scoreArchive({
      inputs,
      out: flags.out ?? null,
      summary: flags.summary ?? null,
      csv: flags.csv ?? null,
      resume: flags.resume,
      ingest: {
        inputFormat: flags.inputFormat,
        agentChannel: flags.agentChannel,
        inferStartTimes: flags.inferStartTimes,
        stdinPath,
        allowOutsidePaths: flags.allowOutsidePaths ?? false,
        confinePaths: flags.confinePaths ? resolve(flags.confinePaths) : null,
      },
      score: {
        metrics: flags.metrics ? flags.metrics.split(",").map((m) => m.trim()).filter(Boolean) : undefined,
        threshold: flags.threshold,
        strict: flags.strict ?? false,
        compat: flags.compat,
        profile: flags.profile,
        acoustics: flags.acoustics ?? false,
        limits: { maxAudioSeconds: flags.maxAudioSeconds, maxChannels: flags.maxChannels, decodeTimeoutSeconds: flags.callTimeout + DECODE_TIMEOUT_MARGIN_S },
      },
      pool: { workers: flags.workers, signal: abort.signal, callTimeoutSeconds: flags.callTimeout, resourceLimits: { maxOldGenerationSizeMb: flags.workerHeapMb } },
      shard: flags.shard,
      queue: flags.queue ? { url: flags.queue, name: flags.queueName, batchSize: flags.batchSize, onStatus: (s) => progress.setQueue(s) } : undefined,
      onDiscovered: (d, resumed) => {
        for (const w of d.warnings) warn(w);
        if (flags.verbose) for (const s of d.skipped) progress.note(s);
        skipped = d.skipped.length;
        missing = unreadableInputs(inputs);
        progress.start(d.calls.length - resumed, resumed);
      },
      onRecord: (r) => {
        // Warnings of a call (e.g. the startTime alias) go to stderr as well as into its record.
        for (const w of r.warnings ?? []) warn(`${r.source.path} (${r.id}): ${w}`);
        if (flags.verbose) progress.note(r.status === "ok" ? `ok     ${r.id} (${Math.round(r.elapsed_ms)} ms)` : `error  ${r.id}: ${r.error?.message ?? ""}`);
        progress.tick(r.status === "error");
      },
    });
    progress.finish();
    if (flags.printSummary) (flags.out ? process.stdout : process.stderr).write(formatSummaryTable(result.summary));
    if (flags.html && flags.out) {
      const { threshold, strict, compat, profile, metrics, acoustics } = flags;
      await writeHtmlReportOfResults({
        results: flags.out,
        out: flags.html,
        embedAudio: flags.embedAudio ?? false,
        run: { inputs, options: { threshold, strict: strict ?? false, compat, profile, metrics: metrics ?? "all", acoustics: acoustics ?? false }, failUnder: flags.failUnder ?? null, elapsedS: result.summary.elapsed_s, time: new Date().toISOString() },
      });
    }
    if (result.interrupted) return EXIT_INTERRUPTED;
    return exitCode(inputs, flags, result, skipped, missing);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** The named inputs that do not exist or cannot be read. */
function unreadableInputs(inputs: string[]): string[] {
  return inputs.filter((p) => {
    if (p === STDIN_INPUT) return false;
    try {
      accessSync(p, constants.R_OK);
      return false;
    } catch {
      return true;
    }
  });
}

/** 1 when inputs were missing or every call errored, 2 when a gate failed, else 0; says why on stderr. */
function exitCode(inputs: string[], flags: ScoreFlags, result: ScoreArchiveResult, skipped: number, missing: string[]): number {
  const say = (line: string) => process.stderr.write(`voxmetrics: ${line}\n`);
  const where = flags.out ? ` (error records in ${flags.out})` : "";
  const { calls, ok, errors } = result.summary;
  let code = 0;
  if (missing.length > 0) {
    say(`${missing.length} input(s) missing or unreadable: ${missing.join(", ")}${where}`);
    code = EXIT_ERROR;
  } else if (calls === 0) {
    say(`no calls found in ${inputs.join(", ")}${skipped ? ` (${skipped} mono clip(s) passed over, listed by --verbose: score reads call recordings; \`voxmetrics analyze\` measures clips)` : ""}`);
    code = EXIT_ERROR;
  } else if (ok === 0) {
    say(`every call errored (${errors} of ${calls})${where}`);
    code = EXIT_ERROR;
  }
  const underFailed = flags.failUnder !== undefined ? failUnderGate(flags.failUnder, result, say) : 0;
  const gateFailed = underFailed + (flags.failOnThreshold ? thresholdGate(result, say) : 0);
  return code || (gateFailed ? EXIT_GATE_FAILED : 0);
}

/** `--fail-under`: says which metrics' means are under the floor; 1 when the gate fails. */
function failUnderGate(floor: number, result: ScoreArchiveResult, say: (line: string) => void): number {
  const { failures, scored } = failUnder(result.summary, floor);
  if (!scored) {
    say(`--fail-under ${floor}: failed, no metric was scored`);
    return 1;
  }
  for (const f of failures) say(`--fail-under ${floor}: ${f.metric} mean ${f.mean.toFixed(4)} < ${floor}`);
  return failures.length > 0 ? 1 : 0;
}

/** `--fail-on-threshold`: lists the worst metric results below their threshold; 1 when the gate fails. */
function thresholdGate(result: ScoreArchiveResult, say: (line: string) => void): number {
  const { judged, below, worst } = result.belowThreshold;
  if (judged === 0) {
    say("--fail-on-threshold: failed, no metric was scored against a threshold");
    return 1;
  }
  if (below === 0) return 0;
  say(`--fail-on-threshold: ${below} of ${judged} metric result(s) below their threshold; worst ${worst.length}:`);
  for (const w of worst) process.stderr.write(`  ${w.id}  ${w.metric}  ${w.score.toFixed(4)} < ${w.threshold}\n`);
  return 1;
}

/** Progress on stderr: a redrawn line on a terminal, an occasional plain line in a pipe (with --progress). */
class Progress {
  private total = 0;
  private done = 0;
  private errors = 0;
  private t0 = 0;
  private last = 0;
  private queue: QueueStatus | null = null;

  constructor(private readonly enabled: boolean, private readonly tty: boolean) {}

  start(total: number, resumed: number): void {
    this.total = total;
    this.t0 = performance.now();
    if (resumed > 0) this.note(`resuming: ${resumed} call(s) already in the output`);
    this.render(true);
  }

  tick(error: boolean): void {
    this.done++;
    if (error) this.errors++;
    this.render(false);
  }

  /** Queue mode: depth and workers, shown after the counts. */
  setQueue(status: QueueStatus): void {
    this.queue = status;
    this.render(false);
  }

  note(message: string): void {
    if (this.tty && this.enabled) process.stderr.write("\r\x1b[K");
    process.stderr.write(`${message}\n`);
    if (this.total > 0) this.render(true);
  }

  finish(): void {
    if (!this.enabled) return;
    this.render(true);
    if (this.tty) process.stderr.write("\n");
  }

  private render(force: boolean): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (!force && now - this.last < (this.tty ? TTY_REDRAW_MS : PIPE_LINE_MS) && this.done < this.total) return;
    this.last = now;
    const seconds = (now - this.t0) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const eta = rate > 0 ? Math.ceil((this.total - this.done) / rate) : null;
    const queue = this.queue ? ` · queue ${this.queue.waiting} waiting, ${this.queue.active} active · ${this.queue.workers} worker(s)` : "";
    const text = `${this.done}/${this.total} calls · ${rate.toFixed(1)} calls/s · ETA ${eta === null ? "-" : `${eta}s`} · ${this.errors} error(s)${queue}`;
    process.stderr.write(this.tty ? `\r\x1b[K${text}` : `${text}\n`);
  }
}
