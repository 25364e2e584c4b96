// Runs many simulated calls (one per golden, each on its own connection), writes each capture as it finishes, and never lets one call stop the others.
import { join } from "node:path";
import { toVoxError, VoxError } from "../model/errors.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { buildCapture, type CallRecord } from "../connectors/capture.js";
import { startCaptureRun, writeCallCapture, type CaptureRun } from "../connectors/capture-output.js";
import type { VoiceConnector } from "../connectors/types.js";
import type { CallerPolicy } from "./caller-policy.js";
import type { InterruptionJudge } from "./floor-control.js";
import { goldenCallNames, type ConversationalGolden } from "./golden.js";
import { simulateCall, type SimulateCallOptions } from "./simulated-call.js";

/** Options of a batch of simulated calls: those of one call, plus the connector factory, output folder and concurrency. */
export interface RunSimulationsOptions extends Omit<SimulateCallOptions, "name" | "policy" | "judge"> {
  /** Output folder (created). */
  outDir: string;
  /** A fresh caller policy per golden. */
  makePolicy: (golden: ConversationalGolden) => CallerPolicy;
  /** A fresh judge per golden (duplex); default: the rule judge seeded with `seed`. */
  makeJudge?: ((golden: ConversationalGolden) => InterruptionJudge) | null;
  /**
   * Calls in flight at once.
   * @defaultValue 1
   */
  concurrency?: number;
  /** Rate of the stored clips, in Hz (default: the higher of the connector's send and receive rates). */
  captureSampleRate?: number;
  onCallDone?: (result: SimulationResult, done: number, total: number) => void;
}

/** Defaults of `runSimulations` / `voxmetrics simulate`: one call at a time. */
export const DEFAULT_RUN_SIMULATIONS_OPTIONS = Object.freeze({ concurrency: 1 });

/** One simulated call's outcome: its golden, the call record, the captured test case and where it was written, or the error that ended it. */
export interface SimulationResult {
  name: string;
  golden: ConversationalGolden;
  record: CallRecord | null;
  testCase: ConversationalTestCase | null;
  /** The `<name>.json` written (null when the call produced no turn). */
  testCasePath: string | null;
  error: VoxError | null;
}

/** Simulate every golden; results come back in golden order. */
export async function runSimulations(
  goldens: ConversationalGolden[],
  makeConnector: (golden: ConversationalGolden) => VoiceConnector | Promise<VoiceConnector>,
  options: RunSimulationsOptions,
): Promise<{ results: SimulationResult[]; run: CaptureRun }> {
  const concurrency = options.concurrency ?? DEFAULT_RUN_SIMULATIONS_OPTIONS.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new VoxError("INVALID_OPTION", `must be an integer ≥ 1, got ${concurrency}`, { field: "concurrency" });
  const names = goldenCallNames(goldens);
  const run = startCaptureRun(options.outDir, goldens.length);
  const results: SimulationResult[] = new Array(goldens.length);
  let next = 0;
  let finished = 0;
  const { outDir: _o, makePolicy, makeJudge, concurrency: _c, captureSampleRate, onCallDone, ...callOptions } = options;
  const one = async (i: number): Promise<SimulationResult> => {
    const golden = goldens[i];
    const name = names[i];
    let record: CallRecord | null = null;
    try {
      const connector = await makeConnector(golden);
      record = await simulateCall(golden, connector, { ...callOptions, name, policy: makePolicy(golden), judge: makeJudge ? makeJudge(golden) : null });
    } catch (e) {
      return { name, golden, record, testCase: null, testCasePath: null, error: toVoxError(e, { file: golden.origin }) };
    }
    const error = record.error ? new VoxError(record.error.code as VoxError["code"], record.error.message) : null;
    if (record.turns.length === 0) return { name, golden, record, testCase: null, testCasePath: null, error: error ?? new VoxError("PROTOCOL_ERROR", `call ${name}: no turn was recorded`) };
    const built = buildCapture(record, { sampleRate: captureSampleRate });
    const entry = writeCallCapture(run, name, built);
    return { name, golden, record, testCase: built.testCase, testCasePath: join(run.outDir, entry.test_case), error };
  };
  const worker = async () => {
    while (next < goldens.length) {
      const i = next++;
      results[i] = await one(i);
      onCallDone?.(results[i], ++finished, goldens.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, goldens.length) }, worker));
  return { results, run };
}
