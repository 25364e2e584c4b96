// The one extension → MIME map: urls, simulation turn files and data: URIs get the same type for the same extension.
import { describe, expect, it } from "vitest";
import { Audio, guessMimeType } from "../../src/model/audio.js";

describe("guessMimeType", () => {
  it.each([
    ["call.wav", "audio/wav"], ["CALL.WAV", "audio/wav"], ["a.wave", "audio/wav"], ["wav", "audio/wav"], ["x/y.mp3", "audio/mpeg"],
    ["mp3", "audio/mpeg"], ["a.opus", "audio/opus"], ["a.oga", "audio/ogg"], ["a.m4a", "audio/mp4"], ["pcm", "audio/pcm"],
  ])("%s → %s", (name, mime) => expect(guessMimeType(name)).toBe(mime));
  it("is null for an unknown or missing extension", () => {
    expect(guessMimeType("notes.txt")).toBeNull();
    expect(guessMimeType("/tmp/recording")).toBeNull();
  });
  it("gives a local url's Audio its type (audio/wav for .wav, as simulation turn files get)", () => {
    const audio = new Audio({ url: "calls/a.wav" }, () => ({ path: "/data/calls/a.wav", bytes: new Uint8Array(4) }));
    expect(audio.mimeType).toBe("audio/wav");
    expect(new Audio({ url: "https://example.com/x/reply.mp3" }).mimeType).toBe("audio/mpeg");
  });
});
