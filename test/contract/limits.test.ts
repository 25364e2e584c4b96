// Bounded resources: the decoded-size budget (--max-audio-seconds, --max-channels) checked on the header and during decoding, the rule against decoding far beyond the declared length, --call-timeout and the worker heap limit; each costs one error record.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio, writeWavPcm16 } from "../../src/index.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";
import { FFMPEG } from "../helpers/tools.js";
import { jsonLines, runBuiltCli, speechLike, wavBytes } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "vx-limits-"));
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, bytes: Uint8Array | string) => (writeFileSync(join(dir, name), bytes), name);

const stereo = (() => {
  const mono = speechLike(16000, 1);
  const out = new Int16Array(mono.length * 2);
  mono.forEach((v, i) => ((out[2 * i] = v), (out[2 * i + 1] = v >> 1)));
  return out;
})();
write("ok.wav", writeWavPcm16(speechLike(16000, 1), 16000));
write("stereo.wav", writeWavPcm16(stereo, 16000, 2));
write("one.json", JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "ok.wav", start_time: 0 } }] }));

describe("channel budget", () => {
  it("a header declaring 65,535 channels: one small record, refused before decoding, in analyze and score", () => {
    write("ch65535.wav", wavBytes({ channels: 65535, data: new Uint8Array(65535 * 2 * 20) }));
    const analyze = runBuiltCli(["analyze", "--json", "ch65535.wav", "ok.wav"], { cwd: dir });
    const lines = analyze.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0].length).toBeLessThan(400);
    expect(JSON.parse(lines[0]).error).toEqual({ code: "LIMIT_EXCEEDED", message: "ch65535.wav: the WAV header declares 65535 channels, more than the limit of 32 (--max-channels)" });
    expect(JSON.parse(lines[1]).status).toBe("ok");

    const [record] = jsonLines(runBuiltCli(["score", "--workers", "0", "ch65535.wav"], { cwd: dir }).stdout);
    expect(record).toMatchObject({ id: expect.stringMatching(/^ch65535\.wav@[0-9a-f]{10}$/), status: "error", error: { code: "LIMIT_EXCEEDED" } });
    expect(record.error.message).toMatch(/ch65535\.wav: the WAV header declares 65535 channels, more than the limit of 32 \(--max-channels\)/);
  }, 60_000);

  it("--max-channels 1 refuses a stereo file; the default accepts it", () => {
    const [refused] = jsonLines(runBuiltCli(["analyze", "--json", "--max-channels", "1", "stereo.wav"], { cwd: dir }).stdout);
    expect(refused.error.message).toBe("stereo.wav: the WAV header declares 2 channels, more than the limit of 1 (--max-channels)");
    const [accepted] = jsonLines(runBuiltCli(["analyze", "--json", "stereo.wav"], { cwd: dir }).stdout);
    expect(accepted.status).toBe("ok");
  }, 60_000);

  it("the library default is the documented one and options are validated", () => {
    const bytes = wavBytes({ channels: 33, data: new Uint8Array(33 * 2 * 4) });
    expect(() => decodeAudio(bytes, { name: "x.wav" })).toThrow("x.wav: the WAV header declares 33 channels, more than the limit of 32 (--max-channels)");
    expect(decodeAudio(bytes, { limits: { maxChannels: 33 } }).channels).toBe(33);
    expect(() => decodeAudio(bytes, { limits: { maxChannels: 0 } })).toThrow(/maxChannels: must be a positive integer, got 0/);
  });
});

describe("duration budget", () => {
  it("a PCM WAV longer than --max-audio-seconds is refused from its header", () => {
    const [r] = jsonLines(runBuiltCli(["analyze", "--json", "--max-audio-seconds", "0.5", "ok.wav"], { cwd: dir }).stdout);
    expect(r.error).toEqual({ code: "LIMIT_EXCEEDED", message: "ok.wav: the WAV holds 1 s of audio, more than the limit of 0.5 s (--max-audio-seconds)" });
  }, 60_000);

  it.skipIf(!FFMPEG)("an MP3 (length unknown until decoded) stops decoding just past --max-audio-seconds", () => {
    execFileSync(FFMPEG!, ["-loglevel", "error", "-f", "lavfi", "-i", "sine=f=300:d=40", "-y", join(dir, "s40.mp3")]);
    const [r, whole] = jsonLines(runBuiltCli(["analyze", "--json", "--max-audio-seconds", "30", "s40.mp3", "ok.wav"], { cwd: dir }).stdout);
    expect(r.error).toEqual({ code: "LIMIT_EXCEEDED", message: "s40.mp3: not a RIFF/WAVE file; it decodes to more than the limit of 30 s (--max-audio-seconds)" });
    expect(whole.status).toBe("ok");
    const [fits] = jsonLines(runBuiltCli(["analyze", "--json", "--set", "parity", "s40.mp3"], { cwd: dir }).stdout);
    expect(fits.duration).toBeCloseTo(40, 1);
  }, 60_000);

  it.skipIf(!FFMPEG)("decompression rule: a compressed WAV decoding far beyond the length its header declares is refused; an honest one is read", () => {
    const data = new Uint8Array(8000 * 40).map((_, i) => (i * 37) & 0xff);
    write("mulaw-lying.wav", wavBytes({ tag: 7, bits: 8, rate: 8000, data, byteRate: 80000 }));
    write("mulaw-honest.wav", wavBytes({ tag: 7, bits: 8, rate: 8000, data }));
    const [lying, honest] = jsonLines(runBuiltCli(["analyze", "--json", "--set", "parity", "mulaw-lying.wav", "mulaw-honest.wav"], { cwd: dir }).stdout);
    expect(lying.error).toEqual({ code: "LIMIT_EXCEEDED", message: "mulaw-lying.wav: WAV format tag 7 with 8-bit samples; it decodes to more than 26 s, but its header declares 4 s (a decompression bomb?)" });
    expect(honest.status).toBe("ok");
    expect(honest.duration).toBe(40);
  }, 60_000);
});

describe("the budget in score: a recording over it is one record, a test case's clip over it is that turn's measurement error", () => {
  const twoParty = (() => {
    // 3 s, the user speaking on the left for the first half, the agent on the right for the second.
    const mono = speechLike(16000, 3);
    const out = new Int16Array(mono.length * 2);
    mono.forEach((v, i) => ((out[2 * i] = i < mono.length / 2 ? v : 0), (out[2 * i + 1] = i >= mono.length / 2 ? v : 0)));
    return out;
  })();
  write("two-party.wav", writeWavPcm16(twoParty, 16000, 2));
  write("long-clip.json", JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "two-party.wav", start_time: 0 } }, { role: "assistant", content: "yes", audio: { url: "ok.wav", start_time: 0 } }] }));

  it.each(["0", "1"])("--max-audio-seconds and --max-channels (workers %s): the dual-channel recording is a LIMIT_EXCEEDED record naming it and the flag; under the default it is scored", (workers) => {
    const refused = (flags: string[]) => {
      const run = runBuiltCli(["score", "--workers", workers, ...flags, "two-party.wav", "one.json"], { cwd: dir });
      expect(run.signal).toBeNull();
      const byId = new Map(jsonLines(run.stdout).map((r) => [bareId(r.id), r]));
      expect(byId.size).toBe(2);
      expect(byId.get("one.json#0")!.status).toBe("ok");
      return byId.get("two-party.wav")!;
    };
    expect(refused(["--max-audio-seconds", "1"]).error).toEqual({ code: "LIMIT_EXCEEDED", message: "two-party.wav: the WAV holds 3 s of audio, more than the limit of 1 s (--max-audio-seconds)" });
    expect(refused(["--max-channels", "1"]).error).toEqual({ code: "LIMIT_EXCEEDED", message: "two-party.wav: the WAV header declares 2 channels, more than the limit of 1 (--max-channels)" });
    const scored = refused([]);
    expect(scored.status).toBe("ok");
    expect(scored.turns.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("a test case's clip over --max-audio-seconds or --max-channels: the call is scored, that turn's measurements name the clip and the flag", () => {
    for (const [flags, why] of [
      [["--max-audio-seconds", "2"], "the WAV holds 3 s of audio, more than the limit of 2 s (--max-audio-seconds)"],
      [["--max-channels", "1"], "the WAV header declares 2 channels, more than the limit of 1 (--max-channels)"],
    ] as const) {
      const [record] = jsonLines(runBuiltCli(["score", "--workers", "0", ...flags, "long-clip.json"], { cwd: dir }).stdout);
      expect(record.status, why).toBe("ok");
      expect(record.turns[0].measurements).toEqual({ error: "Audio is not a decodable PCM WAV.", detail: `${join(dir, "two-party.wav")}: ${why}` });
      expect(record.turns[1].measurements.duration).toBe(1);
    }
    // Under the defaults the same clip is measured: it was the limit, not the clip, that refused it.
    const [whole] = jsonLines(runBuiltCli(["score", "--workers", "0", "long-clip.json"], { cwd: dir }).stdout);
    expect(whole.turns[0].measurements.duration).toBe(3);
  }, 60_000);

  it("a header declaring 65,535 channels named by a test case's url: that turn's measurement error, the call is scored", () => {
    write("ch65535-clip.wav", wavBytes({ channels: 65535, data: new Uint8Array(65535 * 2 * 4) }));
    write("wide.json", JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "ch65535-clip.wav", start_time: 0 } }, { role: "assistant", content: "yes", audio: { url: "ok.wav", start_time: 0 } }] }));
    const run = runBuiltCli(["score", "--workers", "0", "wide.json"], { cwd: dir });
    const [record, ...rest] = jsonLines(run.stdout);
    expect(rest).toEqual([]);
    expect(record.status).toBe("ok");
    expect(record.turns[0].measurements).toEqual({ error: "Audio is not a decodable PCM WAV.", detail: `${join(dir, "ch65535-clip.wav")}: the WAV header declares 65535 channels, more than the limit of 32 (--max-channels)` });
    expect(JSON.stringify(record).length).toBeLessThan(20_000);
  }, 60_000);
});

describe.skipIf(!FFMPEG)("a real decompression bomb: WMA v2 (format tag 0x161) in a WAV whose header declares 2 s of five minutes", () => {
  /** ffmpeg's wmav2 packets in a WAV (tag 0x161), then the average byte rate patched so that the data declares 2 s, as a bomb does. */
  function wmaBomb(name: string, channels: number): { declared: number } {
    const path = join(dir, name);
    execFileSync(FFMPEG!, ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=220:d=300:sample_rate=16000", "-ac", String(channels), "-c:a", "wmav2", "-b:a", "32k", "-f", "wav", path]);
    const b = readFileSync(path);
    expect(b.readUInt16LE(20)).toBe(0x161);
    let at = 12;
    while (b.toString("latin1", at, at + 4) !== "data") at += 8 + b.readUInt32LE(at + 4) + (b.readUInt32LE(at + 4) & 1);
    const dataBytes = b.readUInt32LE(at + 4);
    expect(dataBytes).toBeGreaterThan(500_000);
    b.writeUInt32LE(Math.floor(dataBytes / 2), 28);
    writeFileSync(path, b);
    return { declared: 2 };
  }
  const message = (name: string) => `${name}: WAV format tag 353 with 16-bit samples; it decodes to more than 18 s, but its header declares 2 s (a decompression bomb?)`;

  it("analyze: one LIMIT_EXCEEDED record naming the file and the declared and decoded seconds; the next file is measured", () => {
    wmaBomb("bomb-mono.wav", 1);
    const run = runBuiltCli(["analyze", "--json", "bomb-mono.wav", "ok.wav"], { cwd: dir });
    expect(run.signal).toBeNull();
    const [bomb, next, ...rest] = jsonLines(run.stdout);
    expect(rest).toEqual([]);
    expect(bomb).toMatchObject({ path: "bomb-mono.wav", status: "error", error: { code: "LIMIT_EXCEEDED", message: message("bomb-mono.wav") } });
    expect(next).toMatchObject({ path: "ok.wav", status: "ok" });
  }, 60_000);

  it("score: the dual-channel bomb is one LIMIT_EXCEEDED record; the call after it is scored", () => {
    wmaBomb("bomb-stereo.wav", 2);
    const run = runBuiltCli(["score", "--workers", "0", "bomb-stereo.wav", "one.json"], { cwd: dir });
    expect(run.signal).toBeNull();
    const records = jsonLines(run.stdout);
    expect(records).toHaveLength(2);
    const byId = new Map(records.map((r) => [bareId(r.id), r]));
    expect(byId.get("bomb-stereo.wav")!.status).toBe("error");
    expect(byId.get("bomb-stereo.wav")!.error.code).toBe("LIMIT_EXCEEDED");
    expect(byId.get("bomb-stereo.wav")!.error.message).toContain(message("bomb-stereo.wav"));
    expect(byId.get("one.json#0")!.status).toBe("ok");
  }, 60_000);

  it("score: the bomb named by a test case's url is that turn's measurement error naming it; the call is scored", () => {
    wmaBomb("bomb-clip.wav", 1);
    write("bomb-call.json", JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "bomb-clip.wav", start_time: 0 } }, { role: "assistant", content: "yes", audio: { url: "ok.wav", start_time: 0 } }] }));
    const run = runBuiltCli(["score", "--workers", "1", "bomb-call.json"], { cwd: dir });
    expect(run.signal).toBeNull();
    const [record, ...rest] = jsonLines(run.stdout);
    expect(rest).toEqual([]);
    expect(record.status).toBe("ok");
    expect(record.turns[0].measurements).toEqual({ error: "Audio is not a decodable PCM WAV.", detail: message(join(dir, "bomb-clip.wav")) });
    expect(record.turns[1].measurements.duration).toBe(1);
  }, 60_000);
});

describe("--call-timeout: a stuck decode cannot stall a run", () => {
  // An "ffmpeg" that never answers (exec: the sleep is the child that gets killed).
  const stuck = join(dir, "stuck-ffmpeg");
  writeFileSync(stuck, "#!/bin/sh\nexec sleep 60\n");
  chmodSync(stuck, 0o755);
  write("noise.mp3", new Uint8Array(4096).map((_, i) => (i * 7919) % 251));
  write("stuck.json", JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url: "noise.mp3", start_time: 0 } }] }));

  it("in a worker: the stuck call is one CALL_TIMEOUT record; the call queued behind it is scored", () => {
    const run = runBuiltCli(["score", "--workers", "1", "--call-timeout", "2", "stuck.json", "one.json"], { cwd: dir, env: { FFMPEG_PATH: stuck }, timeoutMs: 40_000 });
    expect(run.signal).toBeNull();
    const byId = new Map(jsonLines(run.stdout).map((r) => [bareId(r.id), r]));
    expect(byId.get("stuck.json#0")!.error).toEqual({ code: "CALL_TIMEOUT", message: "stuck.json: scoring did not finish within 2 s (--call-timeout); its worker was stopped" });
    expect(byId.get("one.json#0")!.status).toBe("ok");
  }, 60_000);

  it("with --workers 0: ffmpeg is killed a second after the timeout and the clip is a measurement error", () => {
    const run = runBuiltCli(["score", "--workers", "0", "--call-timeout", "1", "stuck.json"], { cwd: dir, env: { FFMPEG_PATH: stuck }, timeoutMs: 40_000 });
    const [record] = jsonLines(run.stdout);
    expect(record.status).toBe("ok");
    expect(record.turns[0].measurements).toEqual({ error: "Audio is not a decodable PCM WAV.", detail: `${join(dir, "noise.mp3")}: not a RIFF/WAVE file; ffmpeg did not finish decoding within 2 s` });
  }, 60_000);
});

describe("worker heap limit", () => {
  it("an input needing more heap than --worker-heap-mb is one WORKER_CRASHED record; the other call is scored", () => {
    const many = Array.from({ length: 600_000 }, (_, k) => ({ k }));
    write("heavy.json", JSON.stringify({ turns: [{ role: "user", content: "x", metadata: { many } }] }));
    const run = runBuiltCli(["score", "--workers", "1", "--worker-heap-mb", "24", "heavy.json", "one.json"], { cwd: dir, timeoutMs: 90_000 });
    expect(run.signal).toBeNull();
    const byId = new Map(jsonLines(run.stdout).map((r) => [bareId(r.id), r]));
    expect(byId.get("heavy.json#0")!.error.code).toBe("WORKER_CRASHED");
    expect(byId.get("heavy.json#0")!.error.message).toMatch(/^heavy\.json: the worker scoring this call died 2 time\(s\) \(.*memory limit/);
    expect(byId.get("one.json#0")!.status).toBe("ok");
  }, 120_000);
});
