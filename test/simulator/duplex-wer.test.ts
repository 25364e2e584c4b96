// Duplex "how well the agent heard": the realtime reference agent reports its transcriptions of the caller while the simulated caller talks over it; per-turn and per-call WER, CER and S/D/I reach the score records, the summary and the CSV, and equal a hand computation and NIST sclite.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRUSTRATED_UTTERANCE, RealtimeConnector, ScriptedCallerPolicy, decodeAudio, normalizeWords, parseGolden, runSimulations, type ConversationalGolden } from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { CALLER_TTS } from "../connectors/live-helpers.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";

const run = promisify(execFile);
const BIN = join(REPO_ROOT, "bin", "voxmetrics.js");

function findSclite(): string | null {
  for (const c of [process.env.SCLITE_PATH, "/usr/lib/sctk/bin/sclite", "/usr/bin/sclite", "/usr/local/bin/sclite"]) if (c && existsSync(c)) return c;
  const r = spawnSync("sh", ["-c", "command -v sclite"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}
const SCLITE = findSclite();
if (!SCLITE) console.warn("sclite not found (Debian package sctk): the duplex agent-heard WER is checked against the hand computation only");

let dir: string;
const agents: ReferenceAgent[] = [];
async function agent(options: Parameters<typeof startReferenceAgent>[0] = {}): Promise<ReferenceAgent> {
  const a = await startReferenceAgent({ vadSilenceMs: 200, delayMs: 300, ...options });
  agents.push(a);
  return a;
}
const realtime = (a: ReferenceAgent) => () => new RealtimeConnector({ url: `${a.url}/realtime`, turnDetection: { preset: "eager", maxTurnTimeoutS: 15 } });

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "vox-sim-duplex-wer-"));
});
afterAll(async () => {
  await new Promise((r) => setTimeout(r, 200));
  for (const a of agents) expect(a.openConnections()).toBe(0);
  for (const a of agents) await a.close();
  if (!process.env.KEEP_TMP) rmSync(dir, { recursive: true, force: true });
});

function golden(name: string, frequency: string, overlap: string, lines: string[]): ConversationalGolden {
  return parseGolden({ name, scenario: "Order status", turns: lines.map((content) => ({ role: "user", content })), persona: { characteristics: "a caller", interruption_behavior: { frequency, overlap } } }, dir, `test:${name}`);
}

/** `voxmetrics score` on a capture folder: the result records, the summary and the CSV rows. */
async function score(folder: string, tag: string) {
  const out = join(dir, `${tag}.jsonl`);
  const summary = join(dir, `${tag}.summary.json`);
  const csv = join(dir, `${tag}.csv`);
  await run("node", [BIN, "score", folder, "--out", out, "--summary", summary, "--csv", csv, "--workers", "0"], { timeout: 60_000 });
  const records = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const lines = readFileSync(csv, "utf8").trim().split(/\r?\n/);
  // wer and cer are the last two columns (earlier ones may hold quoted commas).
  expect(lines[0].split(",").slice(-2)).toEqual(["wer", "cer"]);
  const rows = lines.slice(1).map((l) => l.split(",").slice(-2));
  const column = (name: "wer" | "cer") => rows.map((r) => r[name === "wer" ? 0 : 1]);
  return { records, summary: JSON.parse(readFileSync(summary, "utf8")), column };
}

/** sclite's S/D/I per pair (one utterance per pair), from its SGML alignment of the normalised words. */
function scliteCounts(pairs: Array<{ reference: string; hypothesis: string }>) {
  const id = (k: number) => `s${String(k).padStart(3, "0")}`;
  const trn = (rows: string[]) => rows.map((w, k) => `${w} (${id(k)}_u)`).join("\n") + "\n";
  writeFileSync(join(dir, "ref.trn"), trn(pairs.map((p) => normalizeWords(p.reference).join(" "))));
  writeFileSync(join(dir, "hyp.trn"), trn(pairs.map((p) => normalizeWords(p.hypothesis).join(" "))));
  const r = spawnSync(SCLITE!, ["-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", "spu_id", "-o", "sgml", "stdout"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return pairs.map((_, k) => {
    const m = new RegExp(`<PATH id="\\(${id(k)}_u\\)"[^>]*>\\n(.*)\\n</PATH>`).exec(r.stdout)!;
    const steps = m[1].trim() === "" ? [] : m[1].trim().split(":").map((s) => s[0]);
    const n = (kind: string) => steps.filter((s) => s === kind).length;
    return { substitutions: n("S"), deletions: n("D"), insertions: n("I") };
  });
}

describe("duplex: how well the agent heard the caller", () => {
  it("each caller turn gets the agent's transcription of it; per-turn and per-call WER reach the records, the summary and the CSV (hand-computed)", async () => {
    const a = await agent({ replies: ["Sure, noted."], callerTranscripts: ["where is my order", "can you check a gain"] });
    const g = golden("heard-duplex", "rare", "yield", ["Where is my order?", "Can you check again?"]);
    const out = join(dir, "plain");
    const { results } = await runSimulations([g], realtime(a), { outDir: out, tts: CALLER_TTS, duplex: true, seed: 1, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    expect(results[0].error).toBeNull();
    const tc = results[0].testCase!;
    expect(tc.metadata).toMatchObject({ mode: "duplex", end_reason: "max_turns" });
    const users = tc.turns.filter((t) => t.role === "user");
    expect(users.map((t) => [t.content, t.metadata!.agent_transcript, t.metadata!.agent_heard_reference])).toEqual([
      ["Where is my order?", "where is my order", undefined],
      ["Can you check again?", "can you check a gain", undefined],
    ]);
    const { records, summary, column } = await score(out, "plain");
    const ta = records[0].transcript_accuracy;
    // By hand: turn 1 is exact (4 words); turn 2 "can you check again" → "can you check a gain":
    // again→a (S), gain (I), so 2 errors / 4 words; the characters are the same ("canyoucheckagain").
    expect(ta.turns.map((t: Record<string, unknown>) => [t.kind, t.wer, t.cer, t.substitutions, t.deletions, t.insertions, t.reference_words])).toEqual([
      ["agent_heard_caller", 0, 0, 0, 0, 0, 4],
      ["agent_heard_caller", 0.5, 0, 1, 0, 1, 4],
    ]);
    expect(ta.by_kind.agent_heard_caller).toMatchObject({ wer: 0.25, cer: 0, substitutions: 1, deletions: 0, insertions: 1, reference_words: 8 });
    expect(ta).toMatchObject({ wer: 0.25, cer: 0 });
    expect(summary.transcript_accuracy).toEqual({ calls: 1, wer: 0.25, cer: 0, substitutions: 1, deletions: 0, insertions: 1, reference_words: 8 });
    expect(new Set(column("wer"))).toEqual(new Set(["0.25"]));
    expect(new Set(column("cer"))).toEqual(new Set(["0"]));
  }, 60_000);

  it("a barge cut at the grace period is scored on the words it actually spoke; the counts equal sclite's", async () => {
    // The agent never yields, so the barge misses its grace period: the caller is cut, says "Sorry — go ahead." and restarts.
    const long = "Thanks for calling. I can see your account here, and I will now read out the details of your last three orders, starting with the oldest one.";
    const barge = "No wait, I really need to tell you something about my address before you go on any further.";
    // The agent's hearing of its n-th utterance (its VAD may hear the cut barge and the "Sorry" as one).
    const transcripts = ["where is my order", "no wait i really need to sorry go ahead", "no wait i really need to tell you something about my dress before you go on any further", "ok"];
    const a = await agent({ bargeInMs: 0, replies: [long, "Sure, noted."], transcribe: (_pcm, _rate, n) => transcripts[Math.min(n, transcripts.length - 1)] });
    const g = golden("cut", "frequent", "adaptive", ["Where is my order?", barge]);
    const out = join(dir, "cut");
    const { results } = await runSimulations([g], realtime(a), { outDir: out, tts: CALLER_TTS, duplex: true, seed: 3, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    expect(results[0].error).toBeNull();
    const tc = results[0].testCase!;
    const users = tc.turns.map((t, index) => ({ t, index })).filter((x) => x.t.role === "user");
    const cut = users.find((x) => x.t.metadata!.frustrated === true)!;
    expect(cut).toBeDefined();
    expect(cut.t.metadata).toMatchObject({ barge_in: true, uplink_stopped: true });
    // What it spoke: a proper prefix of its line, in proportion to the audio sent (cut at 2.0 s of a longer clip).
    const fraction = cut.t.metadata!.spoken_fraction as number;
    const fullS = decodeAudio((await CALLER_TTS.synthesize(barge)).audio.getBytes());
    const sentS = cut.t.audio!.duration!;
    expect(fraction).toBeGreaterThan(0);
    expect(fraction).toBeLessThan(1);
    expect(Math.abs(fraction - sentS / (fullS.samples.length / fullS.sampleRate))).toBeLessThan(0.1);
    const words = barge.split(" ");
    const spokenRef = users.map((x) => x.t.metadata!.agent_heard_reference).find((r) => typeof r === "string" && r.startsWith("No wait")) as string;
    expect(spokenRef).toBeDefined();
    const spokenWords = spokenRef.split(" ").filter((w) => w !== "Sorry" && w !== "—" && w !== "go" && w !== "ahead.");
    expect(barge.startsWith(spokenWords.join(" "))).toBe(true);
    expect(spokenWords.length).toBeLessThan(words.length);
    expect(Math.abs(spokenWords.length / words.length - fraction)).toBeLessThan(0.15);
    // Every transcription of the agent landed on a caller turn, and every caller turn is covered.
    const heardOn = users.filter((x) => typeof x.t.metadata!.agent_transcript === "string");
    expect(heardOn.map((x) => x.t.metadata!.agent_transcript).join(" ")).toBe(transcripts.slice(0, (tc.metadata!.caller_transcripts as string[]).length).join(" "));
    expect(users.some((x) => x.t.content === FRUSTRATED_UTTERANCE)).toBe(true);

    const { records, summary, column } = await score(out, "cut");
    const ta = records[0].transcript_accuracy;
    expect(ta.turns.map((t: { index: number }) => t.index)).toEqual(heardOn.map((x) => x.index));
    for (const t of ta.turns) {
      const u = tc.turns[t.index];
      expect(t.reference).toBe((u.metadata!.agent_heard_reference as string | undefined) ?? u.content);
      expect(t.hypothesis).toBe(u.metadata!.agent_transcript);
    }
    const sum = (k: string) => ta.turns.reduce((s: number, t: Record<string, number>) => s + t[k], 0);
    const n = sum("reference_words");
    const errors = sum("substitutions") + sum("deletions") + sum("insertions");
    expect(ta.by_kind.agent_heard_caller).toMatchObject({ substitutions: sum("substitutions"), deletions: sum("deletions"), insertions: sum("insertions"), reference_words: n });
    expect(ta.wer).toBeCloseTo(errors / n, 6);
    expect(summary.transcript_accuracy).toMatchObject({ calls: 1, substitutions: sum("substitutions"), deletions: sum("deletions"), insertions: sum("insertions"), reference_words: n });
    expect(summary.transcript_accuracy.wer).toBeCloseTo(errors / n, 12);
    expect(new Set(column("wer").map(Number))).toEqual(new Set([ta.wer]));
    if (SCLITE) {
      const sclite = scliteCounts(ta.turns);
      expect(ta.turns.map((t: Record<string, number>) => ({ substitutions: t.substitutions, deletions: t.deletions, insertions: t.insertions }))).toEqual(sclite);
    }
  }, 90_000);
});
