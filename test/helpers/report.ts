// Measured figures a test can print (WER, loudness against ffmpeg, latency accuracy…): only when VOXMETRICS_TEST_REPORT is set, so `npm test` stays quiet on success.
export const REPORTING = Boolean(process.env.VOXMETRICS_TEST_REPORT);

/** Print a line of measured figures when VOXMETRICS_TEST_REPORT is set (`VOXMETRICS_TEST_REPORT=1 npx vitest run …`). */
export function report(...parts: unknown[]): void {
  if (REPORTING) process.stdout.write(`${parts.map(String).join(" ")}\n`);
}
