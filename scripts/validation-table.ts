// Prints the metric × ladder tables of the validation suite (test/validation) for both profiles, as Markdown: README.md shows the human-speech table, docs/voxmetrics-profile.md all three sources.
// Run: node --import tsx scripts/validation-table.ts [human|tts|espeak ...]
import { CONTRACT, GENTLE, LADDERS, METRIC_IDS, type MetricId } from "../test/validation/ladders.js";
import { scoreSource, type LadderScores } from "../test/validation/run-ladders.js";
import { sourceUnavailable, type SourceId } from "../test/validation/sources.js";

const MONOTONE_TOLERANCE = 0.02;

function cell(scores: LadderScores, metric: MetricId): string {
  const s = scores.map((l) => l[metric]);
  const fmt = (v: number | null) => (v === null ? "skip" : v.toFixed(2));
  let monotone = true;
  for (let k = 1; k < s.length; k++) {
    const a = s[k - 1], b = s[k];
    if (a === null || b === null || b > a + MONOTONE_TOLERANCE) monotone = false;
  }
  return `${fmt(s[0])} → ${fmt(s[s.length - 1])} | ${monotone ? "yes" : "no"}`;
}

function table(source: SourceId): string {
  const scores = scoreSource(source);
  const lines = [
    `| ladder (severity axis) | metric | contract | deepeval: clean → most severe | monotone | voxmetrics: clean → most severe | monotone |`,
    `|---|---|---|---|---|---|---|`,
  ];
  for (const ladder of LADDERS) {
    for (const metric of METRIC_IDS) {
      const gentle = GENTLE.some(([m, l]) => m === metric && l === ladder.id);
      const contract = CONTRACT[metric].includes(ladder.id) ? (gentle ? "falls ≥ 0.1, ends ≥ 0.6" : "falls ≥ 0.4") : "moves ≤ 0.1";
      lines.push(`| ${ladder.id} (${ladder.axis}: ${ladder.levels.join(", ")}) | ${metric} | ${contract} | ${cell(scores.deepeval[ladder.id], metric)} | ${cell(scores.voxmetrics[ladder.id], metric)} |`);
    }
  }
  return lines.join("\n");
}

const wanted = (process.argv.slice(2).length ? process.argv.slice(2) : ["human", "tts", "espeak"]) as SourceId[];
for (const source of wanted) {
  const why = sourceUnavailable(source);
  if (why) {
    process.stderr.write(`${source}: skipped (${why})\n`);
    continue;
  }
  process.stdout.write(`\n### ${source}\n\n${table(source)}\n`);
}
