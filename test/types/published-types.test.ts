// The published .d.ts alone (dist/ and build/ declarations in a package folder, no @types/node, no @types/ws) compiles a library example; misuse is a type error.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/dist.js";
import { REPO_ROOT } from "../helpers/shared.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-types-"));
const TSC = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Copy every .d.ts under `root` to `to`, keeping the folders. */
function copyDeclarations(root: string, to: string, dir = root): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyDeclarations(root, to, path);
    else if (name.endsWith(".d.ts")) {
      const target = join(to, relative(root, path));
      mkdirSync(join(target, ".."), { recursive: true });
      cpSync(path, target);
    }
  }
}

const EXAMPLE = `
import { Audio, analyzeFile, assertTest, createMetrics, createTestCase, evaluate, loadDeepevalJsonFile, METRICS, MetricAssertionError, VoiceNaturalnessMetric } from "voxmetrics";

const audio = new Audio({ url: "./clip.wav", start_time: 0 });
const other = new Audio({ url: "clip.wav" }, { baseDir: "/data/calls" });
const tc = createTestCase({ name: "x", turns: [{ role: "user", content: "hi", audio }, { role: "assistant", content: "hello", audio: other }] });
for (const r of loadDeepevalJsonFile("call.json")) {
  if (r.ok) new VoiceNaturalnessMetric({ threshold: 0.7 }).measure(r.testCase);
  else console.log(r.error.code, r.error.message);
}
const [result] = evaluate([tc], createMetrics(["integrity", "VoiceReliabilityMetric"]));
const names: string[] = result.metrics_data.map((m) => m.name);
try {
  assertTest(tc, [new VoiceNaturalnessMetric({ threshold: 0.7 })]);
} catch (e) {
  if (e instanceof MetricAssertionError) console.log(e.failed.map((m) => m.score));
}
const a = analyzeFile("clip.wav", { set: "standards" });
if (a.status === "ok") {
  const lufs: number | null | undefined = a.acoustics?.integrated_lufs;
  console.log(a.duration + 1, lufs, names, METRICS[0].className);
} else {
  const code: string = a.error.code;
  console.log(code);
}
`;

function compile(name: string, source: string): { code: number | null; output: string } {
  const dir = join(tmp, name);
  const pkg = join(dir, "node_modules", "voxmetrics");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(REPO_ROOT, "package.json"), join(pkg, "package.json"));
  copyDeclarations(join(REPO_ROOT, "dist"), join(pkg, "dist"));
  mkdirSync(join(pkg, "build"), { recursive: true });
  cpSync(join(REPO_ROOT, "build", "voxmetrics.d.ts"), join(pkg, "build", "voxmetrics.d.ts"));
  writeFileSync(join(dir, "example.ts"), source);
  const compilerOptions = { strict: true, noEmit: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2022", "ESNext.Disposable", "DOM"], types: [], skipLibCheck: false };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["example.ts"] }));
  const r = spawnSync(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")], { cwd: dir, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("published type declarations", () => {
  it("compile a library example without @types/node (nor @types/ws), with library checks on", () => {
    const r = compile("ok", EXAMPLE);
    expect(r.output).toBe("");
    expect(r.code).toBe(0);
  }, 120_000);

  it("make a parse result without narrowing, and an untyped acoustics read, type errors", () => {
    const r = compile("misuse", `import { analyzeFile, loadDeepevalJsonFile } from "voxmetrics";
const [first] = loadDeepevalJsonFile("call.json");
console.log(first.testCase.turns.length);
const a = analyzeFile("clip.wav");
const n: number = a.duration;
console.log(n);
`);
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/example\.ts\(3,\d+\): error TS18048: 'first\.testCase' is possibly 'undefined'/);
    expect(r.output).toMatch(/example\.ts\(5,7\): error TS2322: Type 'number \| null' is not assignable to type 'number'/);
    expect(r.output).not.toMatch(/node_modules/);
  }, 120_000);
});
