// The curated public API: every export of src/index.ts carries TSDoc, and internals stay out.
import ts from "typescript";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as api from "../../src/index.js";
import { REPO_ROOT } from "../helpers/shared.js";

/** Helpers that are implementation details: never part of the public API. */
const INTERNALS = ["pyStrip", "fmt2", "decodeWideGeneral", "resetFfmpegLookup", "setDefaultLocalAudioResolver", "withCallBuffer", "withArena", "readHead", "displayPathOf", "findJsonSyntaxError"];

describe("the public API (src/index.ts)", () => {
  it("documents every export with TSDoc", () => {
    const entry = join(REPO_ROOT, "src", "index.ts");
    const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true });
    const checker = program.getTypeChecker();
    const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);
    expect(exports.length).toBeGreaterThan(200);
    const undocumented = exports
      .filter((e) => (e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e).getDocumentationComment(checker).length === 0)
      .map((e) => e.getName());
    expect(undocumented).toEqual([]);
  }, 60_000);

  it("leaves internals out", () => {
    for (const name of INTERNALS) expect(Object.keys(api), name).not.toContain(name);
  });
});
