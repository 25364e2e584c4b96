// `npm run bench`: runs every benchmark (or those named on the command line) in one process and prints their ratios.
const SUITES: Record<string, () => Promise<unknown>> = {
  parity: async () => (await import("./parity.js")).benchParity(),
  "parity-memory": async () => (await import("./parity-memory.js")).benchParityMemory(),
  acoustics: async () => (await import("./acoustics.js")).benchAcoustics(),
  archive: async () => (await import("./archive.js")).benchArchive(),
  live: async () => (await import("./live.js")).benchLive(),
  report: async () => (await import("./report.js")).benchReport(),
  queue: async () => (await import("./queue.js")).benchQueue(),
  profile: async () => (await import("./profile.js")).benchProfile(),
  long: async () => (await import("./long.js")).benchLong(),
  "long-score": async () => (await import("./long-score.js")).benchLongScore(),
  "long-case": async () => (await import("./long-case.js")).benchLongCase(),
  "long-sim": async () => (await import("./long-sim.js")).benchLongSim(),
};

async function run(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const names = wanted.length ? wanted : Object.keys(SUITES);
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) {
      process.stderr.write(`unknown benchmark "${name}"; choose from ${Object.keys(SUITES).join(", ")}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`\n=== ${name} ===\n`);
    await suite();
  }
}

await run();
