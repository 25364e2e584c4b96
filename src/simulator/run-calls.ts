// Runs many scripted calls at once (each its own connection), writes each capture as it finishes, and never lets one call stop the others.
import { join } from "node:path";
import { toVoxError, VoxError } from "../model/errors.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { buildCapture } from "../connectors/capture.js";
import type { CallRecord } from "../connectors/capture.js";
import { startCaptureRun, writeCallCapture, type CaptureRun } from "../connectors/capture-output.js";
import type { VoiceConnector } from "../connectors/types.js";
import { runScriptedCall, type ScriptedCallOptions } from "./scripted-call.js";
import { uniqueScriptNames, type CallScript } from "./script.js";

/** Options of runScriptedCalls: per-call options plus concurrency. */
export interface RunScriptedCallsOptions extends ScriptedCallOptions {
  /** Output folder (created). */
  outDir: string;
  /**
   * Calls in flight at once.
   * @defaultValue 1
   */
  concurrency?: number;
  /** Rate of the stored clips, in Hz (default: the higher of the connector's send and receive rates). */
  captureSampleRate?: number;
  /** Called as each call finishes. */
  onCallDone?: (result: CallRunResult) => void;
}

/** Defaults of runScriptedCalls. */
export const DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS = Object.freeze({ concurrency: 1 });

/** The outcome of one scripted call: the capture written, or the error. */
export interface CallRunResult {
  name: string;
  /** What happened (null when the call never started: bad clip, missing TTS, connector error). */
  record: CallRecord | null;
  testCase: ConversationalTestCase | null;
  /** The `<name>.json` written (null when the call produced no turn). */
  testCasePath: string | null;
  /** Why the call failed or ended abnormally (also in the test case's metadata when one was written). */
  error: VoxError | null;
}

/** Run every script; results come back in script order. */
export async function runScriptedCalls(
  scripts: CallScript[],
  makeConnector: (script: CallScript) => VoiceConnector | Promise<VoiceConnector>,
  options: RunScriptedCallsOptions,
): Promise<{ results: CallRunResult[]; run: CaptureRun }> {
  const concurrency = options.concurrency ?? DEFAULT_RUN_SCRIPTED_CALLS_OPTIONS.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new VoxError("INVALID_OPTION", `must be an integer ≥ 1, got ${concurrency}`, { field: "concurrency" });
  const named = uniqueScriptNames(scripts);
  const run = startCaptureRun(options.outDir, named.length);
  const results: CallRunResult[] = new Array(named.length);
  let next = 0;
  const one = async (script: CallScript): Promise<CallRunResult> => {
    let record: CallRecord | null = null;
    try {
      const connector = await makeConnector(script);
      record = await runScriptedCall(script, connector, options);
    } catch (e) {
      return { name: script.name, record, testCase: null, testCasePath: null, error: toVoxError(e, { file: script.origin }) };
    }
    const error = record.error ? new VoxError(record.error.code as VoxError["code"], record.error.message) : null;
    if (record.turns.length === 0) {
      return { name: script.name, record, testCase: null, testCasePath: null, error: error ?? new VoxError("PROTOCOL_ERROR", `call ${script.name}: no turn was recorded`) };
    }
    const built = buildCapture(record, { sampleRate: options.captureSampleRate });
    const entry = writeCallCapture(run, script.name, built);
    return { name: script.name, record, testCase: built.testCase, testCasePath: join(run.outDir, entry.test_case), error };
  };
  const worker = async () => {
    while (next < named.length) {
      const i = next++;
      results[i] = await one(named[i]);
      options.onCallDone?.(results[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, named.length) }, worker));
  return { results, run };
}
