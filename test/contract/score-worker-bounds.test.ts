// Per-worker bounds on the recording path of `score`: a dual-channel call that needs more JavaScript heap than --worker-heap-mb, or whose decode never ends, is one error record naming it, and the rest of the batch is scored.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeLongRecording } from "../helpers/long-recording.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { FFMPEG } from "../helpers/tools.js";
import { jsonLines, runBuiltCli } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "vx-score-bounds-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two short dual-channel recordings with turns on both channels.
writeLongRecording(join(dir, "heavy.wav"), { seconds: 20, sampleRate: 8000, seed: 3 });
writeLongRecording(join(dir, "fine.wav"), { seconds: 20, sampleRate: 8000, seed: 4 });

function byId(stdout: string): Map<string, Record<string, any>> {
  return new Map(jsonLines(stdout).map((r) => [bareId(r.id), r]));
}

describe("--worker-heap-mb on the recording path", () => {
  it("a sidecar too big for the worker's heap is one LIMIT_EXCEEDED record naming it (not a crash of the process); the next recording is scored", () => {
    // The sidecar's transcript (F5.3) is parsed in the worker: 600,000 segments (40 MB of JSON) need far more than 24 MB of heap.
    const transcript = Array.from({ length: 600_000 }, (_, k) => ({ role: k % 2 ? "assistant" : "user", start: k / 100, end: k / 100 + 0.005, text: `w${k}` }));
    writeFileSync(join(dir, "heavy.json"), JSON.stringify({ transcript }));
    const small = runBuiltCli(["score", "--workers", "1", "--worker-heap-mb", "24", "heavy.wav", "fine.wav"], { cwd: dir, timeoutMs: 120_000 });
    expect(small.signal).toBeNull();
    const records = byId(small.stdout);
    expect(records.size).toBe(2);
    expect(records.get("heavy.wav")!).toMatchObject({ status: "error", source: { format: "dual-channel", path: "heavy.wav" }, error: { code: "LIMIT_EXCEEDED" } });
    expect(records.get("heavy.wav")!.error.message).toMatch(/^heavy\.json: the sidecar JSON is 38\.9 MB; reading it needs about 155\.7 MB of heap, more than the [\d.]+ MB this worker has left \(--worker-heap-mb\)$/);
    expect(records.get("fine.wav")!.status).toBe("ok");
    expect(records.get("fine.wav")!.turns.length).toBeGreaterThan(3);

    // Under the default heap the same call is scored, its transcript read: it was the limit, not the input, that refused it.
    const roomy = byId(runBuiltCli(["score", "--workers", "1", "heavy.wav"], { cwd: dir, timeoutMs: 120_000 }).stdout);
    expect(roomy.get("heavy.wav")!.status).toBe("ok");
    rmSync(join(dir, "heavy.json"));
  }, 240_000);

  it("a recording of many short turns stays within a 12 MB worker heap (audio and clips live outside it)", () => {
    writeLongRecording(join(dir, "many.wav"), { seconds: 600, sampleRate: 8000, seed: 5, burst: [0.35, 0.5], pause: [0.2, 0.35] });
    const records = byId(runBuiltCli(["score", "--workers", "1", "--worker-heap-mb", "12", "many.wav", "fine.wav"], { cwd: dir, timeoutMs: 120_000 }).stdout);
    expect(records.get("many.wav")!.status).toBe("ok");
    expect(records.get("many.wav")!.turns.length).toBeGreaterThan(500);
    expect(records.get("fine.wav")!.status).toBe("ok");
    rmSync(join(dir, "many.wav"));
  }, 120_000);
});

describe.skipIf(!FFMPEG)("--call-timeout on a compressed dual-channel recording", () => {
  it("a recording whose decode never ends is one CALL_TIMEOUT record naming it; the next recording is scored", () => {
    execFileSync(FFMPEG!, ["-hide_banner", "-loglevel", "error", "-i", join(dir, "heavy.wav"), "-c:a", "flac", "-y", join(dir, "stuck.flac")]);
    // An "ffmpeg" that never answers (exec: the sleep is the child that gets killed).
    const stuck = join(dir, "stuck-ffmpeg");
    writeFileSync(stuck, "#!/bin/sh\nexec sleep 60\n");
    chmodSync(stuck, 0o755);
    // The stopped worker never cleans its temporary decode up; the process does when it exits.
    const spill = mkdtempSync(join(tmpdir(), "vx-score-bounds-tmp-"));
    const run = runBuiltCli(["score", "--workers", "1", "--call-timeout", "2", "stuck.flac", "fine.wav"], { cwd: dir, env: { FFMPEG_PATH: stuck, TMPDIR: spill }, timeoutMs: 60_000 });
    expect(readdirSync(spill)).toEqual([]);
    rmSync(spill, { recursive: true });
    expect(run.signal).toBeNull();
    const records = byId(run.stdout);
    expect(records.size).toBe(2);
    expect(records.get("stuck.flac")!.error).toEqual({ code: "CALL_TIMEOUT", message: "stuck.flac: scoring did not finish within 2 s (--call-timeout); its worker was stopped" });
    expect(records.get("fine.wav")!.status).toBe("ok");
    expect(readdirSync(dir).sort()).toEqual(["fine.wav", "heavy.wav", "stuck-ffmpeg", "stuck.flac"]);
  }, 90_000);
});
