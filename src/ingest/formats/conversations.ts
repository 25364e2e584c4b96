// Voice Live dataset and output files (formats.md F3.7, F4.9): records grouped into one call per conversation id, and read back by byte range.
import { VoxError } from "../../model/errors.js";
import { describeRecordSyntaxError, locateRecordSyntaxError, parseRecord } from "../../model/json-records.js";
import { readRanges } from "../files.js";
import type { Candidate, CandidateContext, CallRef, ConversationRef } from "../types.js";

/** One JSONL record read with its 1-based line number. */
export interface LineRecord {
  value: unknown;
  line: number;
}

/**
 * One call per conversation (`<id>#<conversation>`, in order of first appearance) with the ranges
 * and lines of its records; a record that is not valid JSON becomes its own error reference.
 */
export function discoverConversations(c: Candidate, ctx: CandidateContext, conversationIdOf: (record: Record<string, unknown>) => string): CallRef[] {
  const { format, id, displayPath } = ctx;
  if (c.kind !== "json" || (format !== "voicelive-dataset" && format !== "voicelive-output")) return [];
  const calls: CallRef[] = [];
  const groups = new Map<string, ConversationRef>();
  const { ranges, lines } = c.records;
  const decoder = new TextDecoder();
  ranges.forEach((range, i) => {
    const line = lines ? lines[i] : i + 1;
    let value: unknown;
    try {
      value = parseRecord(decoder.decode(c.bytes.subarray(range[0], range[1])));
    } catch {
      const error = { code: "INVALID_JSON" as const, message: `${displayPath}: ${describeRecordSyntaxError(decoder.decode(c.bytes.subarray(range[0], range[1])), line)}` };
      calls.push({ id: `${id}#line-${line}`, format, path: c.path, displayPath, error });
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      // A stray value is its own error record: it belongs to no conversation, and must not sink one.
      const error = { code: "INVALID_JSON" as const, message: `${displayPath}: line ${line}: a record must be a JSON object, got ${jsonTypeOf(value)}` };
      calls.push({ id: `${id}#line-${line}`, format, path: c.path, displayPath, error });
      return;
    }
    const record = value as Record<string, unknown>;
    const conversationId = conversationIdOf(record);
    let ref = groups.get(conversationId);
    if (!ref) {
      ref = { id: `${id}#${conversationId}`, format, path: c.path, displayPath, conversationId, ranges: [], lines: [] };
      groups.set(conversationId, ref);
      calls.push(ref);
    }
    ref.ranges.push(range);
    ref.lines.push(line);
  });
  return calls;
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/** The records of a conversation with their line numbers; a syntax error names the file and line. */
export function readConversationRecords(ref: ConversationRef): LineRecord[] {
  return readRanges(ref.path, ref.ranges).map((text, i) => {
    const line = ref.lines[i];
    try {
      return { value: parseRecord(text), line };
    } catch {
      const { where, detail } = locateRecordSyntaxError(text, line);
      throw new VoxError("INVALID_JSON", detail, { file: ref.displayPath, field: where });
    }
  });
}
