// Vitest configuration: tests mirror src/ under test/; conformance suites read ../shared when present.
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Real-time accuracy tests (reply latencies to ±20 ms), the real-time replay batch and the duplex
 * simulations (whose seeded determinism includes where a barge-in cuts the agent's words): they run
 * after every other file, one file at a time, so the CPU-heavy suites do not starve their event loop
 * on a 2-core machine.
 */
const REAL_TIME = ["test/connectors/latency.test.ts", "test/replay/replay-dataset.test.ts", "test/replay/replay-timing.test.ts", "test/replay/replay-batch.test.ts", "test/simulator/duplex.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...REAL_TIME] } },
      { extends: true, test: { name: "real-time", include: REAL_TIME, sequence: { groupOrder: 1 }, fileParallelism: false } },
    ],
  },
});
