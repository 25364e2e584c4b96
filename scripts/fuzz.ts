// `npm run fuzz [-- --seed N --count N --batch N --workers N --max-rss-mb N --profile ci]`: the seeded fuzzing campaign through the built CLI; exit 1 on any contract failure.
import { DEFAULT_FUZZ_OPTIONS, runFuzz, type FuzzOptions } from "./fuzz/harness.js";

/** The short profile that `npm test` runs (test/fuzz/fuzz-ci.test.ts). */
export const CI_PROFILE: Partial<FuzzOptions> = { count: 60, batch: 30, timeoutMs: 120_000 };

function parseArgs(argv: string[]): Partial<FuzzOptions> {
  const o: Partial<FuzzOptions> = {};
  const flags: Record<string, keyof FuzzOptions> = { "--seed": "seed", "--count": "count", "--batch": "batch", "--workers": "workers", "--timeout-ms": "timeoutMs", "--max-rss-mb": "maxRssMb" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--profile") {
      if (argv[++i] !== "ci") throw new Error(`unknown profile ${argv[i]} (known: ci)`);
      Object.assign(o, CI_PROFILE);
    } else if (a === "--failures-dir") o.failuresDir = argv[++i];
    else if (flags[a]) {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < (a === "--workers" ? 0 : 1)) throw new Error(`${a} needs an integer, got ${argv[i]}`);
      (o as Record<string, number>)[flags[a]] = n;
    } else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  const options = { ...DEFAULT_FUZZ_OPTIONS, ...parseArgs(process.argv.slice(2)), log: (l: string) => process.stderr.write(`${l}\n`) };
  const report = await runFuzz(options);
  const { failures, ...rest } = report;
  process.stdout.write(`${JSON.stringify({ ...rest, failures: failures.length }, null, 2)}\n`);
  for (const f of failures.slice(0, 50)) process.stderr.write(`FAIL batch ${f.batch} ${f.command}: ${f.reason}${f.inputs.length ? ` [${f.inputs.join(", ")}]` : ""}\n`);
  if (failures.length > 0 && options.failuresDir) process.stderr.write(`inputs of the failing batches kept in ${options.failuresDir}/\n`);
  process.exitCode = failures.length > 0 ? 1 : 0;
}
