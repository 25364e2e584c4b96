// A replay run: datasets (a file or a folder) replayed conversation by conversation with N sessions in flight, outputs written as each conversation completes, resumable without double counting.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, renameSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { writeWavPcm16 } from "../audio/wav-writer.js";
import { REPLAY_MANIFEST_FILE, REPLAY_MANIFEST_FORMAT } from "../ingest/replay-manifest.js";
import type { EditCounts } from "../text/align.js";
import { sumErrorCounts } from "../text/error-rate.js";
import { callerPcm, type ReplayResampler } from "./audio.js";
import type { ConfigSource, ReplaySessionConfig } from "./config.js";
import { conversationKeyOf, datasetStem, entryAudioBytes, readReplayDataset, type GroupingMode, type ReplayConversation, type ReplayDataset } from "./dataset.js";
import { ConversationRecordBuilder, localStamp, operationalSummary, timingRecord } from "./records.js";
import { failedTurn, replayConversation, type PostClipSilence, type ReplaySessionOptions, type TurnInput, type VadSplitMode } from "./session.js";
import type { StubTools } from "./tools.js";

export { REPLAY_MANIFEST_FILE, REPLAY_MANIFEST_FORMAT };

/** Options of one replay run: datasets, agent URL, session config, tools, output folder, concurrency, resume. */
export interface ReplayRunOptions {
  /** A dataset JSONL or a folder of them (searched recursively). */
  input: string;
  out: string;
  url: string;
  /** Handshake headers (API keys): used, never written. */
  headers?: Record<string, string>;
  /** Name of the environment variable the API key came from (recorded; the value never is). */
  apiKeyEnv?: string | null;
  config: ReplaySessionConfig;
  configSources?: Record<keyof ReplaySessionConfig, ConfigSource>;
  tools: StubTools;
  /**
   * Resampler from the clips' rate to the session's.
   * @defaultValue "band-limited"
   */
  resampler: ReplayResampler;
  /** @defaultValue "per-conversation" */
  grouping: GroupingMode;
  /** Conversations in flight at once (one session each). @defaultValue 1 */
  concurrency: number;
  /** Skip conversations already complete in the output. @defaultValue false */
  resume: boolean;
  /** Older metric names (F4.5). @defaultValue false */
  legacyNames: boolean;
  vadSplit: VadSplitMode;
  postClipSilence: PostClipSilence;
  drainMs: number;
  drainIdleMs: number;
  turnTimeoutMs: number;
  turnGapMs: number;
  connectTimeoutS: number;
  apiVersion: "beta" | "ga";
  /** Session suffix (F4.6 `session_suffix`). */
  suffix: string;
  /** Progress lines (stderr in the CLI). */
  onProgress?: (line: string) => void;
}

/** Defaults of `voxmetrics replay`: resampler, session grouping, concurrency, resume, legacy names, VAD split handling, post-clip silence, drain and turn timeouts. */
export const DEFAULT_REPLAY_RUN_OPTIONS = Object.freeze({
  resampler: "band-limited" as ReplayResampler,
  grouping: "per-conversation" as GroupingMode,
  concurrency: 1,
  resume: false,
  legacyNames: false,
  vadSplit: "send-whole" as VadSplitMode,
  postClipSilence: "paced" as PostClipSilence,
  drainMs: 5000,
  drainIdleMs: 500,
  turnTimeoutMs: 30000,
  turnGapMs: 500,
  connectTimeoutS: 15,
  apiVersion: "beta" as const,
  suffix: "",
});

/** What a replay run produced: the output folder and manifest, datasets, conversations replayed and skipped, records and error records, warnings, and the user-side WER. */
export interface ReplayRunResult {
  out: string;
  manifest: string;
  datasets: number;
  conversations: number;
  skippedConversations: number;
  records: number;
  errorRecords: number;
  warnings: string[];
  userWer: ReturnType<typeof sumErrorCounts>;
}

/** One dataset's outputs. */
interface DatasetOutput {
  dataset: ReplayDataset;
  dir: string;
  stem: string;
  records: string;
  timing: string;
}

function listDatasets(input: string, out: string): { files: string[]; folder: string | null } {
  const abs = resolve(input);
  if (!statSync(abs).isDirectory()) return { files: [abs], folder: null };
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith(".")) continue;
      const p = join(d, e.name);
      // The output folder may sit inside the input folder: its files are not datasets.
      if (e.isDirectory() && p !== out) walk(p);
      else if (e.isFile() && e.name.endsWith(".jsonl")) files.push(p);
    }
  };
  walk(abs);
  return { files, folder: abs };
}

function readJsonLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === "object" && !Array.isArray(v)) out.push(v);
    } catch {
      // a line cut by a kill: dropped, its conversation is replayed
    }
  }
  return out;
}

/** A conversation id as one folder name: separators replaced, `.` and `..` never used as such. */
function safeFolderName(id: string): string {
  const name = id.replace(/[\\/\u0000]/g, "_");
  return name === "" || name === "." || name === ".." ? `_${name}` : name;
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

const jsonl = (rows: readonly unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join("");

/**
 * The records and timings of the conversations complete on disk, in dataset order. A conversation
 * is complete when the timing file (written after its records) has every one of its dataset lines.
 */
function completeOnDisk(o: DatasetOutput): { done: Set<string>; records: Map<string, Record<string, unknown>[]>; timings: Map<string, Record<string, unknown>[]> } {
  const timing = readJsonLines(o.timing);
  const lines = new Set(timing.map((t) => t.dataset_line));
  const done = new Set<string>();
  for (const c of o.dataset.conversations) if (c.entries.every((e) => lines.has(e.line))) done.add(c.key);
  // Records consumed in file order per (conversation id, turn): a key used by several groups (per-file) is shared fairly.
  const pool = new Map<string, Record<string, unknown>[]>();
  for (const r of readJsonLines(o.records)) {
    const k = `${conversationKeyOf(r.conversation_id)}#${String(r.turn_number)}`;
    let list = pool.get(k);
    if (!list) pool.set(k, (list = []));
    list.push(r);
  }
  const byLine = new Map(timing.map((t) => [t.dataset_line, t]));
  const records = new Map<string, Record<string, unknown>[]>();
  const timings = new Map<string, Record<string, unknown>[]>();
  for (const c of o.dataset.conversations) {
    const rs: Record<string, unknown>[] = [];
    c.entries.forEach((e, i) => {
      const r = pool.get(`${conversationKeyOf(e.conversationId)}#${c.turnNumbers[i]}`)?.shift();
      if (r) rs.push(r);
    });
    if (!done.has(c.key) || rs.length !== c.entries.length) {
      done.delete(c.key);
      continue;
    }
    records.set(c.key, rs);
    timings.set(c.key, c.entries.map((e) => byLine.get(e.line)!));
  }
  return { done, records, timings };
}

/** Rewrite a dataset's records and timings with only complete conversations, in dataset order. */
function compact(o: DatasetOutput): { done: Set<string>; records: Record<string, unknown>[] } {
  const { done, records, timings } = completeOnDisk(o);
  const rs: Record<string, unknown>[] = [];
  const ts: Record<string, unknown>[] = [];
  for (const c of o.dataset.conversations) {
    if (!done.has(c.key)) continue;
    rs.push(...records.get(c.key)!);
    ts.push(...timings.get(c.key)!);
  }
  writeAtomic(o.records, jsonl(rs));
  writeAtomic(o.timing, jsonl(ts));
  return { done, records: rs };
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}

/** Turn inputs of a conversation: each clip decoded and resampled, or the error that makes it an error record. */
function turnInputs(c: ReplayConversation, o: ReplayRunOptions): TurnInput[] {
  return c.entries.map((e, i) => {
    const turnNumber = c.turnNumbers[i];
    try {
      const { bytes, name } = entryAudioBytes(e, turnNumber);
      return { turnNumber, pcm: callerPcm(bytes, name, o.config.sample_rate, o.resampler).pcm, error: null };
    } catch (err) {
      return { turnNumber, pcm: null, error: (err as Error).message };
    }
  });
}

/** Replay every conversation of the input into `out` (see ReplayRunOptions). */
export async function runReplay(o: ReplayRunOptions): Promise<ReplayRunResult> {
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const startedAt = new Date();
  const sessionId = localStamp(startedAt, "_", "-");
  const { files, folder } = listDatasets(o.input, out);
  const warnings: string[] = [];
  const outputs: DatasetOutput[] = files.flatMap((file) => {
    let dataset: ReplayDataset;
    try {
      dataset = readReplayDataset(file, o.grouping);
    } catch (e) {
      // An unreadable dataset in a folder is reported and skipped; the others run.
      if (!folder) throw e;
      warnings.push(`${(e as Error).message}; dataset skipped`);
      return [];
    }
    warnings.push(...dataset.warnings);
    const stem = datasetStem(file);
    const dir = folder ? join(out, relative(folder, dirname(file)), stem) : out;
    mkdirSync(dir, { recursive: true });
    return [{ dataset, dir, stem, records: join(dir, `${stem}.jsonl`), timing: join(dir, `${stem}.timing.jsonl`) }];
  });
  for (const w of warnings) o.onProgress?.(`warning: ${w}`);

  const manifestPath = join(out, REPLAY_MANIFEST_FILE);
  const manifest = (status: string, finishedAt: Date | null, totals: Record<string, unknown> | null) => ({
    format: REPLAY_MANIFEST_FORMAT,
    version: 1,
    status,
    tool: { name: "voxmetrics", version: packageVersion(), node: process.version },
    started_at: startedAt.toISOString(),
    finished_at: finishedAt?.toISOString() ?? null,
    session_id: sessionId,
    session_suffix: o.suffix,
    agent: { url: displayUrl(o.url), header_names: Object.keys(o.headers ?? {}), api_key_env: o.apiKeyEnv ?? null },
    session_config: o.config,
    session_config_sources: o.configSources ?? null,
    options: {
      resampler: o.resampler,
      grouping: o.grouping,
      concurrency: o.concurrency,
      resume: o.resume,
      legacy_names: o.legacyNames,
      vad_split: o.vadSplit,
      post_clip_silence: o.postClipSilence,
      drain_ms: o.drainMs,
      drain_idle_ms: o.drainIdleMs,
      turn_timeout_ms: o.turnTimeoutMs,
      turn_gap_ms: o.turnGapMs,
      connect_timeout_s: o.connectTimeoutS,
      api_version: o.apiVersion,
      tools: o.tools.source,
    },
    clock: "monotonic (timing files: seconds from each conversation's connection)",
    datasets: outputs.map((d) => ({
      dataset: d.dataset.path,
      output: relative(out, d.records),
      timing: relative(out, d.timing),
      expected_turns: d.dataset.expectedTurns,
      conversations: d.dataset.conversations.length,
      warnings: d.dataset.warnings,
    })),
    totals,
  });

  // Resume: keep complete conversations, drop partial ones; without --resume start afresh.
  const pending: { d: DatasetOutput; c: ReplayConversation }[] = [];
  let skipped = 0;
  for (const d of outputs) {
    if (!o.resume) {
      writeAtomic(d.records, "");
      writeAtomic(d.timing, "");
    }
    const { done } = compact(d);
    for (const c of d.dataset.conversations) {
      if (done.has(c.key)) skipped++;
      else pending.push({ d, c });
    }
  }
  writeAtomic(manifestPath, `${JSON.stringify(manifest("running", null, null), null, 2)}\n`);
  if (skipped) o.onProgress?.(`resume: ${skipped} conversation(s) already complete, ${pending.length} to replay`);

  const sessionOptions: ReplaySessionOptions = {
    url: o.url,
    headers: o.headers,
    config: o.config,
    tools: o.tools,
    apiVersion: o.apiVersion,
    vadSplit: o.vadSplit,
    postClipSilence: o.postClipSilence,
    drainMs: o.drainMs,
    drainIdleMs: o.drainIdleMs,
    turnTimeoutMs: o.turnTimeoutMs,
    turnGapMs: o.turnGapMs,
    connectTimeoutS: o.connectTimeoutS,
  };

  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < pending.length) {
      const { d, c } = pending[next++];
      const inputs = turnInputs(c, o);
      let result: Awaited<ReturnType<typeof replayConversation>>;
      try {
        result = await replayConversation(inputs, c.instructions, c.tools, sessionOptions);
      } catch (e) {
        // Never lose a conversation: an unexpected failure becomes error records for its turns.
        result = { originAt: null, connectError: (e as Error).message, sessionId: null, turns: inputs.map((t) => failedTurn(t.turnNumber, o.config.sample_rate, `replay failed: ${(e as Error).message}`)) };
      }
      const builder = new ConversationRecordBuilder(c, { legacyNames: o.legacyNames });
      const records: Record<string, unknown>[] = [];
      const timings: Record<string, unknown>[] = [];
      result.turns.forEach((obs, i) => {
        const nn = String(c.turnNumbers[i]).padStart(2, "0");
        const convDir = join(d.dir, safeFolderName(conversationKeyOf(c.entries[i].conversationId)));
        let responseFile: string | null = null;
        let inputFile: string | null = null;
        if (obs.error === null) {
          mkdirSync(convDir, { recursive: true });
          responseFile = join(convDir, `turn_${nn}_response.wav`);
          writeFileSync(responseFile, writeWavPcm16(obs.responseAudio, obs.sampleRate));
          const sent = inputs[i].pcm;
          if (sent) {
            inputFile = join(convDir, `turn_${nn}_input.wav`);
            writeFileSync(inputFile, writeWavPcm16(sent.subarray(0, Math.round(obs.clipSentS * obs.sampleRate)), obs.sampleRate));
          }
        }
        records.push(builder.record(i, obs));
        timings.push({
          group: c.key,
          session_id: result.sessionId,
          ...timingRecord(c, i, obs, result.originAt, {
            input: inputFile && relative(d.dir, inputFile),
            response: responseFile && relative(d.dir, responseFile),
          }),
        });
      });
      // Records first, timings after: the timing lines mark the conversation complete (resume).
      appendFileSync(d.records, jsonl(records));
      appendFileSync(d.timing, jsonl(timings));
      finished++;
      const errors = records.filter((r) => "error" in r).length;
      o.onProgress?.(`[${finished}/${pending.length}] ${relative(out, d.records)} ${c.key}: ${records.length} turn(s)${errors ? `, ${errors} error record(s)` : ""}${result.connectError ? ` (${result.connectError})` : ""}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, pending.length)) }, worker));

  // Final: each dataset's files in dataset order, its summary, and the run's aggregate counted once from disk.
  const all: Record<string, unknown>[] = [];
  const werParts: EditCounts[] = [];
  let expected = 0;
  let conversations = 0;
  for (const d of outputs) {
    const { records } = compact(d);
    all.push(...records);
    expected += d.dataset.expectedTurns;
    conversations += d.dataset.conversations.length;
    for (const t of readJsonLines(d.timing)) {
      const w = t.user_wer as { correct: number; substitutions: number; deletions: number; insertions: number } | null;
      if (w) werParts.push({ correct: w.correct, substitutions: w.substitutions, deletions: w.deletions, insertions: w.insertions });
    }
    if (folder) writeAtomic(join(d.dir, "operational_summary.json"), `${JSON.stringify(operationalSummary(records, d.dataset.expectedTurns, sessionId, o.suffix, new Date()), null, 2)}\n`);
  }
  writeAtomic(join(out, "operational_summary.json"), `${JSON.stringify(operationalSummary(all, expected, sessionId, o.suffix, new Date()), null, 2)}\n`);
  const wer = sumErrorCounts(werParts);
  const errorRecords = all.filter((r) => "error" in r).length;
  writeAtomic(
    manifestPath,
    `${JSON.stringify(manifest("complete", new Date(), { conversations, expected_turns: expected, records: all.length, error_records: errorRecords, user_wer: { ...wer } }), null, 2)}\n`,
  );
  return { out, manifest: manifestPath, datasets: outputs.length, conversations, skippedConversations: skipped, records: all.length, errorRecords, warnings, userWer: wer };
}
