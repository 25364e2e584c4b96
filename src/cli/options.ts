// The flags every command shares, built from the library's DEFAULT_* option objects, so that `--help` shows the defaults the code uses.
import { mkdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InvalidArgumentError, Option } from "commander";
import {
  DEFAULT_ANALYZE_FILE_OPTIONS,
  DEFAULT_HTML_REPORT_OPTIONS,
  DEFAULT_AUDIO_LIMITS,
  DEFAULT_INGEST_OPTIONS,
  DEFAULT_SCORE_OPTIONS,
  FORCIBLE_INPUT_FORMATS,
  WAV_NOT_FORCIBLE,
  MEASUREMENT_SETS,
  METRIC_PROFILES,
  tempDir,
  type AgentChannel,
  type CompatMode,
  type InputFormat,
} from "../index.js";
import { DEFAULT_POOL_OPTIONS, DEFAULT_WORKER_HEAP_MB } from "../pool/index.js";

/** A commander parser for a number in [`min`, `max`] (an integer when `integer`), with the reason on a bad value. */
export function parseNumber(min: number, integer: boolean, max = Infinity) {
  return (value: string): number => {
    const n = value.trim() === "" ? NaN : Number(value);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      const range = max === Infinity ? `≥ ${min}` : `between ${min} and ${max}`;
      throw new InvalidArgumentError(`expected ${integer ? "an integer" : "a number"} ${range}, got "${value}"`);
    }
    return n;
  };
}

/** A commander parser for a score in [0, 1] (thresholds and gates). */
export const parseScore = parseNumber(0, false, 1);

const COMPAT_MODES: readonly CompatMode[] = ["voxmetrics", "deepeval"];
const AGENT_CHANNELS: readonly AgentChannel[] = ["left", "right"];

/** `--compat <mode>`: audio acceptance (the score options decide it for reading and analysis alike). */
export function compatOption(description: string): Option {
  return new Option("--compat <mode>", description).choices(COMPAT_MODES).default(DEFAULT_SCORE_OPTIONS.compat);
}

/** `--profile <name>`: which scoring profile of the seven metrics. */
export function profileOption(): Option {
  return new Option("--profile <name>", "scoring profile: 'deepeval' (deepeval's metrics, exactly) or 'voxmetrics' (calibrated on degradation ladders)")
    .choices(METRIC_PROFILES)
    .default(DEFAULT_SCORE_OPTIONS.profile);
}

/** `--input-format <format>`: skip detection. */
export function inputFormatOption(description: string): Option {
  return new Option("--input-format <format>", `${description} (${FORCIBLE_INPUT_FORMATS.join(", ")})`).argParser((value: string): InputFormat => {
    if (value === "wav") throw new InvalidArgumentError(WAV_NOT_FORCIBLE);
    if (!(FORCIBLE_INPUT_FORMATS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${FORCIBLE_INPUT_FORMATS.join(", ")}`);
    return value as InputFormat;
  });
}

/** `--agent-channel <side>`: the agent's side of dual-channel recordings. */
export function agentChannelOption(description: string): Option {
  return new Option("--agent-channel <side>", description).choices(AGENT_CHANNELS).default(DEFAULT_INGEST_OPTIONS.agentChannel);
}

/** `--threshold <n>`: the pass mark of every metric. */
export function thresholdOption(): Option {
  return new Option("--threshold <n>", "threshold for every metric (0–1)").argParser(parseScore).default(DEFAULT_SCORE_OPTIONS.threshold);
}

/** `--workers <n>`: worker threads (0 scores in the main thread). */
export function workersOption(): Option {
  return new Option("--workers <n>", "worker threads (0 = score in the main thread)").argParser(parseNumber(0, true)).default(DEFAULT_POOL_OPTIONS.workers);
}

/** `--set <set>`: which measurements `analyze` computes. */
export function measurementSetOption(): Option {
  return new Option("--set <set>", "which measurements to compute").choices(MEASUREMENT_SETS).default(DEFAULT_ANALYZE_FILE_OPTIONS.set);
}


/** `--embed-audio`: the HTML report carries each turn's audio instead of linking it. */
export function embedAudioOption(): Option {
  return new Option("--embed-audio", "embed each turn's audio in the HTML report instead of linking the files by relative path").default(DEFAULT_HTML_REPORT_OPTIONS.embedAudio);
}

/** `--fail-under <n>`: the gate floor on each metric's mean score. */
export function failUnderOption(description: string): Option {
  return new Option("--fail-under <n>", description).argParser(parseNumber(0, false));
}

/** `--max-audio-seconds <s>`: the longest audio decoded from one file or clip. */
export function maxAudioSecondsOption(): Option {
  return new Option("--max-audio-seconds <s>", "longest audio decoded from one file or clip; longer inputs become error records")
    .argParser(parsePositive(false))
    .default(DEFAULT_AUDIO_LIMITS.maxAudioSeconds);
}

/** `--max-channels <n>`: the most channels one file or clip may declare. */
export function maxChannelsOption(): Option {
  return new Option("--max-channels <n>", "most channels in one file or clip; more is an error record, refused before decoding")
    .argParser(parsePositive(true))
    .default(DEFAULT_AUDIO_LIMITS.maxChannels);
}

/** A commander parser for a number > 0 (an integer when `integer`). */
export function parsePositive(integer: boolean) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`expected ${integer ? "an integer" : "a number"} > 0, got "${value}"`);
    }
    return n;
  };
}

/** `--call-timeout <s>`: the longest one call may take in a worker. */
export function callTimeoutOption(): Option {
  return new Option("--call-timeout <s>", "longest one call may take (seconds); its worker is then stopped and the call is an error record")
    .argParser(parsePositive(false))
    .default(DEFAULT_POOL_OPTIONS.callTimeoutSeconds);
}

/** `--worker-heap-mb <n>`: each worker's JavaScript heap limit. */
export function workerHeapOption(): Option {
  return new Option("--worker-heap-mb <n>", "JavaScript heap limit of each worker (MB); an input that needs more is one error record")
    .argParser(parsePositive(true))
    .default(DEFAULT_WORKER_HEAP_MB);
}

/**
 * Make sure an output file can be written before any work starts: its folder is created, and a
 * probe file written and removed there. Throws an Error naming the option and the path.
 */
export function checkOutputPath(option: string, path: string): void {
  const fail = (why: string): never => {
    throw new Error(`${option} ${path}: ${why}`);
  };
  const reason = (e: unknown) => {
    const err = e as NodeJS.ErrnoException;
    return err.code ? `${err.code}${err.syscall ? ` (${err.syscall})` : ""}` : String(err.message);
  };
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // absent: fine
  }
  if (isDir) fail("is a folder; name a file");
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    fail(code === "EEXIST" || code === "ENOTDIR" ? `cannot create its folder ${dir}: a file is in the way` : `cannot create its folder ${dir}: ${reason(e)}`);
  }
  const probe = join(dir, `.${basename(path)}.${process.pid}.probe`);
  try {
    writeFileSync(probe, "");
    unlinkSync(probe);
  } catch (e) {
    fail(`cannot write in ${dir}: ${reason(e)}`);
  }
}

/** True when stderr may carry terminal escape sequences: a terminal, NO_COLOR unset (https://no-color.org), TERM not dumb. */
export function stderrIsRichTerminal(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.NO_COLOR && process.env.TERM !== "dumb";
}

/** `-` as an output path: standard output. */
export const STDOUT_PATH = "-";

/**
 * Save standard input to a temporary file (the pool's workers read calls by path) and return it with
 * its cleanup. Refuses a terminal: the data must be piped or redirected in.
 */
export function saveStdin(): { path: string; cleanup: () => void } {
  if (process.stdin.isTTY) throw new Error('the input "-" reads standard input, which is a terminal: pipe or redirect the JSON or JSONL in');
  const dir = tempDir("stdin");
  const path = join(dir, "stdin.json");
  writeFileSync(path, readFileSync(0));
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
