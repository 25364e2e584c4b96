// Loads build/voxmetrics.wasm once per thread and lends out its arena, one session at a time: the only place that knows about WebAssembly memory.
//
// Views over memory must be re-created after any allocation (memory.grow detaches the old
// ArrayBuffer), so callers take fresh views from `i16`/`f32`/… after every `alloc`. Hot paths (a
// chunk, a block, a batch of frames) index the arena's views of the whole memory instead (`memF32`
// and friends): one view per type and memory buffer, made again only when memory grew, so a long
// recording's reading does not leave one typed array per access to the collector.
import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { instantiate } from "../../build/voxmetrics.js";
import { KernelError } from "./kernel-error.js";

/**
 * The module's exports as asc declares them (build/voxmetrics.d.ts): pointers and lengths are plain
 * numbers. These are the raw exports, so `usize` results arrive signed; the arena applies `>>> 0`.
 */
export type KernelExports = Awaited<ReturnType<typeof instantiate>>;

let cachedModule: WebAssembly.Module | undefined;
let cachedInstance: KernelExports | undefined;

/** Locate build/voxmetrics.wasm from either src/dsp (tests, tsx) or dist/dsp (compiled package). */
function locateWasm(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const path = join(here, "..", "..", "build", "voxmetrics.wasm");
  if (existsSync(path)) return path;
  throw new Error(`voxmetrics: WebAssembly kernels not found at ${path}; run \`npm run build\` (npm install does it).`);
}

/** The compiled module, compiled once per process (it can be passed to workers through workerData). */
export function getWasmModule(): WebAssembly.Module {
  if (!cachedModule) cachedModule = new WebAssembly.Module(readFileSync(locateWasm()));
  return cachedModule;
}

/** Use a module compiled elsewhere (e.g. the main thread) instead of reading the file again. */
export function setWasmModule(module: WebAssembly.Module): void {
  if (!cachedInstance) cachedModule = module;
}

/** The per-thread instance (created on first use). */
export function getKernels(): KernelExports {
  if (!cachedInstance) {
    const instance = new WebAssembly.Instance(getWasmModule(), {
      env: {
        abort(_msg: number, _file: number, line: number, col: number): never {
          throw new KernelError("ABORT", "abort", `aborted at ${line}:${col}`);
        },
      },
    });
    // The one cast of the module: WebAssembly.Instance does not know what asc compiled.
    cachedInstance = instance.exports as unknown as KernelExports;
    // Detach the initial buffer now (grow(0) still replaces it). V8 keeps one per-isolate flag that no
    // ArrayBuffer was ever detached; the first memory.grow of a big clip clears it and deoptimises all
    // code compiled with typed-array accesses under that assumption, so a worker compiled those twice.
    cachedInstance.memory.grow(0);
  }
  return cachedInstance;
}

/** Typed arrays that hold PCM on its way into the arena. */
type Pcm = Int16Array | Float32Array;

/** How much PCM this thread has copied into WebAssembly memory (`copyPcm` is the only way in). */
export interface PcmCopyStats {
  /** Bulk copies. */
  copies: number;
  /** Samples copied, all copies together. */
  samples: number;
}

const pcmCopies: PcmCopyStats = { copies: 0, samples: 0 };

/** A snapshot of this thread's PCM copy counters (tests bound the copies a clip costs with it). */
export function pcmCopyStats(): PcmCopyStats {
  return { ...pcmCopies };
}

/**
 * The arena of one session: allocate regions, then create views (views are invalidated by any later
 * allocation). Only `withArena` hands one out, reset, and it is reset again when the session ends.
 */
export class Arena {
  readonly k: KernelExports;
  /** The memory buffer the cached views below were made over (null: none made yet). */
  private viewed: ArrayBuffer | null = null;
  private views!: { u8: Uint8Array; i16: Int16Array; i32: Int32Array; f32: Float32Array; f64: Float64Array };
  constructor() {
    this.k = getKernels();
    this.k.arenaReset();
  }
  /** The cached whole-memory views, made again when memory.grow replaced the buffer. */
  private memory(): Arena["views"] {
    const buffer = this.k.memory.buffer;
    if (this.viewed !== buffer) {
      this.views = { u8: new Uint8Array(buffer), i16: new Int16Array(buffer), i32: new Int32Array(buffer), f32: new Float32Array(buffer), f64: new Float64Array(buffer) };
      this.viewed = buffer;
    }
    return this.views;
  }
  /** The whole of WebAssembly memory as u8 / i16 / i32 / f32 / f64 (index = pointer / element size); valid until the next allocation. */
  memU8(): Uint8Array { return this.memory().u8; }
  memI16(): Int16Array { return this.memory().i16; }
  memI32(): Int32Array { return this.memory().i32; }
  memF32(): Float32Array { return this.memory().f32; }
  memF64(): Float64Array { return this.memory().f64; }
  /** Reserve bytes (16-byte aligned); throws when memory cannot grow. */
  alloc(bytes: number): number {
    const ptr = this.k.arenaAlloc(bytes >>> 0) >>> 0;
    if (ptr === 0 && bytes > 0) throw new KernelError("OUT_OF_MEMORY", "arenaAlloc", `out of WebAssembly memory allocating ${bytes} bytes`);
    return ptr;
  }
  allocI16(n: number): number { return this.alloc(n * 2); }
  allocI32(n: number): number { return this.alloc(n * 4); }
  allocF32(n: number): number { return this.alloc(n * 4); }
  allocF64(n: number): number { return this.alloc(n * 8); }
  /** Bytes handed out since the session began. */
  used(): number { return this.k.arenaUsed() >>> 0; }
  u8(ptr: number, n: number): Uint8Array { return new Uint8Array(this.k.memory.buffer, ptr, n); }
  i16(ptr: number, n: number): Int16Array { return new Int16Array(this.k.memory.buffer, ptr, n); }
  i32(ptr: number, n: number): Int32Array { return new Int32Array(this.k.memory.buffer, ptr, n); }
  f32(ptr: number, n: number): Float32Array { return new Float32Array(this.k.memory.buffer, ptr, n); }
  f64(ptr: number, n: number): Float64Array { return new Float64Array(this.k.memory.buffer, ptr, n); }
  i64(ptr: number, n: number): BigInt64Array { return new BigInt64Array(this.k.memory.buffer, ptr, n); }
  /** Copy PCM into a fresh region and return its pointer: the only way samples enter the arena (counted). */
  copyPcm(data: Pcm): number {
    const ptr = data instanceof Int16Array ? this.allocI16(data.length) : this.allocF32(data.length);
    this.copyPcmTo(ptr, data);
    return ptr;
  }
  /** Copy PCM into a region allocated by the caller (counted like copyPcm). */
  copyPcmTo(ptr: number, data: Pcm): void {
    if (data instanceof Int16Array) this.memI16().set(data, ptr >>> 1);
    else this.memF32().set(data, ptr >>> 2);
    pcmCopies.copies++;
    pcmCopies.samples += data.length;
  }
  /** Copy non-PCM data (kernel state, frame starts, levels) into a fresh region. */
  putI32(data: Int32Array): number {
    const ptr = this.allocI32(data.length);
    this.i32(ptr, data.length).set(data);
    return ptr;
  }
  putF32(data: Float32Array): number {
    const ptr = this.allocF32(data.length);
    this.f32(ptr, data.length).set(data);
    return ptr;
  }
  reset(): void { this.k.arenaReset(); }
  /** Discard the regions allocated after `mark` (a value of used()): their pointers and views are stale. */
  rewind(mark: number): void { this.k.arenaRewind(mark); }
}

/**
 * One long-lived arena object per thread rather than one per session: V8 drops the map of a class
 * whose instances are all dead at a full GC and then deoptimises every function optimised for it.
 */
let threadArena: Arena | undefined;
let sessionOpen = false;

/**
 * Run `use` with the thread's arena, reset, and reset it again afterwards. Sessions do not nest: a
 * second one while one is open would reset memory the first still uses, so it throws ARENA_BUSY.
 */
export function withArena<T>(use: (arena: Arena) => T): T {
  if (sessionOpen) throw new KernelError("ARENA_BUSY", "withArena", "an arena session is already open on this thread (sessions do not nest)");
  sessionOpen = true;
  const arena = threadArena ?? (threadArena = new Arena());
  arena.reset();
  try {
    return use(arena);
  } finally {
    arena.reset();
    sessionOpen = false;
  }
}
