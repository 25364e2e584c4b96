// Python-compatible base64 decoding (voice-metrics.md §2.1).
import { describe, expect, it } from "vitest";
import { decodeBase64Python } from "../../src/model/base64.js";

const text = (b: Uint8Array) => Buffer.from(b).toString("latin1");

describe("decodeBase64Python", () => {
  it("decodes canonical input", () => expect(text(decodeBase64Python("bm90LWEtd2F2"))).toBe("not-a-wav"));
  it("discards characters outside the alphabet, including line breaks and URL-safe - and _", () => {
    expect(text(decodeBase64Python("bm90\nLWEt\r\n d2F2"))).toBe("not-a-wav");
    expect(text(decodeBase64Python("bm9-0LWE_td2F2"))).toBe("not-a-wav");
  });
  it("rejects bad padding like Python", () => {
    expect(() => decodeBase64Python("bm90LWEtd2F")).toThrow(/Incorrect padding/);
    expect(() => decodeBase64Python("bm90L")).toThrow(/1 more than a multiple of 4/);
  });
  it("stops at a pad sequence that completes a quantum", () => {
    expect(text(decodeBase64Python("aGk=IGlnbm9yZWQ="))).toBe("hi");
    expect(text(decodeBase64Python("aG=k="))).toBe("hi");
  });
});
