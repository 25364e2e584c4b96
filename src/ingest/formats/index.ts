// The table of input formats: one module per format (detect, discover, load), in the detection order of formats.md F0.2.
import type { InputFormat, InputFormatModule, RefByFormat } from "../types.js";
import * as deepevalJson from "./deepeval-json.js";
import * as deepevalSim from "./deepeval-sim.js";
import * as dualChannel from "./dual-channel.js";
import * as voiceliveDataset from "./voicelive-dataset.js";
import * as voiceliveOutput from "./voicelive-output.js";
import * as wav from "./wav.js";

/** The module that reads each format id. */
export const FORMATS: { readonly [F in InputFormat]: InputFormatModule<RefByFormat[F]> } = {
  "deepeval-json": deepevalJson,
  "deepeval-jsonl": deepevalJson,
  "deepeval-sim-folder": deepevalSim,
  "voicelive-dataset": voiceliveDataset,
  "voicelive-output": voiceliveOutput,
  "dual-channel": dualChannel,
  wav,
};

/** F0.2's order: simulation folders, then test cases, Voice Live outputs and datasets (by their first record), then recordings and clips (by their header). */
export const DETECTION_ORDER: readonly InputFormatModule[] = [deepevalSim, deepevalJson, voiceliveOutput, voiceliveDataset, dualChannel, wav];
