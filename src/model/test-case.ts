// deepeval's `Turn` and `ConversationalTestCase` (voice-metrics.md §1.2–1.3) as plain validated records.
import type { Audio } from "./audio.js";

/** Who speaks a turn. */
export type Role = "user" | "assistant";

/** One turn of a conversation. Field names follow deepeval's Python attributes. */
export interface Turn {
  role: Role;
  content: string;
  user_id?: string | null;
  audio?: Audio | null;
  latency_ms?: number | null;
  interrupted?: boolean | null;
  retrieval_context?: unknown[] | null;
  tools_called?: unknown[] | null;
  mcp_tools_called?: unknown[] | null;
  mcp_resources_called?: unknown[] | null;
  mcp_prompts_called?: unknown[] | null;
  metadata?: Record<string, unknown> | null;
}

/** A multi-turn test case. `turns` is never empty once built through `createTestCase`. */
export interface ConversationalTestCase {
  turns: Turn[];
  scenario?: string | null;
  context?: string[] | null;
  name?: string | null;
  user_description?: string | null;
  expected_outcome?: string | null;
  chatbot_role?: string | null;
  metadata?: Record<string, unknown> | null;
  comments?: string | null;
  tags?: string[] | null;
  flaky?: boolean;
  mcp_servers?: unknown[] | null;
  multimodal?: boolean;
  /** True when any turn has audio (recomputed, as deepeval does). */
  voice?: boolean;
}

/** deepeval's TypeError texts for test-case validation. */
export const TEST_CASE_MESSAGES = {
  emptyTurns: "'turns' must not be empty",
  context: "'context' must be None or a list of strings or RetrievedContextData",
} as const;

/** Validate and finish a test case built in code (throws TypeError with deepeval's messages). */
export function createTestCase(init: ConversationalTestCase): ConversationalTestCase {
  if (!Array.isArray(init.turns) || init.turns.length === 0) throw new TypeError(TEST_CASE_MESSAGES.emptyTurns);
  for (const t of init.turns) {
    if (t === null || typeof t !== "object") {
      throw new TypeError(`'turns' must be a list of Turn or dict, got ${t === null ? "NoneType" : typeof t}`);
    }
    if (t.role !== "user" && t.role !== "assistant") {
      throw new TypeError(`Invalid dict for Turn: role must be 'user' or 'assistant', got ${JSON.stringify(t.role)}`);
    }
    if (typeof t.content !== "string") throw new TypeError("Invalid dict for Turn: content must be a string");
  }
  if (init.context != null && (!Array.isArray(init.context) || init.context.some((c) => typeof c !== "string"))) {
    throw new TypeError(TEST_CASE_MESSAGES.context);
  }
  // Every field is written, in one order, whatever the source format set: test cases and turns
  // then share one shape, so the code that reads them stays optimised (absent fields stay undefined).
  return {
    turns: init.turns.map(normalizeTurn),
    scenario: init.scenario,
    context: init.context,
    name: init.name,
    user_description: init.user_description,
    expected_outcome: init.expected_outcome,
    chatbot_role: init.chatbot_role,
    metadata: init.metadata,
    comments: init.comments,
    tags: init.tags,
    flaky: init.flaky ?? false,
    mcp_servers: init.mcp_servers,
    multimodal: init.multimodal ?? false,
    voice: init.turns.some((t) => t.audio != null),
  };
}

function normalizeTurn(t: Turn): Turn {
  return {
    role: t.role,
    content: t.content,
    user_id: t.user_id,
    audio: t.audio,
    latency_ms: t.latency_ms,
    interrupted: t.interrupted,
    retrieval_context: t.retrieval_context,
    tools_called: t.tools_called,
    mcp_tools_called: t.mcp_tools_called,
    mcp_resources_called: t.mcp_resources_called,
    mcp_prompts_called: t.mcp_prompts_called,
    metadata: t.metadata,
  };
}
