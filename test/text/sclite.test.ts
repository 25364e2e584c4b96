// WER and CER against NIST sclite (Debian package sctk): the same C/S/D/I counts, alignment and rates on 420 generated pairs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { alignTokens, characterErrorRate, compareTranscripts, normalizeWords, sumErrorCounts, wordErrorRate, type EditCounts } from "../../src/text/index.js";
import { seededRandom } from "../helpers/random.js";
import { report } from "../helpers/report.js";

function findSclite(): string | null {
  const candidates = [process.env.SCLITE_PATH, "/usr/lib/sctk/bin/sclite", "/usr/bin/sclite", "/usr/local/bin/sclite"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  const r = spawnSync("sh", ["-c", "command -v sclite"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

const SCLITE = findSclite();
if (!SCLITE) console.warn("sclite not found (install the Debian package sctk, or set $SCLITE_PATH): the WER/CER comparison with NIST sclite is skipped");

// ---- generated reference / hypothesis pairs -------------------------------------------------------

const SPOKEN = [
  "hello", "I", "would", "like", "to", "book", "a", "table", "for", "two", "people", "tomorrow", "evening", "please",
  "don't", "it's", "we'll", "can't", "I'm", "you're", "the", "order", "number", "is", "twenty-one", "one", "hundred",
  "and", "five", "$5", "21", "10:30", "a.m.", "3.5", "percent", "50%", "first", "second", "flight", "to", "Paris",
  "my", "account", "was", "charged", "twice", "yes", "no", "okay", "thanks", "nineteen", "eighty-four", "1984",
  "café", "won't", "let's", "they've", "could", "you", "help", "me", "with", "refund", "of", "eleven", "dollars",
];
const PUNCT = ["", "", "", "", ",", ".", "?", "!", ";"];

/** A raw sentence of spoken-style tokens with random capitals and punctuation. */
function sentence(rand: () => number, length: number): string[] {
  return Array.from({ length }, () => {
    const w = SPOKEN[Math.floor(rand() * SPOKEN.length)];
    const cased = rand() < 0.15 ? w.toUpperCase() : rand() < 0.2 ? w[0].toUpperCase() + w.slice(1) : w;
    return cased + PUNCT[Math.floor(rand() * PUNCT.length)];
  });
}

/** The sentence with random substitutions, deletions, insertions and swaps (about `rate` of the words). */
function corrupt(rand: () => number, words: string[], rate: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const r = rand();
    if (r < rate / 4) continue;
    if (r < rate / 2) out.push(SPOKEN[Math.floor(rand() * SPOKEN.length)]);
    else if (r < (3 * rate) / 4) out.push(words[i], SPOKEN[Math.floor(rand() * SPOKEN.length)]);
    else if (r < rate && i + 1 < words.length) out.push(words[i + 1], words[i++]);
    else out.push(words[i]);
  }
  return out;
}

interface Pair {
  reference: string;
  hypothesis: string;
}

function generatePairs(): Pair[] {
  const rand = seededRandom(20250613);
  const pairs: Pair[] = [];
  // Tie-heavy: a three-word vocabulary makes many alignments of equal cost.
  for (let k = 0; k < 150; k++) {
    const pick = (n: number) => Array.from({ length: n }, () => "abc"[Math.floor(rand() * 3)]).join(" ");
    pairs.push({ reference: pick(Math.floor(rand() * 9)), hypothesis: pick(Math.floor(rand() * 9)) });
  }
  // Transcripts with speech-recognition-like errors at several error levels.
  for (let k = 0; k < 200; k++) {
    const ref = sentence(rand, 3 + Math.floor(rand() * 18));
    pairs.push({ reference: ref.join(" "), hypothesis: corrupt(rand, ref, [0.05, 0.2, 0.5, 0.9][k % 4]).join(" ") });
  }
  // Unrelated long pairs.
  for (let k = 0; k < 60; k++) {
    pairs.push({ reference: sentence(rand, 15 + Math.floor(rand() * 25)).join(" "), hypothesis: sentence(rand, 10 + Math.floor(rand() * 30)).join(" ") });
  }
  // Edges: empty sides, identical texts, punctuation only.
  pairs.push(
    { reference: "", hypothesis: "" },
    { reference: "", hypothesis: "hello there" },
    { reference: "hello there", hypothesis: "" },
    { reference: "It's twenty-one, OK?", hypothesis: "it is 21 ok" },
    { reference: "...", hypothesis: "ok" },
    { reference: "a b c d e f", hypothesis: "a b c d e f" },
    { reference: "a x y", hypothesis: "p q a" },
    { reference: "one two three", hypothesis: "123" },
    { reference: "hello", hypothesis: "helo" },
    { reference: "I don't know", hypothesis: "i do not know" },
  );
  return pairs;
}

// ---- running sclite -------------------------------------------------------------------------------

/** Utterance id `(sNNN_u)`: one sclite "speaker" per pair, so its per-speaker table gives each pair's rate. */
const speakerOf = (k: number) => `s${String(k).padStart(3, "0")}`;

interface ScliteRun {
  /** Alignment per pair as sclite's SGML gives it: C/S/D/I with the reference and hypothesis token. */
  paths: Map<string, Array<{ kind: string; ref: string; hyp: string }>>;
  /** Err % per speaker (per pair) as printed; for a pair with no reference words, the error count. */
  errPercent: Map<string, { value: number; isCount: boolean }>;
  /** Err % of all pairs together (the Sum/Avg row). */
  totalErrPercent: number;
}

const work = mkdtempSync(join(tmpdir(), "voxmetrics-sclite-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runSclite(refWords: string[][], hypWords: string[][], characters: boolean): ScliteRun {
  const trn = (rows: string[][]) => rows.map((w, k) => `${w.join(" ")} (${speakerOf(k)}_u)`).join("\n") + "\n";
  const tag = characters ? "chr" : "wrd";
  writeFileSync(join(work, `ref-${tag}.trn`), trn(refWords));
  writeFileSync(join(work, `hyp-${tag}.trn`), trn(hypWords));
  const args = ["-r", `ref-${tag}.trn`, "trn", "-h", `hyp-${tag}.trn`, "trn", "-i", "spu_id", "-o", "sum", "sgml", "stdout", ...(characters ? ["-c"] : [])];
  const r = spawnSync(SCLITE!, args, { cwd: work, encoding: "utf8", maxBuffer: 1 << 28, timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const out = r.stdout;

  const paths = new Map<string, Array<{ kind: string; ref: string; hyp: string }>>();
  for (const m of out.matchAll(/<PATH id="\((s\d+)_u\)"[^>]*>\n(.*)\n<\/PATH>/g)) {
    const body = m[2].trim();
    paths.set(
      m[1],
      body === ""
        ? []
        : body.split(":").map((step) => {
            const [, kind, ref, hyp] = /^([CSDI]),(?:"(.*?)")?,(?:"(.*?)")?$/.exec(step)!;
            return { kind, ref: ref ?? "", hyp: hyp ?? "" };
          }),
    );
  }
  const errPercent = new Map<string, { value: number; isCount: boolean }>();
  let totalErrPercent = NaN;
  for (const line of out.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5) continue;
    const scores = cells[3].split(/\s+/);
    if (scores.length !== 6) continue;
    const err = scores[4];
    if (/^s\d{3}$/.test(cells[1])) errPercent.set(cells[1], { value: Number(err.replace("*", "")), isCount: err.endsWith("*") });
    if (cells[1] === "Sum/Avg") totalErrPercent = Number(err);
  }
  return { paths, errPercent, totalErrPercent };
}

function countsOf(steps: Array<{ kind: string }>): EditCounts {
  const n = (k: string) => steps.filter((s) => s.kind === k).length;
  return { correct: n("C"), substitutions: n("S"), deletions: n("D"), insertions: n("I") };
}

/** sclite prints Err % with one decimal; ours must round to the same figure (a tie at .x5 may go either way). */
function expectSamePercent(ours: number, printed: number): void {
  expect(Math.abs(ours * 100 - printed)).toBeLessThanOrEqual(0.05 + 1e-9);
}

describe.skipIf(!SCLITE)("WER and CER equal NIST sclite's (sclite is installed: comparing)", () => {
  const pairs = generatePairs();
  const refWords = pairs.map((p) => normalizeWords(p.reference));
  const hypWords = pairs.map((p) => normalizeWords(p.hypothesis));

  it("generates at least 200 pairs, with ties, empty sides and every kind of error", () => {
    expect(pairs.length).toBeGreaterThanOrEqual(200);
    const all = sumErrorCounts(pairs.map((p) => wordErrorRate(p.reference, p.hypothesis)));
    expect(all.substitutions).toBeGreaterThan(100);
    expect(all.deletions).toBeGreaterThan(100);
    expect(all.insertions).toBeGreaterThan(100);
    expect(all.correct).toBeGreaterThan(100);
  });

  it("words: same alignment, same S/D/I/C counts and WER per pair, same total WER", () => {
    const sclite = runSclite(refWords, hypWords, false);
    expect(sclite.paths.size).toBe(pairs.length);
    const ours: EditCounts[] = [];
    pairs.forEach((p, k) => {
      const cmp = compareTranscripts(p.reference, p.hypothesis);
      const theirs = sclite.paths.get(speakerOf(k))!;
      // sclite lower-cases nothing in SGML for these tokens; compare each step.
      expect(cmp.alignment.map((s) => `${s.kind},${s.ref ?? ""},${s.hyp ?? ""}`), `pair ${k}: ${p.reference} | ${p.hypothesis}`).toEqual(
        theirs.map((s) => `${s.kind},${s.ref},${s.hyp}`),
      );
      const { correct, substitutions, deletions, insertions } = cmp.words;
      expect({ correct, substitutions, deletions, insertions }).toEqual(countsOf(theirs));
      const printed = sclite.errPercent.get(speakerOf(k))!;
      if (printed.isCount) {
        expect(cmp.wer).toBeNull();
        expect(substitutions + deletions + insertions).toBe(printed.value);
      } else {
        expectSamePercent(cmp.wer!, printed.value);
      }
      ours.push(cmp.words);
    });
    const total = sumErrorCounts(ours);
    expectSamePercent(total.rate!, sclite.totalErrPercent);
    report(
      `sclite comparison, words: ${pairs.length} pairs, ${total.referenceLength} reference words, ` +
        `C=${total.correct} S=${total.substitutions} D=${total.deletions} I=${total.insertions}, WER ${(100 * total.rate!).toFixed(2)}% (sclite ${sclite.totalErrPercent}%)`,
    );
  });

  it("characters (sclite -c): same S/D/I/C counts and CER per pair, same total CER", () => {
    const sclite = runSclite(refWords, hypWords, true);
    const ours: EditCounts[] = [];
    pairs.forEach((p, k) => {
      const cer = characterErrorRate(p.reference, p.hypothesis);
      const theirs = countsOf(sclite.paths.get(speakerOf(k))!);
      const { correct, substitutions, deletions, insertions } = cer;
      expect({ correct, substitutions, deletions, insertions }, `pair ${k}`).toEqual(theirs);
      const printed = sclite.errPercent.get(speakerOf(k))!;
      if (printed.isCount) expect(cer.rate).toBeNull();
      else expectSamePercent(cer.rate!, printed.value);
      ours.push(cer);
    });
    const total = sumErrorCounts(ours);
    expectSamePercent(total.rate!, sclite.totalErrPercent);
    report(
      `sclite comparison, characters: ${total.referenceLength} reference characters, ` +
        `C=${total.correct} S=${total.substitutions} D=${total.deletions} I=${total.insertions}, CER ${(100 * total.rate!).toFixed(2)}% (sclite ${sclite.totalErrPercent}%)`,
    );
  });

  it("the aligner alone agrees with sclite on raw token lists (no normaliser in between)", () => {
    const rand = seededRandom(7);
    const refs: string[][] = [];
    const hyps: string[][] = [];
    for (let k = 0; k < 300; k++) {
      const pick = () => Array.from({ length: Math.floor(rand() * 12) }, () => ["yes", "no", "maybe", "ok"][Math.floor(rand() * 4)]);
      refs.push(pick());
      hyps.push(pick());
    }
    const sclite = runSclite(refs, hyps, false);
    refs.forEach((r, k) => {
      const ours = alignTokens(r, hyps[k]).steps.map((s) => `${s.kind},${s.ref ?? ""},${s.hyp ?? ""}`);
      expect(ours).toEqual(sclite.paths.get(speakerOf(k))!.map((s) => `${s.kind},${s.ref},${s.hyp}`));
    });
  });
});
