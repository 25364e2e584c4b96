// Module boundaries of DESIGN.md, checked on the import graph of src/ so the picture stays true.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/shared.js";

const SRC = join(REPO_ROOT, "src");

/**
 * Layer of each folder of src/ (and of index.ts, the public API), in the order of DESIGN.md's chain
 * `model → audio → dsp → analysis → {timeline, metrics} → ingest → scoring → {pool, queue} → report → cli`:
 * a module may import only from its own layer or lower ones. Beside the chain: `text` is pure like
 * `model`; `speech` (speech-model interfaces) sits with `timeline`; the capture branch
 * `connectors → simulator → replay` sits beside `ingest` (see CAPTURE below); `queue` beside `pool`.
 */
const RANK: Record<string, number> = {
  model: 0,
  text: 0,
  audio: 1,
  dsp: 2,
  analysis: 3,
  timeline: 4,
  speech: 4,
  metrics: 5,
  ingest: 6,
  connectors: 6,
  simulator: 7,
  replay: 8,
  scoring: 9,
  pool: 10,
  queue: 10,
  report: 11,
  "index.ts": 12,
  cli: 13,
};

/** The capture branch: it produces test cases that scoring reads, never the other way round, so only itself and the public surface import it. */
const CAPTURE = ["connectors", "simulator", "replay"];
const PUBLIC_SURFACE = ["index.ts", "cli"];
/** Pure layers: no node built-ins, wasm or piscina (they run in a worker or a browser). */
const PURE = ["model", "text"];

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

const show = (e: Edge) => `${relative(SRC, e.from)} → ${e.spec}`;
const intoSrc = edges.filter((e) => target(e)?.startsWith(SRC));

describe("module boundaries (DESIGN.md)", () => {
  it("every module has a layer, and src/ holds no loose files but index.ts", () => {
    const unknown = [...new Set([...sources.keys()].map(moduleOf))].filter((m) => !(m in RANK));
    expect(unknown).toEqual([]);
    const loose = [...sources.keys()].filter((f) => dirname(f) === SRC && moduleOf(f) !== "index.ts");
    expect(loose).toEqual([]);
  });

  it("imports go down the layers: model → audio → dsp → analysis → timeline/metrics → ingest → scoring → pool → report → cli", () => {
    const bad = intoSrc.filter((e) => RANK[moduleOf(target(e)!)] > RANK[moduleOf(e.from)]).map(show);
    expect(bad).toEqual([]);
  });

  it("nothing but the capture branch itself and the public surface imports connectors, simulator or replay", () => {
    const bad = intoSrc
      .filter((e) => CAPTURE.includes(moduleOf(target(e)!)))
      .filter((e) => !CAPTURE.includes(moduleOf(e.from)) && !PUBLIC_SURFACE.includes(moduleOf(e.from)))
      .map(show);
    expect(bad).toEqual([]);
  });

  it("model and text are pure: no node built-ins, wasm or piscina", () => {
    const bad = edges.filter((e) => PURE.includes(moduleOf(e.from)) && !e.spec.startsWith(".")).map(show);
    expect(bad).toEqual([]);
    const wasm = [...sources].filter(([f, t]) => PURE.includes(moduleOf(f)) && /WebAssembly|process\.|globalThis\.|require\(/.test(t)).map(([f]) => f);
    expect(wasm).toEqual([]);
  });

  it("metrics and timeline never import dsp", () => {
    const bad = intoSrc
      .filter((e) => ["metrics", "timeline"].includes(moduleOf(e.from)))
      .filter((e) => moduleOf(target(e)!) === "dsp")
      .map(show);
    expect(bad).toEqual([]);
  });

  it("only dsp touches WebAssembly memory, and only through an arena session (withArena) outside dsp/wasm.ts", () => {
    const bad = [...sources]
      .filter(([f, t]) => moduleOf(f) !== "dsp" && /arenaAlloc|memory\.buffer|new WebAssembly\.Instance/.test(t))
      .map(([f]) => relative(SRC, f));
    expect(bad).toEqual([]);
    const arenas = [...sources].filter(([f, t]) => relative(SRC, f) !== "dsp/wasm.ts" && /new Arena\(|arenaReset\(/.test(t)).map(([f]) => relative(SRC, f));
    expect(arenas).toEqual([]);
  });

  it("cli uses only the public API and the pool; nothing imports cli", () => {
    const cliBad = edges
      .filter((e) => moduleOf(e.from) === "cli" && e.spec.startsWith(".."))
      .filter((e) => !/^\.\.\/(index|pool\/index)\.js$/.test(e.spec))
      .map(show);
    expect(cliBad).toEqual([]);
    const intoCli = intoSrc.filter((e) => moduleOf(e.from) !== "cli" && moduleOf(target(e)!) === "cli").map((e) => relative(SRC, e.from));
    expect(intoCli).toEqual([]);
  });

  it("only queue talks to Redis: bullmq and ioredis are imported nowhere else, and queue imports no report writer", () => {
    const bad = edges.filter((e) => /^(bullmq|ioredis)(\/|$)/.test(e.spec) && moduleOf(e.from) !== "queue").map(show);
    expect(bad).toEqual([]);
    const queueUp = intoSrc.filter((e) => moduleOf(e.from) === "queue" && ["report", "cli", "index.ts"].includes(moduleOf(target(e)!))).map(show);
    expect(queueUp).toEqual([]);
    // The edge check can fail: the queue modules exist and do import both.
    expect(edges.filter((e) => moduleOf(e.from) === "queue" && /^(bullmq|ioredis)$/.test(e.spec)).length).toBeGreaterThanOrEqual(2);
  });

    it("the public API names every export (no `export *`), so no internal helper leaks through it", () => {
    const index = sources.get(join(SRC, "index.ts"))!;
    expect(index.match(/export \*/g) ?? []).toEqual([]);
  });

  it("src never imports test/, bench/ or fixtures/", () => {
    const bad = edges.filter((e) => /(^|\/)(test|bench|fixtures)\//.test(e.spec)).map(show);
    expect(bad).toEqual([]);
  });
});
