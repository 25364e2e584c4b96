// `voxmetrics score <inputs...>`: scores archives through the worker pool into JSONL, summary and CSV, with progress and resume.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Command } from "commander";
import { DEFAULT_QUEUE_OPTIONS, formatSummaryTable, scoreArchive, writeHtmlReportOfResults, type AgentChannel, type CompatMode, type InputFormat, type MetricProfile, type QueueStatus, type RunSummary } from "../index.js";
import { agentChannelOption, callTimeoutOption, compatOption, embedAudioOption, inputFormatOption, maxAudioSecondsOption, maxChannelsOption, parseNumber, profileOption, thresholdOption, workerHeapOption, workersOption } from "./options.js";

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
  inputFormat?: InputFormat;
  agentChannel: AgentChannel;
  inferStartTimes: boolean;
  acoustics?: boolean;
  progress?: boolean;
  printSummary?: boolean;
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
const EXIT_GATE_FAILED = 2;
/** Progress redraw interval on a terminal, and line interval when forced into a pipe (ms). */
const TTY_REDRAW_MS = 200;
const PIPE_LINE_MS = 2000;

export function registerScoreCommand(program: Command): void {
  program
    .command("score")
    .description("score calls: deepeval test cases (JSON/JSONL), deepeval simulation folders, Voice Live datasets and outputs, dual-channel recordings, folders of them")
    .argument("<inputs...>", "files or folders (folders are recursed, each file dispatched by kind)")
    .option("-o, --out <file.jsonl>", "results, one JSON line per call (default: stdout)")
    .option("--metrics <list>", "comma list of metric names or ids (default: all seven)")
    .addOption(thresholdOption())
    .option("--strict", "strict mode for every metric")
    .addOption(compatOption("audio acceptance: 'deepeval' accepts exactly what deepeval accepts"))
    .addOption(profileOption())
    .addOption(workersOption())
    .option("--summary <file.json>", "aggregate per metric (mean, p50, p95, pass rate, skipped, errors), written atomically")
    .option("--csv <file.csv>", "one row per call and metric")
    .option("--resume", "skip calls whose id is already in --out; append the rest")
    .option("--fail-under <n>", "exit 2 if any metric's mean score is below n", parseNumber(0, false))
    .addOption(inputFormatOption("read every input as this format instead of detecting it"))
    .addOption(agentChannelOption("agent side of dual-channel recordings (the caller is on the other)"))
    .option("--no-infer-start-times", "do not recover deepeval simulation start times from deepeval-conversation.wav")
    .option("--acoustics", "add the standards-set acoustics block to every turn")
    .option("--progress", "show progress on stderr even when it is not a terminal")
    .option("--print-summary", "print the summary table when done (stdout, or stderr when results go to stdout)")
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
      process.exitCode = await runScore(inputs, flags);
    });
}

async function runScore(inputs: string[], flags: ScoreFlags): Promise<number> {
  if (flags.html && !flags.out) throw new Error("--html needs --out <file.jsonl>: the report is made from the results file");
  for (const p of [flags.out, flags.summary, flags.csv, flags.html]) if (p) mkdirSync(dirname(p), { recursive: true });
  const progress = new Progress(Boolean(flags.progress) || Boolean(process.stderr.isTTY), Boolean(process.stderr.isTTY));
  const abort = new AbortController();
  const onSigint = () => {
    if (abort.signal.aborted) process.exit(EXIT_INTERRUPTED);
    abort.abort();
    progress.note("interrupted: finishing the calls in flight (Ctrl-C again to stop at once); rerun with --resume to continue");
  };
  process.on("SIGINT", onSigint);
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
        for (const w of d.warnings) progress.note(`warning: ${w}`);
        progress.start(d.calls.length - resumed, resumed);
      },
      onRecord: (r) => progress.tick(r.status === "error"),
    });
    progress.finish();
    if (flags.printSummary) (flags.out ? process.stdout : process.stderr).write(formatSummaryTable(result.summary));
    if (flags.html && flags.out) {
      const { threshold, strict, compat, metrics, acoustics, failUnder } = flags;
      await writeHtmlReportOfResults({
        results: flags.out,
        out: flags.html,
        embedAudio: flags.embedAudio ?? false,
        run: { inputs, options: { threshold, strict: strict ?? false, compat, metrics: metrics ?? "all", acoustics: acoustics ?? false }, failUnder: failUnder ?? null, elapsedS: result.summary.elapsed_s, time: new Date().toISOString() },
      });
    }
    if (result.interrupted) return EXIT_INTERRUPTED;
    return flags.failUnder !== undefined && gateFails(result.summary, flags.failUnder) ? EXIT_GATE_FAILED : 0;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function gateFails(summary: RunSummary, floor: number): boolean {
  return Object.values(summary.metrics).some((m) => m.mean !== null && m.mean < floor);
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
