// One reused buffer per thread for the bytes of the call being scored: its audio files and the WAV clips cut from it.
//
// Bulk scoring reads hundreds of megabytes of audio. A fresh buffer per file or clip costs page
// faults on every first write and unmaps on every free, and in a worker pool both stall the other
// threads of the process. Inside `withCallBuffer`, such bytes are carved one after the other from a
// buffer that the next call reuses; outside it, every request gets fresh memory as before.

/** Largest buffer kept between calls (per thread); requests that do not fit get fresh memory. */
const MAX_CALL_BUFFER = 32 << 20;
const MIN_CALL_BUFFER = 1 << 20;

let buffer: ArrayBuffer | null = null;
let top = 0;
let open = false;

/**
 * Run `fn` with this thread's call buffer in use. Whatever `takeCallBytes` hands out inside (and
 * every view of it, such as samples decoded in place) is only valid until `fn` returns: the next
 * scope overwrites it. For code that drops everything it read before returning, as scoring one call
 * does. Nested scopes join the outer one.
 */
export function withCallBuffer<T>(fn: () => T): T {
  if (open) return fn();
  open = true;
  try {
    return fn();
  } finally {
    open = false;
    top = 0;
  }
}

/** `n` bytes (16-byte aligned, contents unspecified) from the call buffer; null outside a scope or when `n` cannot fit. */
export function takeCallBytes(n: number): Uint8Array | null {
  if (!open || n > MAX_CALL_BUFFER) return null;
  if (!buffer || top + n > buffer.byteLength) {
    const need = top + n;
    if (need > MAX_CALL_BUFFER) return null;
    // Views handed out earlier in this call keep the old buffer alive until they are dropped.
    buffer = new ArrayBuffer(Math.min(MAX_CALL_BUFFER, Math.max(MIN_CALL_BUFFER, 2 ** Math.ceil(Math.log2(need)))));
  }
  const bytes = new Uint8Array(buffer, top, n);
  top = (top + n + 15) & ~15;
  return bytes;
}
