// Audio decoding: WAV (wavefile / deepeval-exact reader), other containers through ffmpeg, conversions and writers.
export * from "./convert.js";
export * from "./decode.js";
export * from "./duration.js";
export * from "./errors.js";
export * from "./ffmpeg.js";
export * from "./sniff.js";
export * from "./types.js";
export * from "./wav-writer.js";
export * from "./mulaw.js";
export * from "./resample.js";
export * from "./limits.js";
export * from "./pcm-source.js";
export * from "./open-source.js";
