// Benchmark of the HTML report (issue 15): a generated 10,000-call results file (9 turns a call on average, acoustics on every turn) → report size, build time, open-to-interactive time in headless Chromium (median of 3 loads), and the view of a 1-hour call.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writeHtmlReportOfResults } from "../src/report/index.js";
import { CHROMIUM_SKIP_MESSAGE, HAVE_CHROMIUM, launchChromium } from "../test/helpers/browser.js";
import { seededRandom } from "../test/helpers/random.js";
import { generateCall, writeGeneratedResults } from "../test/helpers/result-archive.js";

const CALLS = 10_000;
const LOADS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
        // Time from the start of navigation to the page script's last step (charts and table drawn, handlers bound).
        const t = await page.evaluate(() => ({ ready: performance.now(), parse: document.body.dataset.parseMs, charts: document.body.dataset.chartsMs, table: document.body.dataset.tableMs }));
        interactive.push(t.ready);
        parts.push(`parse ${t.parse} · charts ${t.charts} · table ${t.table} ms`);
        const c0 = Date.now();
        await page.click("#calls tbody tr:first-child");
        await page.waitForSelector("#call-view:not([hidden])", { state: "attached" });
        parts[i] += ` · open a call ${Date.now() - c0} ms`;
        await page.close();
      }
      process.stdout.write(`open-to-interactive (${CALLS} calls): median ${median(interactive).toFixed(0)} ms of ${LOADS} loads [${interactive.map((x) => x.toFixed(0)).join(", ")}]\n`);
      for (const p of parts) process.stdout.write(`  ${p}\n`);

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`file://${join(long, "report.html")}`);
      await page.waitForSelector("body[data-ready=true]", { state: "attached" });
      const c0 = Date.now();
      await page.click("#calls tbody tr:first-child");
      await page.waitForSelector('#lanes g[aria-description="turns"]', { state: "attached" });
      const openMs = Date.now() - c0;
      const f0 = Date.now();
      await page.evaluate(() => (document.querySelector("#turn-list button.play, #turn-list .turn") as HTMLElement | null)?.scrollIntoView());
      process.stdout.write(`1-hour call (1,000 turns): view drawn in ${openMs} ms, scroll ${Date.now() - f0} ms\n`);
      await page.close();
    } finally {
      await browser.close();
    }
    process.stdout.write(`load average during the run: ${loadavg().map((x) => x.toFixed(1)).join(" ")} (2 cores, shared)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
