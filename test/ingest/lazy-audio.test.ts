// Audio named by a local url (deepeval JSON, the library's `new Audio({ url })`): the file is checked when the url resolves, with the same errors as before, but its bytes are read only when asked for and never kept.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { parseDeepevalJsonText } from "../../src/ingest/formats/deepeval-json.js";
import { Audio } from "../../src/model/audio.js";

let dir = "";
const wavA = writeWavPcm16(Int16Array.from({ length: 800 }, (_, i) => i), 8000);
const wavB = writeWavPcm16(Int16Array.from({ length: 400 }, (_, i) => -i), 8000);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vox-lazy-audio-"));
  mkdirSync(join(dir, "calls"));
  mkdirSync(join(dir, "clips"));
  writeFileSync(join(dir, "clips", "a.wav"), wavA);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function parse(url: string) {
  const text = JSON.stringify({ turns: [{ role: "user", content: "hi", audio: { url, start_time: 0 } }] });
  return parseDeepevalJsonText(text, join(dir, "calls", "case.json"));
}

describe("a url-backed Audio reads its file lazily", () => {
  it("resolves ../ urls as deepeval does, keeps the path, and reads the bytes at each getBytes() (never holding them)", () => {
    const [r] = parse("../clips/a.wav");
    expect(r.ok).toBe(true);
    const audio = r.testCase!.turns[0].audio!;
    expect([audio.path, audio.local, audio.filename, audio.mimeType, audio.readsFile, audio.hasBytes]).toEqual([join(dir, "clips", "a.wav"), true, "a.wav", "audio/wav", true, true]);
    expect(Buffer.from(audio.getBytes()).equals(Buffer.from(wavA))).toBe(true);
    // The file changes after the test case was read: the next read sees the new bytes (nothing was kept).
    writeFileSync(join(dir, "clips", "a.wav"), wavB);
    expect(Buffer.from(audio.getBytes()).equals(Buffer.from(wavB))).toBe(true);
    expect(audio.getBase64()).toBe(Buffer.from(wavB).toString("base64"));
    // The dump stays deepeval's: a url, no bytes.
    expect(audio.toJSON().dataBase64).toBeNull();
    writeFileSync(join(dir, "clips", "a.wav"), wavA);
  });

  it("a file gone by the time it is read is the file system's error at getBytes()", () => {
    writeFileSync(join(dir, "clips", "gone.wav"), wavA);
    const [r] = parse("../clips/gone.wav");
    rmSync(join(dir, "clips", "gone.wav"));
    expect(() => r.testCase!.turns[0].audio!.getBytes()).toThrow(/ENOENT/);
  });

  it("keeps the errors of reading the test case: missing file, folder, bad http url", () => {
    const [missing] = parse("../clips/none.wav");
    expect(missing.ok).toBe(false);
    expect(missing.error!.code).toBe("AUDIO_NOT_FOUND");
    expect(missing.error!.message).toContain(`Audio file not found: ${join(dir, "clips", "none.wav")}`);
    expect(missing.error!.field).toBe("turns[0].audio.url");
    const [folder] = parse("../clips");
    expect([folder.ok, folder.error?.code, folder.error?.field]).toEqual([false, "AUDIO_NOT_FOUND", "turns[0].audio.url"]);
  });

  it("the library's new Audio({ url }) reads lazily too, relative to baseDir", () => {
    const audio = new Audio({ url: "clips/a.wav" }, { baseDir: dir });
    expect([audio.path, audio.readsFile]).toEqual([join(dir, "clips", "a.wav"), true]);
    expect(Buffer.from(audio.getBytes()).equals(Buffer.from(wavA))).toBe(true);
    expect(() => new Audio({ url: "clips/none.wav" }, { baseDir: dir })).toThrow(/Invalid remote URL format/);
    // Inline bytes are held, as before.
    const inline = Audio.fromBytes(wavA, "audio/wav");
    expect([inline.path, inline.readsFile, inline.getBytes()]).toEqual([null, false, wavA]);
  });
});
