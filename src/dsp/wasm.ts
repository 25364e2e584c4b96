// Loads build/voxmetrics.wasm once per thread and hands out the arena: the only place that knows
// about WebAssembly memory. Views over memory must be re-created after any allocation (memory.grow
// detaches the old ArrayBuffer), so callers get fresh views from `view*` after every `alloc`.
import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Raw exports of the kernel module. Pointers and lengths are plain numbers (u32 byte offsets / counts). */
export interface KernelExports {
  memory: WebAssembly.Memory;
  arenaAlloc(bytes: number): number;
  arenaReset(): void;
  arenaUsed(): number;
  // Kernel exports are added by each kernel family; typed wrappers live next to this file.
  [name: string]: unknown;
}

let cachedModule: WebAssembly.Module | undefined;
let cachedInstance: KernelExports | undefined;

/** Locate build/voxmetrics.wasm from either src/dsp (tests, tsx) or dist/dsp (compiled package). */
export function locateWasm(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, "..", "..", "build", "voxmetrics.wasm")];
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(
    `voxmetrics: WebAssembly kernels not found at ${candidates[0]}; run \`npm run build\` (npm install does it).`,
  );
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
          throw new Error(`voxmetrics wasm abort at ${line}:${col}`);
        },
      },
    });
    cachedInstance = instance.exports as unknown as KernelExports;
    // Detach the initial buffer now (grow(0) still replaces it). V8 keeps one per-isolate flag that no
    // ArrayBuffer was ever detached; the first memory.grow of a big clip clears it and deoptimises all
    // code compiled with typed-array accesses under that assumption, so a worker compiled those twice.
    cachedInstance.memory.grow(0);
  }
  return cachedInstance;
}

/**
 * A scoped use of the arena: allocate regions, then create views (views are invalidated by any
 * later allocation). `reset()` releases everything; one arena scope runs at a time per thread.
 */
export class Arena {
  readonly k: KernelExports;
  constructor() {
    this.k = getKernels();
    this.k.arenaReset();
  }
  /** Reserve bytes; throws when memory cannot grow. */
  alloc(bytes: number): number {
    const ptr = this.k.arenaAlloc(bytes >>> 0) >>> 0;
    if (ptr === 0 && bytes > 0) throw new Error(`voxmetrics: out of WebAssembly memory allocating ${bytes} bytes`);
    return ptr;
  }
  allocI16(n: number): number { return this.alloc(n * 2); }
  allocI32(n: number): number { return this.alloc(n * 4); }
  allocF32(n: number): number { return this.alloc(n * 4); }
  allocF64(n: number): number { return this.alloc(n * 8); }
  i16(ptr: number, n: number): Int16Array { return new Int16Array(this.k.memory.buffer, ptr, n); }
  i32(ptr: number, n: number): Int32Array { return new Int32Array(this.k.memory.buffer, ptr, n); }
  u32(ptr: number, n: number): Uint32Array { return new Uint32Array(this.k.memory.buffer, ptr, n); }
  f32(ptr: number, n: number): Float32Array { return new Float32Array(this.k.memory.buffer, ptr, n); }
  f64(ptr: number, n: number): Float64Array { return new Float64Array(this.k.memory.buffer, ptr, n); }
  i64(ptr: number, n: number): BigInt64Array { return new BigInt64Array(this.k.memory.buffer, ptr, n); }
  /** Copy an Int16Array into a fresh region and return its pointer. */
  putI16(data: Int16Array): number {
    const p = this.allocI16(data.length);
    this.i16(p, data.length).set(data);
    return p;
  }
  putF32(data: Float32Array): number {
    const p = this.allocF32(data.length);
    this.f32(p, data.length).set(data);
    return p;
  }
  reset(): void { this.k.arenaReset(); }
}

let threadArena: Arena | undefined;

/**
 * The thread's arena, reset: one arena scope at a time per thread. A single long-lived object rather
 * than one per kernel run, since V8 drops the map of a class whose instances are all dead at a full
 * GC and then deoptimises every function that was optimised for it.
 */
export function openArena(): Arena {
  if (threadArena) threadArena.reset();
  else threadArena = new Arena();
  return threadArena;
}
