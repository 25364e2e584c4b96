// The only export surface of the WebAssembly module: the arena plus one `export *` line per kernel file.
export { arenaAlloc, arenaReset, arenaRewind, arenaUsed } from "./memory";
export * from "./kernels/loudness";
export * from "./kernels/true-peak";
export * from "./kernels/activity";
export * from "./kernels/syllables";
export * from "./kernels/yin";
export * from "./kernels/signal";
export * from "./kernels/frames";
export * from "./kernels/pitch";
export * from "./kernels/fingerprint";
export * from "./kernels/interleaved";
export * from "./kernels/locate";
export * from "./kernels/integrity";
// parity (issue 11): deepeval's parity kernels fed incrementally (state block, carried frames, loop windows confirmed in a second reading)
export * from "./kernels/parity-stream";
// parity (issue 11): the voxmetrics profile's integrity kernels fed incrementally (block levels, zero runs, WADA sums)
export * from "./kernels/integrity-stream";
