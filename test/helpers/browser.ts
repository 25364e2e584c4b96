// Headless Chromium for the HTML report tests and benchmark: the Debian package driven by playwright-core (no browser download); absent → tests skip with a message.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { REPO_ROOT } from "./shared.js";

/** The Chromium binary: $CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM_PATH);
export const CHROMIUM_SKIP_MESSAGE = `Chromium not found at ${CHROMIUM_PATH} (install the Debian package \`chromium\` or set CHROMIUM_PATH): HTML report browser tests skipped`;

/** Screenshots of the rendered report, kept as CI artifacts (named in the README). */
export const SCREENSHOT_DIR = join(REPO_ROOT, "test-artifacts", "html-report");

export function screenshotDir(): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return SCREENSHOT_DIR;
}

export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox", "--disable-gpu"] });
}

export interface OpenedReport {
  page: Page;
  /** Console errors, page errors and failed requests seen so far. */
  problems: string[];
}

/** Open a report file and wait until its page script marks it ready. */
export async function openReport(browser: Browser, path: string, viewport = { width: 1400, height: 1000 }): Promise<OpenedReport> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
  await page.goto(`file://${path}`, { waitUntil: "load", timeout: 60_000 });
  await page.waitForSelector("body[data-ready=true]", { state: "attached", timeout: 60_000 });
  return { page, problems };
}

/** Per chart figure: its name and how many mark elements (bars, rects, dots, links) it drew. */
export async function chartMarks(page: Page, scope = "body"): Promise<Array<{ chart: string; marks: number }>> {
  return page.evaluate((sel) => {
    const MARKS = ["rect", "bar", "dot", "link"].map((m) => `g[aria-label="${m}"] > *`).join(",");
    return [...document.querySelectorAll(`${sel} figure.chart`)].map((f) => ({ chart: (f as HTMLElement).dataset.chart ?? "", marks: f.querySelectorAll(MARKS).length }));
  }, scope);
}
