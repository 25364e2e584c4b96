// Duplex: which caller turn each of the agent's transcriptions of the caller belongs to, and what a caller turn cut short actually said (the reference of "how well the agent heard").
import type { CallerTurnRecord } from "../connectors/capture.js";

/** An agent-side transcription of the caller, stamped when the simulator saw it arrive (monotonic ms). */
export interface HeardArrival {
  at: number;
  text: string;
}

/** Frame of the speech-span estimate, in seconds. */
const SPAN_FRAME_S = 0.01;
/** A frame is speech when its RMS is at least this fraction of the loudest frame's (−20 dB). */
const SPAN_RELATIVE_RMS = 0.1;

/** First and last sample of the speech in a clip (10 ms frames at ≥ −20 dB of the loudest frame); null when silent. */
export function speechSpan(pcm: Int16Array, sampleRate: number): { start: number; end: number } | null {
  const n = Math.max(1, Math.round(SPAN_FRAME_S * sampleRate));
  const rms: number[] = [];
  for (let i = 0; i < pcm.length; i += n) {
    let s = 0;
    const to = Math.min(pcm.length, i + n);
    for (let j = i; j < to; j++) s += pcm[j] * pcm[j];
    rms.push(Math.sqrt(s / (to - i)));
  }
  const peak = Math.max(0, ...rms);
  if (peak === 0) return null;
  const on = (r: number) => r >= peak * SPAN_RELATIVE_RMS;
  const first = rms.findIndex(on);
  let last = rms.length - 1;
  while (!on(rms[last])) last--;
  return { start: first * n, end: Math.min(pcm.length, (last + 1) * n) };
}

/**
 * The words of `text` the caller actually spoke when its clip (`full`) was cut after `spokenSamples`:
 * the speech span of the clip is spread over the text in proportion to character offsets (a TTS
 * speaks at a steady rate), and a word counts as spoken when its middle lies before the cut.
 * The whole text when nothing was cut; "" when the cut came before the speech.
 */
export function spokenPrefix(text: string, full: Int16Array, spokenSamples: number, sampleRate: number): { text: string; fraction: number } {
  if (spokenSamples >= full.length) return { text, fraction: 1 };
  const span = speechSpan(full, sampleRate);
  if (!span) return { text: "", fraction: 0 };
  const fraction = Math.min(1, Math.max(0, (spokenSamples - span.start) / Math.max(1, span.end - span.start)));
  const words = [...text.matchAll(/\S+/g)];
  if (words.length === 0) return { text: "", fraction };
  const from = words[0].index!;
  const to = words[words.length - 1].index! + words[words.length - 1][0].length;
  const spoken = words.filter((w) => (w.index! + w[0].length / 2 - from) / Math.max(1, to - from) <= fraction).map((w) => w[0]);
  return { text: spoken.join(" "), fraction };
}

/**
 * Attach the agent's transcriptions of the caller to the caller turns they belong to (duplex).
 *
 * A transcription that arrives at time T belongs to every caller turn that started before T and
 * has none yet: one turn normally; several when the agent heard them as one utterance (a cut
 * barge and the "Sorry — go ahead." right after it) or its transcription came late. The last of
 * those turns carries `agent_transcript`, and, when it differs from the turn's own text,
 * `agent_heard_reference`: the words the group actually spoke (each turn's `references` entry,
 * joined), with `agent_heard_turns` = the group's size. A transcription that arrives when every
 * started turn already has one continues the last (the agent split an utterance in two).
 * Transcriptions before the first caller turn are left out (they stay in `caller_transcripts`).
 */
export function attachAgentHeard(callers: readonly CallerTurnRecord[], arrivals: readonly HeardArrival[], references: ReadonlyMap<CallerTurnRecord, string>): void {
  const sorted = [...callers].sort((a, b) => a.startedAt - b.startedAt);
  const referenceOf = (c: CallerTurnRecord) => references.get(c) ?? c.text ?? "";
  let next = 0;
  let owner: CallerTurnRecord | null = null;
  for (const h of [...arrivals].sort((a, b) => a.at - b.at)) {
    const group: CallerTurnRecord[] = [];
    while (next < sorted.length && sorted[next].startedAt < h.at) group.push(sorted[next++]);
    if (group.length > 0) {
      owner = group[group.length - 1];
      const meta = (owner.metadata ??= {});
      meta.agent_transcript = h.text;
      const reference = group
        .map(referenceOf)
        .filter((r) => r.trim() !== "")
        .join(" ");
      if (reference !== (owner.text ?? "")) meta.agent_heard_reference = reference;
      if (group.length > 1) meta.agent_heard_turns = group.length;
    } else if (owner) {
      const meta = owner.metadata!;
      meta.agent_transcript = `${meta.agent_transcript as string} ${h.text}`;
    }
  }
}
