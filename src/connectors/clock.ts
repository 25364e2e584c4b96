// The monotonic host clock every call reads (CLOCK_MONOTONIC, shared by all processes on the machine) and absolute-schedule sleeping.

/** Milliseconds on the host's monotonic clock (process.hrtime), comparable across processes on one machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Raised when a sleep or wait is aborted. */
export class AbortedError extends Error {
  constructor(message = "aborted") {
    super(message);
    this.name = "AbortedError";
  }
}

/**
 * Sleep until the monotonic instant `atMs`. Timers only promise "not before", so the target is an
 * absolute instant: a late wake-up delays this frame only, never the ones scheduled after it.
 */
export function sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
  const delay = atMs - monotonicMs();
  if (signal?.aborted) return Promise.reject(new AbortedError());
  if (delay <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    // setTimeout may fire up to ~1 ms early relative to hrtime; re-check and top up.
    const tick = () => {
      const left = atMs - monotonicMs();
      if (left > 0.05) {
        timer = setTimeout(tick, Math.max(0, left));
        return;
      }
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    let timer = setTimeout(tick, delay);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
