// The status codes of every kernel, shared by assembly/ (its kernels import this file) and dsp/: the one list, in the subset of TypeScript AssemblyScript also compiles.
//
// A kernel returns a count or OK when it succeeds, else one of the negative codes below. Only
// literals live here: AssemblyScript reads this file as part of the WebAssembly module.

/** Success of a kernel that returns no count. */
export const OK = 0;
/** An argument is out of range: a negative length, a misaligned scratch block, a rate below the kernel's floor… */
export const BAD_ARGUMENT = -1;
/** The clip-location index outgrew the capacity the host reserved (locateIndexCapacity). */
export const INDEX_FULL = -2;
