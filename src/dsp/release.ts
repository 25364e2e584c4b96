// Give a typed array's memory back at the next minor collection instead of the next full one.
//
// A large typed array that lived through a long measurement has been promoted to the old generation,
// and V8 frees its buffer only at a full collection, which it starts on external memory only after
// tens of MB more have been allocated: the block levels of a clip of hours (megabytes) would stay
// resident while the next measurements grow their own.

/**
 * Give the memory of `array` back now: its buffer (whole, owned by the array alone) is moved into a
 * clone nothing references, which the next minor collection frees; the array is left empty. Arrays
 * over part of a buffer, or over WebAssembly memory, are left to the collector.
 */
export function releaseArray(array: ArrayBufferView): void {
  const buffer = array.buffer;
  if (!(buffer instanceof ArrayBuffer) || array.byteOffset !== 0 || array.byteLength !== buffer.byteLength) return;
  try {
    structuredClone(buffer, { transfer: [buffer] });
  } catch {
    // A buffer that cannot be moved (WebAssembly memory, say) is left to the collector.
  }
}
