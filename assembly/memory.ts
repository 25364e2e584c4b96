// Arena allocator over the module's exported linear memory: the only allocator the kernels use.
// The host asks for regions with arenaAlloc, fills them, calls kernels with (pointer, length) and
// calls arenaReset once per task. Nothing is ever freed individually (stub runtime, no GC).

const PAGE: usize = 65536;
let arenaTop: usize = 0;

/** Discard every region handed out so far. */
export function arenaReset(): void {
  arenaTop = (__heap_base + 15) & ~(<usize>15);
}

/** Reserve `bytes` bytes (16-byte aligned), growing memory as needed; returns 0 when memory is exhausted. */
export function arenaAlloc(bytes: usize): usize {
  if (arenaTop == 0) arenaReset();
  const ptr = arenaTop;
  const end = (ptr + bytes + 15) & ~(<usize>15);
  const have = (<usize>memory.size()) * PAGE;
  if (end > have) {
    const need = <i32>((end - have + PAGE - 1) / PAGE);
    if (memory.grow(need) < 0) return 0;
  }
  arenaTop = end;
  return ptr;
}

/** Bytes currently handed out (for tests and diagnostics). */
export function arenaUsed(): usize {
  if (arenaTop == 0) arenaReset();
  return arenaTop - ((__heap_base + 15) & ~(<usize>15));
}

/** Discard the regions handed out after the first `used` bytes (a mark read from arenaUsed); memory already grown stays. */
export function arenaRewind(used: usize): void {
  if (arenaTop == 0) arenaReset();
  const to = ((__heap_base + 15) & ~(<usize>15)) + ((used + 15) & ~(<usize>15));
  if (to < arenaTop) arenaTop = to;
}
