// Per-input contract, sample rates: rates outside the kernels' range and the low rates where YIN's decimation failed are one clear record each, in analyze and in score; the batch goes on.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { jsonLines, runBuiltCli, speechLike, wavBytes } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "vx-rates-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, bytes: Uint8Array) => (writeFileSync(join(dir, name), bytes), name);
const at = (rate: number, seconds = 3) => wavBytes({ rate, data: speechLike(rate, seconds) });

// Every test below reads these, so that each runs alone (vitest -t) as well as in order.
write("r500.wav", at(500));
write("r800k.wav", at(800_000, 0.2));
write("r2g.wav", wavBytes({ rate: 2 ** 31, data: speechLike(8000, 0.5) }));
write("r4g.wav", wavBytes({ rate: 2 ** 32 - 1, data: speechLike(8000, 0.5) }));
write("ok.wav", at(16000));
for (const rate of [1000, 1200, 1500, 1700, 2000]) write(`low-${rate}.wav`, at(rate));
const call = (clip: string) => JSON.stringify({ name: clip, turns: [{ role: "user", content: "hi", audio: { url: clip, start_time: 0 } }, { role: "assistant", content: "yes", audio: { url: "ok.wav", start_time: 4 } }] });
writeFileSync(join(dir, "calls.jsonl"), ["r500.wav", "r800k.wav", "r2g.wav"].map(call).join("\n") + "\n");

describe("sample rates outside the kernels' range", () => {
  it("analyze: each of 500 Hz, 800 kHz and 2³¹ Hz is one error record naming the file; the file after them is measured", () => {
    const files = ["r500.wav", "r800k.wav", "r2g.wav", "ok.wav"];
    const run = runBuiltCli(["analyze", "--json", ...files], { cwd: dir });
    expect(run.code).toBe(1);
    const records = jsonLines(run.stdout);
    expect(records.map((r) => [r.path, r.status])).toEqual([["r500.wav", "error"], ["r800k.wav", "error"], ["r2g.wav", "error"], ["ok.wav", "ok"]]);
    expect(records[0].error).toEqual({ code: "UNSUPPORTED_INPUT", message: "r500.wav: sample rate 500 Hz is outside 1000–768000 Hz, the range the standards set measures (--set parity measures it)" });
    expect(records[0]).toMatchObject({ sample_rate: 500, channels: 1, format: "wav/pcm16" });
    expect(records[1].error.message).toMatch(/^r800k\.wav: sample rate 800000 Hz is outside 1000–768000 Hz/);
    expect(records[2].error).toEqual({ code: "LIMIT_EXCEEDED", message: "r2g.wav: the WAV header declares a sample rate of 2147483648 Hz, above 2147483647 Hz (the most any measurement handles)" });
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/);
  }, 60_000);

  it("analyze --set parity: 500 Hz is measured, 2³¹ Hz and 2³² − 1 Hz are still one error record each", () => {
    const run = runBuiltCli(["analyze", "--json", "--set", "parity", "r500.wav", "r2g.wav", "r4g.wav"], { cwd: dir });
    const [low, huge, top] = jsonLines(run.stdout);
    expect(top.error).toEqual({ code: "LIMIT_EXCEEDED", message: "r4g.wav: the WAV header declares a sample rate of 4294967295 Hz, above 2147483647 Hz (the most any measurement handles)" });
    expect(low.status).toBe("ok");
    expect(low.measurements.duration).toBe(3);
    expect(huge.status).toBe("error");
    expect(huge.error.code).toBe("LIMIT_EXCEEDED");
  }, 60_000);

  it("score: clips at those rates keep their call scored; the standards set names the clip it cannot measure", () => {
    const run = runBuiltCli(["score", "--workers", "0", "--acoustics", "calls.jsonl"], { cwd: dir });
    expect(run.code).toBe(0);
    const records = jsonLines(run.stdout);
    expect(records.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(records[0].turns[0].acoustics_error).toBe(`${join(dir, "r500.wav")}: sample rate 500 Hz is outside 1000–768000 Hz, the range the standards set measures`);
    expect(records[0].turns[0].measurements.duration).toBe(3);
    expect(records[0].turns[1].acoustics.integrated_lufs).toEqual(expect.any(Number));
    expect(records[1].turns[0].acoustics_error).toMatch(/r800k\.wav: sample rate 800000 Hz is outside/);
    expect(records[2].turns[0].measurements).toEqual({ error: "Audio is not a decodable PCM WAV.", detail: expect.stringMatching(/r2g\.wav: the WAV header declares a sample rate of 2147483648 Hz/) });
    expect(records[2].metrics["Audio Integrity"].score).toBe(0);
  }, 60_000);

  it("score without --acoustics, in a worker: the same calls are scored (never an INTERNAL error for the call); the 2³¹ Hz clip is its turn's measurement error", () => {
    const run = runBuiltCli(["score", "--workers", "1", "calls.jsonl"], { cwd: dir });
    expect(run.code).toBe(0);
    const records = jsonLines(run.stdout);
    expect(records.map((r) => [r.name, r.status, r.error])).toEqual([["r500.wav", "ok", null], ["r800k.wav", "ok", null], ["r2g.wav", "ok", null]]);
    expect(records[0].turns[0].measurements.duration).toBe(3);
    expect(records[1].turns[0].measurements.duration).toBeCloseTo(0.2, 9);
    expect(records[2].turns[0].measurements.detail).toMatch(/r2g\.wav: the WAV header declares a sample rate of 2147483648 Hz, above 2147483647 Hz/);
    for (const r of records) expect(r.turns[1].measurements.duration).toBe(3);
  }, 60_000);
});

describe("dual-channel recordings outside the standards range", () => {
  it("score: a stereo recording at 999 Hz is one UNSUPPORTED_INPUT record naming the file (was a KERNEL_ERROR without it)", () => {
    const mono = speechLike(999, 2);
    const stereo = new Int16Array(mono.length * 2);
    mono.forEach((v, i) => ((stereo[2 * i] = v), (stereo[2 * i + 1] = v >> 1)));
    write("stereo-999.wav", wavBytes({ rate: 999, channels: 2, data: stereo }));
    const [record] = jsonLines(runBuiltCli(["score", "--workers", "0", "stereo-999.wav"], { cwd: dir }).stdout);
    expect(record.error).toEqual({ code: "UNSUPPORTED_INPUT", message: "stereo-999.wav: sample rate 999 Hz is outside 1000–768000 Hz, the range the standards set measures (a recording's turns are found by speech activity)" });
  }, 60_000);
});

describe("low rates where YIN's low-pass sat above Nyquist (yinDecimate status -1)", () => {
  it("analyze measures 1,000–2,000 Hz; where speech is found, so is its pitch", () => {
    const files = [1000, 1200, 1500, 1700, 2000].map((rate) => `low-${rate}.wav`);
    const run = runBuiltCli(["analyze", "--json", ...files], { cwd: dir });
    expect(run.stderr).toBe("");
    const records = jsonLines(run.stdout);
    expect(records).toHaveLength(5);
    for (const r of records) {
      expect(r.status, r.path).toBe("ok");
      if (r.acoustics.speech_ratio > 0) expect(r.acoustics.pitch.median_hz, r.path).toBeCloseTo(150, -1);
    }
    // The rates that used to fail in yinDecimate (speech found, so pitch tracking ran).
    expect(records.filter((r) => r.acoustics.speech_ratio > 0).map((r) => r.sample_rate)).toEqual(expect.arrayContaining([1200, 1700]));
  }, 60_000);

  it("score --acoustics scores the call instead of a KERNEL_ERROR", () => {
    writeFileSync(join(dir, "low.json"), JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "low-1200.wav", start_time: 0 } }] }));
    const [record] = jsonLines(runBuiltCli(["score", "--workers", "0", "--acoustics", "low.json"], { cwd: dir }).stdout);
    expect(record.status).toBe("ok");
    expect(record.turns[0].acoustics.pitch.median_hz).toBeCloseTo(150, -1);
  }, 60_000);
});
