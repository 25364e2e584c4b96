// KernelError: what a failed kernel call or arena session raises, with a stable code; and the checks that turn kernel statuses into it.
import { VoxError } from "../model/errors.js";
import { BAD_ARGUMENT, INDEX_FULL } from "./kernel-status.js";

/** Why a kernel call failed: a status the kernel returned, or what the host saw around it. */
export type KernelFailure =
  | "BAD_ARGUMENT"
  | "INDEX_FULL"
  | "UNKNOWN_STATUS"
  | "UNEXPECTED_RESULT"
  | "OUT_OF_MEMORY"
  | "ARENA_BUSY"
  | "ABORT";

/** A kernel refused its arguments or the WebAssembly module could not go on; `code` is always KERNEL_ERROR. */
export class KernelError extends VoxError {
  readonly failure: KernelFailure;
  readonly kernel: string;

  constructor(failure: KernelFailure, kernel: string, detail: string) {
    super("KERNEL_ERROR", `kernel ${kernel}: ${detail} (${failure})`);
    this.name = "KernelError";
    this.failure = failure;
    this.kernel = kernel;
  }
}

function failureOf(status: number): KernelFailure {
  if (status === BAD_ARGUMENT) return "BAD_ARGUMENT";
  if (status === INDEX_FULL) return "INDEX_FULL";
  return "UNKNOWN_STATUS";
}

/** A kernel's result: the count (≥ 0) it returned, or a KernelError for a negative status. */
export function checkStatus(status: number, kernel: string): number {
  if (status < 0) throw new KernelError(failureOf(status), kernel, `returned status ${status}`);
  return status;
}

/** A kernel that must return exactly `expected` (a frame count, say); anything else is a KernelError. */
export function expectResult(actual: number, expected: number, kernel: string): void {
  checkStatus(actual, kernel);
  if (actual !== expected) throw new KernelError("UNEXPECTED_RESULT", kernel, `returned ${actual}, expected ${expected}`);
}
