// Benchmark of the HTML report (issue 15): a generated 10,000-call results file (9 turns a call on average, acoustics on every turn) → report size, build time, open-to-interactive time in headless Chromium (median of 3 loads), and the view of a 1-hour call.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { writeHtmlReportOfResults } from "../src/report/index.js";
import { CHROMIUM_SKIP_MESSAGE, HAVE_CHROMIUM, launchChromium } from "../test/helpers/browser.js";
import { seededRandom } from "../test/helpers/random.js";
import { generateCall, writeGeneratedResults } from "../test/helpers/result-archive.js";

const CALLS = 10_000;
const LOADS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Click the first call of the table; ms until its view is drawn and the next frame painted. */
function openFirstCall(page: Page): Promise<number> {
  return page.evaluate(() => new Promise<number>((done) => {
    const t0 = performance.now();
    (document.querySelector("#calls tbody tr") as HTMLElement).click();
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0)));
  }));
}

export async function benchReport(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "vx-bench-report-"));
  try {
    const results = join(dir, "results.jsonl");
    writeGeneratedResults(results, { calls: CALLS, errorEvery: 97, seed: 3 });
    const out = join(dir, "report.html");
    const t0 = performance.now();
    await writeHtmlReportOfResults({ results, out });
    const buildS = (performance.now() - t0) / 1000;
    const mb = statSync(out).size / 1e6;
    process.stdout.write(`results JSONL ${(statSync(results).size / 1e6).toFixed(1)} MB → report ${mb.toFixed(1)} MB (${CALLS} calls) in ${buildS.toFixed(1)} s\n`);

    const long = join(dir, "long");
    mkdirSync(long);
    writeFileSync(join(long, "results.jsonl"), JSON.stringify(generateCall("one-hour", 1000, seededRandom(9), true)) + "\n");
    await writeHtmlReportOfResults({ results: join(long, "results.jsonl"), out: join(long, "report.html") });

    if (!HAVE_CHROMIUM) {
      process.stdout.write(`${CHROMIUM_SKIP_MESSAGE}\n`);
      return;
    }
    const browser = await launchChromium();
    try {
      const interactive: number[] = [];
      const parts: string[] = [];
      for (let i = 0; i < LOADS; i++) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        await page.goto(`file://${out}`, { waitUntil: "commit" });
        await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 120_000 });
        // Interactive: the first task the page runs after its script is done and the next frame is
        // painted (layout of the charts and the table included), from the start of navigation.
        const t = await page.evaluate(() => new Promise<{ interactive: number; start: string; parse: string; charts: string; table: string }>((done) =>
          requestAnimationFrame(() => setTimeout(() => { const d = document.body.dataset; done({ interactive: performance.now(), start: d.startMs!, parse: d.parseMs!, charts: d.chartsMs!, table: d.tableMs! }); })),
        ));
        interactive.push(t.interactive);
        parts.push(`script starts ${t.start} · parse ${t.parse} · charts ${t.charts} · table ${t.table} ms`);
        parts[i] += ` · open a call ${(await openFirstCall(page)).toFixed(0)} ms`;
        await page.close();
      }
      process.stdout.write(`open-to-interactive (${CALLS} calls): median ${median(interactive).toFixed(0)} ms of ${LOADS} loads [${interactive.map((x) => x.toFixed(0)).join(", ")}]\n`);
      for (const p of parts) process.stdout.write(`  ${p}\n`);

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`file://${join(long, "report.html")}`);
      await page.waitForSelector("body[data-ready=true]", { state: "attached" });
      const openMs = await openFirstCall(page);
      const bars = await page.locator('#lanes g[aria-description="turns"] > rect').count();
      process.stdout.write(`1-hour call (1,000 turns, ${bars} bars): view drawn and painted ${openMs.toFixed(0)} ms after the click\n`);
      await page.close();
    } finally {
      await browser.close();
    }
    process.stdout.write(`load average during the run: ${loadavg().map((x) => x.toFixed(1)).join(" ")} (2 cores, shared)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
