// Write errors on stdout (a full disk, a closed pipe) end the run with one clear line on stderr instead of a stack trace.

/** Exit code of a run stopped by an output error. */
const EXIT_WRITE_ERROR = 1;

let guarded = false;

/** Install the guard once: the first error on stdout prints one line naming it and exits. */
export function guardStdout(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    const why = e.code === "EPIPE" ? "EPIPE, the reader closed the pipe" : e.code === "ENOSPC" ? "ENOSPC, no space left on the device" : e.code ?? e.message;
    process.stderr.write(`voxmetrics: cannot write to stdout (${why}); the run stopped\n`);
    process.exit(EXIT_WRITE_ERROR);
  });
}
