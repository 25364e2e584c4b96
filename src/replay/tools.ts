// Stub tools that answer the agent's function calls during a replay: a JSON table of canned outputs or a JS module, with the unknown-tool reply for anything else.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { VoxError } from "../model/errors.js";

/** One function call as the agent sent it (`response.function_call_arguments.done`). */
export interface ToolCall {
  call_id: string;
  name: string;
  /** The raw JSON string of the arguments. */
  arguments: string;
}

/** Answers a tool call with the output string sent back to the agent. */
export type ToolHandler = (name: string, args: unknown, call: ToolCall) => unknown | Promise<unknown>;

/** The reply to a call of a tool the stubs do not know (a JSON error object naming the tool). */
export function unknownToolReply(name: string): string {
  return JSON.stringify({ error: `Unknown tool: ${name}` });
}

/** The output string of a stub's value: strings as they are, anything else as JSON. */
function outputString(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** Stub tools that answer the agent's function calls during a replay, from a JSON table or a module. */
export interface StubTools {
  /** Where the stubs came from (for the run metadata). */
  source: string;
  /** Tool names the stubs answer (null: a module function that takes any name). */
  names: string[] | null;
  call(call: ToolCall): Promise<string>;
}

function parsedArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Stubs from a table `{name: output}` of canned outputs (strings as they are, other values as JSON). */
export function stubToolsFromTable(table: Record<string, unknown>, source = "table"): StubTools {
  return {
    source,
    names: Object.keys(table),
    call: async (c) => (Object.prototype.hasOwnProperty.call(table, c.name) ? outputString(table[c.name]) : unknownToolReply(c.name)),
  };
}

/** No stubs: every call gets the unknown-tool reply. */
export const NO_STUB_TOOLS: StubTools = stubToolsFromTable({}, "none");

/**
 * Load `--tools`: a `.json` file (the table of canned outputs) or a JS module whose default export
 * (or `tools` export) is either such a table of values and functions `(args, call) → output`, or one
 * function `(name, args, call) → output` (return undefined for an unknown tool).
 */
export async function loadStubTools(path: string): Promise<StubTools> {
  const abs = resolve(path);
  if (/\.json$/i.test(abs)) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(abs, "utf8").replace(/^\uFEFF/, ""));
    } catch (e) {
      throw new VoxError("INVALID_OPTION", `the tools table is not readable JSON: ${(e as Error).message}`, { file: path });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new VoxError("INVALID_OPTION", "the tools table must be a JSON object {tool name: output}", { file: path });
    return stubToolsFromTable(value as Record<string, unknown>, abs);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (e) {
    throw new VoxError("INVALID_OPTION", `the tools module cannot be loaded: ${(e as Error).message}`, { file: path });
  }
  const exported = mod.default ?? mod.tools;
  if (typeof exported === "function") {
    const fn = exported as ToolHandler;
    return {
      source: abs,
      names: null,
      call: async (c) => {
        const out = await fn(c.name, parsedArguments(c.arguments), c);
        return out === undefined ? unknownToolReply(c.name) : outputString(out);
      },
    };
  }
  if (exported === null || typeof exported !== "object") throw new VoxError("INVALID_OPTION", "the tools module must export (default or `tools`) a function or an object of tools", { file: path });
  const table = exported as Record<string, unknown>;
  return {
    source: abs,
    names: Object.keys(table),
    call: async (c) => {
      if (!Object.prototype.hasOwnProperty.call(table, c.name)) return unknownToolReply(c.name);
      const v = table[c.name];
      return outputString(typeof v === "function" ? await (v as (a: unknown, c: ToolCall) => unknown)(parsedArguments(c.arguments), c) : v);
    },
  };
}
