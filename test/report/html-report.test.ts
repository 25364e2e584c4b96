// The HTML report rendered in headless Chromium: the sample archive, an archive with error records and skipped metrics, a --fail-under run, a generated 10,000-call archive and a 1-hour call.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Command } from "commander";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerReportCommand } from "../../src/cli/report.js";
import { scoreArchive, writeHtmlReportOfResults } from "../../src/report/index.js";
import { statsOfTurnRecords, type ResultRecord } from "../../src/scoring/index.js";
import { chartMarks, CHROMIUM_SKIP_MESSAGE, HAVE_CHROMIUM, launchChromium, openReport, screenshotDir } from "../helpers/browser.js";
import { seededRandom } from "../helpers/random.js";
import { generateCall, writeGeneratedResults } from "../helpers/result-archive.js";
import { bareId } from "../helpers/ids.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { runCli } from "../cli/score-program.js";

const ARCHIVE = join(REPO_ROOT, "fixtures", "sample-archive");
const tmp = mkdtempSync(join(tmpdir(), "vx-html-"));
const MAX_REPORT_BYTES = 25 * 1024 * 1024;

if (!HAVE_CHROMIUM) console.warn(CHROMIUM_SKIP_MESSAGE);

function readRecords(path: string): ResultRecord[] {
  return readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultRecord);
}

const rowCount = (page: Page) => page.locator("#calls tbody tr").count();

async function setFilter(page: Page, id: string, value: string): Promise<void> {
  await page.selectOption(`#${id}`, value);
}

/** Open the view of the call with this id (through its table row) and count what its lanes drew. */
async function openCall(page: Page, id: string): Promise<{ bars: number; transitions: number; turns: number }> {
  const k = await page.evaluate((callId) => [...document.querySelectorAll("#calls tbody tr")].find((tr) => tr.querySelector("td")?.firstChild?.textContent?.trim() === callId)?.getAttribute("data-k"), id);
  expect(k, `row of ${id}`).toBeTruthy();
  await page.click(`#calls tbody tr[data-k="${k}"]`);
  await page.waitForSelector(`#call-view[data-call="${id}"]`, { state: "attached" });
  return page.evaluate(() => ({
    bars: document.querySelectorAll('#lanes g[aria-description="turns"] > rect').length,
    transitions: document.querySelectorAll('#lanes g[aria-description="transitions"] > *').length,
    turns: document.querySelectorAll("#turn-list .turn").length,
  }));
}

/** Every call's lanes: one bar per timed turn, one marker per transition, one entry per turn. */
async function checkEveryCallView(page: Page, records: ResultRecord[]): Promise<void> {
  for (const r of records.filter((x) => x.status === "ok")) {
    const { entries, transitions } = statsOfTurnRecords(r.turns ?? []);
    const seen = await openCall(page, r.id);
    expect(seen, r.id).toEqual({ bars: entries.length, transitions: transitions.length, turns: (r.turns ?? []).length });
  }
}

describe.skipIf(!HAVE_CHROMIUM)("HTML report in headless Chromium", () => {
  let browser: Browser;
  let sample: ResultRecord[];
  const sampleResults = join(tmp, "sample", "results.jsonl");
  const sampleReport = join(tmp, "sample", "report.html");

  beforeAll(async () => {
    browser = await launchChromium();
    mkdirP(dirname(sampleResults));
    await scoreArchive({ inputs: [ARCHIVE], out: sampleResults, score: { acoustics: true }, pool: { workers: 1 } });
    sample = readRecords(sampleResults);
    await writeHtmlReportOfResults({ results: sampleResults, out: sampleReport, run: { inputs: [ARCHIVE] } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("renders the sample archive: charts drawn, one row per call, each call's lanes, filters, play buttons", async () => {
    const { page, problems } = await openReport(browser, sampleReport);
    const charts = await chartMarks(page);
    // One histogram per metric, latency, interruptions, overlap.
    expect(charts.map((c) => c.chart).sort()).toEqual([...Object.keys(sample[0].metrics!), "latency", "interruptions", "overlap"].sort());
    for (const c of charts) expect(c.marks, c.chart).toBeGreaterThan(0);
    // Every metric's full name is on screen.
    for (const name of Object.keys(sample[0].metrics!)) await expect(page.locator(`.card.metric[data-metric="${name}"] h3`).innerText()).resolves.toContain(name);
    expect(await rowCount(page)).toBe(sample.length);
    // A viewport tall enough for the whole page: rows off screen are not laid out (content-visibility), so a full-page capture of a short viewport shows them blank.
    await page.setViewportSize({ width: 1400, height: 2000 });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: join(screenshotDir(), "overview.png"), fullPage: true });

    // Filters: a metric's failures, a source format, and both reset.
    const failing = sample.filter((r) => r.metrics?.["Audio Integrity"]?.success === false).length;
    await setFilter(page, "f-metric", String(await page.evaluate(() => [...document.querySelectorAll("#f-metric option")].findIndex((o) => o.textContent === "Audio Integrity") - 1)));
    await setFilter(page, "f-outcome", "fail");
    expect(failing).toBeGreaterThan(0);
    expect(await rowCount(page)).toBe(failing);
    await page.click("#f-reset");
    await setFilter(page, "f-format", "dual-channel");
    expect(await rowCount(page)).toBe(sample.filter((r) => r.source.format === "dual-channel").length);
    await page.fill("#f-text", "batch.json");
    expect(await rowCount(page)).toBe(sample.filter((r) => r.source.format === "dual-channel" && r.id.includes("batch.json")).length);
    await page.click("#f-reset");
    expect(await rowCount(page)).toBe(sample.length);

    // Sorting by a metric puts its lowest score first.
    await page.click('#calls th[data-key="m5"]');
    const lowest = Math.min(...sample.map((r) => r.metrics?.[Object.keys(sample[0].metrics!)[5]]?.score ?? Infinity));
    expect(Number(await page.locator("#calls tbody tr:first-child td:nth-child(9)").innerText())).toBeCloseTo(lowest, 3);

    await checkEveryCallView(page, sample);

    // The dual-channel call: play buttons point at the recording by a relative path that exists beside the report.
    const dual = sample.find((r) => r.source.format === "dual-channel")!;
    await openCall(page, dual.id);
    const srcs = await page.locator("#turn-list button.play").evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset.src!));
    expect(srcs).toHaveLength(dual.turns!.length);
    for (const src of srcs) {
      expect(src).not.toMatch(/^(\/|file:|data:|https?:)/);
      expect(existsSync(resolve(dirname(sampleReport), decodeURIComponent(src.replace(/#.*$/, ""))))).toBe(true);
    }
    // The browser loads the linked audio: the recording, positioned at the turn's start by the media fragment.
    const loadAudio = (src: string) => page.evaluate((s) => new Promise<{ ok: boolean; duration?: number; at?: number; error?: string }>((done) => {
      const a = new Audio(s);
      a.onloadedmetadata = () => done({ ok: true, duration: a.duration, at: a.currentTime });
      a.onerror = () => done({ ok: false, error: a.error?.message ?? "error" });
    }), src);
    const t1 = dual.turns![1];
    const fromRecording = await loadAudio(srcs[1]);
    expect(fromRecording.ok, fromRecording.error).toBe(true);
    expect(fromRecording.at).toBeCloseTo(t1.start_time!, 2);
    expect(fromRecording.duration).toBeGreaterThanOrEqual(dual.turns![dual.turns!.length - 1].start_time!);
    // Acoustics and speech segments are shown per turn (the run had --acoustics).
    expect(await page.locator("#turn-list li.acoustics").count()).toBe(dual.turns!.length);
    expect(await page.locator("#turn-list li.segments").count()).toBeGreaterThan(0);
    // … and drawn inside their turns on the lanes.
    const segmentCount = dual.turns!.reduce((s, t) => s + (t.acoustics?.speech_segments.length ?? 0), 0);
    expect(await page.locator('#lanes g[aria-description="speech segments"] > rect').count()).toBe(segmentCount);
    await page.locator("#call-view").screenshot({ path: join(screenshotDir(), "call-view.png") });
    // A test case's own clip, linked by its url.
    const json = sample.find((r) => bareId(r.id) === "order-status.json#0")!;
    await openCall(page, json.id);
    const clipSrc = await page.locator('#turn-list .turn[data-turn="1"] button.play').getAttribute("data-src");
    const clip = await loadAudio(clipSrc!);
    expect(clip.ok, clip.error).toBe(true);
    expect(clip.duration).toBeCloseTo(json.turns!.find((t) => t.index === 1)!.duration!, 1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("lists error records and skipped metrics", async () => {
    const broken = join(tmp, "errors", "broken.json");
    mkdirP(dirname(broken));
    writeFileSync(broken, "{ this is not json");
    const results = join(tmp, "errors", "results.jsonl");
    await scoreArchive({ inputs: [join(ARCHIVE, "calls"), broken, join(tmp, "errors", "missing.json")], out: results, pool: { workers: 1 } });
    const records = readRecords(results);
    const errors = records.filter((r) => r.status === "error");
    expect(errors.length).toBe(2);
    const out = join(tmp, "errors", "report.html");
    await writeHtmlReportOfResults({ results, out });
    const { page, problems } = await openReport(browser, out);
    expect(await rowCount(page)).toBe(records.length);
    const items = await page.locator("#error-list li").allInnerTexts();
    expect(items).toHaveLength(errors.length);
    for (const e of errors) expect(items.some((t) => t.includes(e.id) && t.includes(e.error!.code))).toBe(true);
    // Skipped counts on the cards and skipped cells in the table match the records.
    for (const name of Object.keys(records.find((r) => r.status === "ok")!.metrics!)) {
      const skipped = records.filter((r) => r.metrics?.[name]?.skipped).length;
      expect(await page.locator(`.card.metric[data-metric="${name}"]`).innerText()).toContain(`${skipped} skipped`);
    }
    const skippedCells = records.reduce((s, r) => s + Object.values(r.metrics ?? {}).filter((m) => m.skipped && m.error === null).length, 0);
    expect(await page.locator("#calls td.skip").count()).toBe(skippedCells);
    for (const c of await chartMarks(page)) expect(c.marks, c.chart).toBeGreaterThan(0);
    await setFilter(page, "f-status", "error");
    expect(await rowCount(page)).toBe(errors.length);
    await page.click("#calls tbody tr:first-child");
    const shown = await page.locator("#call-view").getAttribute("data-call");
    const record = errors.find((e) => e.id === shown)!;
    await expect(page.locator("#call-view").innerText()).resolves.toContain(record.error!.message);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a --fail-under run lists the failing metrics first and marks them", async () => {
    const out = join(tmp, "gate", "results.jsonl");
    const html = join(tmp, "gate", "report.html");
    const code = await runCli(["score", ARCHIVE, "--out", out, "--html", html, "--fail-under", "0.5", "--workers", "1"]);
    expect(code).toBe(2);
    const records = readRecords(out);
    const names = Object.keys(records[0].metrics!);
    const mean = (n: string) => {
      const xs = records.flatMap((r) => (r.metrics?.[n] && !r.metrics[n].skipped && r.metrics[n].score !== null ? [r.metrics[n].score!] : []));
      return xs.reduce((s, x) => s + x, 0) / xs.length;
    };
    const failing = names.filter((n) => mean(n) < 0.5);
    expect(failing.length).toBeGreaterThan(0);
    // In the record order they are not first (so the report reorders them).
    expect(names.slice(0, failing.length)).not.toEqual(failing);
    const { page, problems } = await openReport(browser, html);
    const cards = await page.locator(".card.metric").evaluateAll((cs) => cs.map((c) => ({ name: (c as HTMLElement).dataset.metric, gate: c.classList.contains("gate-fail"), badge: c.querySelector(".badge.gate")?.textContent ?? null })));
    expect(cards.slice(0, failing.length).map((c) => c.name)).toEqual(failing);
    for (const c of cards) {
      expect(c.gate, c.name).toBe(failing.includes(c.name!));
      if (c.gate) expect(c.badge).toMatch(/fails --fail-under 0\.5/);
    }
    await expect(page.locator("#header-calls").innerText()).resolves.toContain("FAILED");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("renders a generated 10,000-call archive under 25 MB: all calls reachable through the pages, filters, a call's view", async () => {
    const results = join(tmp, "big", "results.jsonl");
    mkdirP(dirname(results));
    writeGeneratedResults(results, { calls: 10_000, errorEvery: 97, seed: 3 });
    const records = readRecords(results);
    const out = join(tmp, "big", "report.html");
    // Through the CLI command.
    const program = new Command().name("voxmetrics").exitOverride();
    registerReportCommand(program);
    await program.parseAsync(["report", results, "--out", out], { from: "user" });
    expect(statSync(out).size).toBeLessThan(MAX_REPORT_BYTES);
    const { page, problems } = await openReport(browser, out);
    for (const c of await chartMarks(page)) expect(c.marks, c.chart).toBeGreaterThan(0);
    // 1,000 rows per page beyond 1,000 calls; walking the pages shows every call once.
    expect(await page.locator("#pages").innerText()).toBe("10");
    const seen = new Set<string>();
    for (let p = 0; p < 10; p++) {
      if (p > 0) await page.click("#next");
      const ids = await page.locator("#calls tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-k")!));
      expect(ids.length).toBe(1000);
      for (const k of ids) seen.add(k);
    }
    expect(seen.size).toBe(records.length);
    await page.click("#f-reset");
    const skippedTurnTaking = records.filter((r) => r.metrics?.["Turn-Taking Naturalness"]?.skipped).length;
    await setFilter(page, "f-metric", "3");
    await setFilter(page, "f-outcome", "skipped");
    expect(await page.locator("#row-count").innerText()).toBe(String(skippedTurnTaking));
    await page.click("#f-reset");
    await setFilter(page, "f-status", "error");
    expect(await page.locator("#row-count").innerText()).toBe(String(records.filter((r) => r.status === "error").length));
    await page.click("#f-reset");
    const some = records.find((r) => r.status === "ok" && (r.turns?.length ?? 0) >= 10)!;
    await page.fill("#f-text", some.id);
    const { entries, transitions } = statsOfTurnRecords(some.turns!);
    expect(await openCall(page, some.id)).toEqual({ bars: entries.length, transitions: transitions.length, turns: some.turns!.length });
    expect(problems).toEqual([]);
    await page.close();
  }, 300_000);

  it("draws the view of a 1-hour call with every turn", async () => {
    const results = join(tmp, "long", "results.jsonl");
    mkdirP(dirname(results));
    const call = generateCall("one-hour", 1000, seededRandom(9), true);
    const turns = call.turns!;
    expect(turns[turns.length - 1].start_time!).toBeGreaterThan(3000);
    writeFileSync(results, JSON.stringify(call) + "\n");
    const out = join(tmp, "long", "report.html");
    await writeHtmlReportOfResults({ results, out });
    const { page, problems } = await openReport(browser, out);
    const { entries, transitions } = statsOfTurnRecords(turns);
    expect(await openCall(page, "one-hour")).toEqual({ bars: entries.length, transitions: transitions.length, turns: 1000 });
    expect(problems).toEqual([]);
    await page.close();
  });
});

function mkdirP(dir: string): void {
  mkdirSync(dir, { recursive: true });
}
