// The reply-owed rule of the turn-taking detectors (voice-metrics.md §5.5).
import { describe, expect, it } from "vitest";
import { owesReply } from "../../src/metrics/detectors.js";

describe("owesReply (voice-metrics.md §5.5)", () => {
  it.each(["no thanks", "THANK YOU!!!", "Goodbye. ", "  bye..!.", "okay bye."])("%j owes nothing", (c) => expect(owesReply(c)).toBe(false));
  it.each(["Thanks?", "bye !", "that’s all", ""])("%j owes a reply", (c) => expect(owesReply(c)).toBe(true));
});
