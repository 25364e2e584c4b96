// Done-when: user-side WER (the agent's transcription of each caller clip against the dataset Question) equals NIST sclite's counts on the bundled dataset; the agent transcribes with pocketsphinx.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Audio, DEFAULT_POCKETSPHINX_OPTIONS, normalizeWords, PocketsphinxSpeechToText, runReplay, writeWavPcm16 } from "../../src/index.js";
import { findPocketsphinx } from "../../src/speech/index.js";
import { sanitizeText } from "../../src/replay/records.js";
import { startReferenceAgent } from "../../examples/reference-agent.js";
import { BUNDLED_DATASET, readJsonl, runOptions } from "./helpers.js";

function findSclite(): string | null {
  for (const c of [process.env.SCLITE_PATH, "/usr/lib/sctk/bin/sclite", "/usr/bin/sclite", "/usr/local/bin/sclite"]) if (c && existsSync(c)) return c;
  const r = spawnSync("sh", ["-c", "command -v sclite"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

const SCLITE = findSclite();
const POCKETSPHINX = (await findPocketsphinx()) !== null && existsSync(join(DEFAULT_POCKETSPHINX_OPTIONS.modelDir, "en-us.lm.bin"));
if (!SCLITE) console.warn("sclite not found (Debian package sctk): the replay WER comparison is skipped");
if (!POCKETSPHINX) console.warn("pocketsphinx or its en-us model is missing: the replay WER comparison is skipped");

const work = mkdtempSync(join(tmpdir(), "vox-replay-wer-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** sclite's C/S/D/I per utterance (one speaker per utterance), from its SGML alignment. */
function scliteCounts(refs: string[][], hyps: string[][]): Array<{ correct: number; substitutions: number; deletions: number; insertions: number }> {
  const id = (k: number) => `s${String(k).padStart(3, "0")}`;
  const trn = (rows: string[][]) => rows.map((w, k) => `${w.join(" ")} (${id(k)}_u)`).join("\n") + "\n";
  writeFileSync(join(work, "ref.trn"), trn(refs));
  writeFileSync(join(work, "hyp.trn"), trn(hyps));
  const r = spawnSync(SCLITE!, ["-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", "spu_id", "-o", "sgml", "stdout"], { cwd: work, encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return refs.map((_, k) => {
    const m = new RegExp(`<PATH id="\\(${id(k)}_u\\)"[^>]*>\\n(.*)\\n</PATH>`).exec(r.stdout)!;
    const steps = m[1].trim() === "" ? [] : m[1].trim().split(":").map((s) => s[0]);
    const n = (kind: string) => steps.filter((s) => s === kind).length;
    return { correct: n("C"), substitutions: n("S"), deletions: n("D"), insertions: n("I") };
  });
}

describe.skipIf(!SCLITE || !POCKETSPHINX)("user-side WER of a replay (pocketsphinx transcribes in the agent; sclite is installed)", () => {
  it("per turn and per run, the counts equal sclite's on the normalised question and transcription", async () => {
    const stt = new PocketsphinxSpeechToText();
    // One conversation at a time: each transcription is a pocketsphinx process that loads its model
    // (seconds); the drain waits for it, as the harness's drain waits for late transcriptions.
    const agent = await startReferenceAgent({
      delayMs: 300,
      vadSilenceMs: 300,
      replies: ["Okay."],
      transcribe: async (pcm, rate) => (await stt.transcribe(Audio.fromBytes(writeWavPcm16(pcm, rate), "audio/wav"))).text,
    });
    try {
      const out = join(work, "out");
      const result = await runReplay(runOptions(BUNDLED_DATASET, out, `${agent.url}/realtime`, { drainMs: 40_000, drainIdleMs: 100, concurrency: 1 }));
      const records = readJsonl(join(out, "dataset.jsonl"));
      const timings = readJsonl(join(out, "dataset.timing.jsonl"));
      const refs = timings.map((t) => normalizeWords(sanitizeText(t.question as string)));
      const hyps = records.map((r) => normalizeWords(r.transcript as string));
      // pocketsphinx heard something in every clip (a WER of an empty transcription would test little).
      for (const h of hyps) expect(h.length).toBeGreaterThan(0);
      const theirs = scliteCounts(refs, hyps);
      const ours = timings.map((t) => {
        const w = t.user_wer as Record<string, number>;
        return { correct: w.correct, substitutions: w.substitutions, deletions: w.deletions, insertions: w.insertions };
      });
      expect(ours).toEqual(theirs);
      const total = theirs.reduce((a, b) => ({ correct: a.correct + b.correct, substitutions: a.substitutions + b.substitutions, deletions: a.deletions + b.deletions, insertions: a.insertions + b.insertions }));
      expect(result.userWer).toMatchObject(total);
      const manifest = JSON.parse(readFileSync(join(out, "voxmetrics-replay.json"), "utf8"));
      expect(manifest.totals.user_wer).toMatchObject(total);
      console.log(`replay user-side WER (pocketsphinx on the bundled dataset): ${(100 * result.userWer.rate!).toFixed(1)}% (N=${result.userWer.referenceLength}, S=${total.substitutions} D=${total.deletions} I=${total.insertions}); sclite agrees`);
    } finally {
      await agent.close();
    }
  }, 200_000);
});
