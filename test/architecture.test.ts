// Module boundaries of DESIGN.md, checked on the import graph of src/ so the picture stays true.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/shared.js";

const SRC = join(REPO_ROOT, "src");

/** Layer of each module; a module may import only from its own layer or lower ones. */
const RANK: Record<string, number> = {
  model: 0,
  audio: 1,
  dsp: 2,
  analysis: 3,
  timeline: 4,
  speech: 4,
  metrics: 5,
  "score.ts": 6,
  "analyze-file.ts": 6,
  ingest: 7,
  pool: 8,
  report: 9,
  connectors: 9,
  simulator: 9.5,
  "index.ts": 10,
  cli: 11,
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

function moduleOf(path: string): string {
  return relative(SRC, path).split("/")[0];
}

interface Edge {
  from: string;
  to: string;
  spec: string;
}

const edges: Edge[] = [];
const sources = new Map<string, string>();
for (const f of files(SRC)) {
  const text = readFileSync(f, "utf8");
  sources.set(f, text);
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) edges.push({ from: f, to: m[1], spec: m[1] });
}

function target(e: Edge): string | null {
  return e.spec.startsWith(".") ? resolve(dirname(e.from), e.spec).replace(/\.js$/, ".ts") : null;
}

describe("module boundaries (DESIGN.md)", () => {
  it("every module has a layer", () => {
    const unknown = [...new Set([...sources.keys()].map(moduleOf))].filter((m) => !(m in RANK));
    expect(unknown).toEqual([]);
  });

  it("imports go down the layers: model → audio → dsp → analysis → timeline/metrics → ingest/pool → report → cli", () => {
    const bad = edges
      .map((e) => ({ e, t: target(e) }))
      .filter(({ t }) => t !== null && t.startsWith(SRC))
      .filter(({ e, t }) => RANK[moduleOf(t!)] > RANK[moduleOf(e.from)])
      .map(({ e }) => `${relative(SRC, e.from)} → ${e.spec}`);
    expect(bad).toEqual([]);
  });

  it("model is pure: no node built-ins, wasm or piscina", () => {
    const bad = edges.filter((e) => moduleOf(e.from) === "model" && !e.spec.startsWith(".")).map((e) => `${relative(SRC, e.from)} → ${e.spec}`);
    expect(bad).toEqual([]);
    const wasm = [...sources].filter(([f, t]) => moduleOf(f) === "model" && /WebAssembly/.test(t)).map(([f]) => f);
    expect(wasm).toEqual([]);
  });

  it("metrics and timeline never import dsp", () => {
    const bad = edges
      .filter((e) => ["metrics", "timeline"].includes(moduleOf(e.from)))
      .filter((e) => target(e)?.startsWith(join(SRC, "dsp")))
      .map((e) => `${relative(SRC, e.from)} → ${e.spec}`);
    expect(bad).toEqual([]);
  });

  it("only dsp touches WebAssembly memory", () => {
    const bad = [...sources]
      .filter(([f, t]) => moduleOf(f) !== "dsp" && /arenaAlloc|memory\.buffer|new WebAssembly\.Instance/.test(t))
      .map(([f]) => relative(SRC, f));
    expect(bad).toEqual([]);
  });

  it("cli uses only the public API and the pool; nothing imports cli", () => {
    const cliBad = edges
      .filter((e) => moduleOf(e.from) === "cli" && e.spec.startsWith(".."))
      .filter((e) => !/^\.\.\/(index|pool\/index)\.js$/.test(e.spec))
      .map((e) => `${relative(SRC, e.from)} → ${e.spec}`);
    expect(cliBad).toEqual([]);
    const intoCli = edges.filter((e) => moduleOf(e.from) !== "cli" && target(e)?.startsWith(join(SRC, "cli"))).map((e) => relative(SRC, e.from));
    expect(intoCli).toEqual([]);
  });

  it("src never imports test/, bench/ or fixtures/", () => {
    const bad = edges.filter((e) => /(^|\/)(test|bench|fixtures)\//.test(e.spec)).map((e) => `${relative(SRC, e.from)} → ${e.spec}`);
    expect(bad).toEqual([]);
  });
});
