// The degradation ladders (clean + five severity levels each) and the validation contract: which metric must respond to which ladder.
import { seededRandom } from "../helpers/random.js";
import { addNoise, bandLimit, dropouts, frameLoss, gain, gaussianNoise, hardClip, loops, mute, shiftVoice, telephone, type Clip } from "./degrade.js";
import type { CleanCall } from "./sources.js";

/** A call as the ladder makes it: the clips and the timing between them. */
export interface CallVariant {
  users: Clip[];
  agents: Clip[];
  /** Agent start − caller end, per exchange (s); negative = the agent talks over the caller. */
  replyGapS: number[];
}

export const CLEAN_REPLY_GAP_S = 1.0;
/** Caller start − agent end (s). */
export const CALLER_GAP_S = 0.8;

export interface Ladder {
  id: string;
  /** What the severity axis is, for the README. */
  axis: string;
  /** Severity values of levels 1–5 (level 0 is the clean call). */
  levels: readonly number[];
  apply(call: CleanCall, level: number, babble: Float32Array): CallVariant;
}

const seedOf = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7);

function clean(call: CleanCall): CallVariant {
  return { users: call.users, agents: call.agents, replyGapS: call.agents.map(() => CLEAN_REPLY_GAP_S) };
}

/** A ladder that transforms each agent clip independently. */
function perAgent(id: string, axis: string, levels: number[], f: (c: Clip, v: number, turn: number, random: () => number) => Clip): Ladder {
  return {
    id,
    axis,
    levels,
    apply(call, level) {
      const base = clean(call);
      if (level === 0) return base;
      const v = levels[level - 1];
      // One generator per turn, the same at every level: random ladders are nested (level k + 1 keeps
      // level k's dropouts, lost frames and loops and adds more), so severity alone grows.
      return { ...base, agents: call.agents.map((c, i) => f(c, v, i, seededRandom(seedOf(`${call.id}/${id}/${i}`)))) };
    },
  };
}

export const LADDERS: readonly Ladder[] = [
  perAgent("white-noise", "SNR dB", [30, 20, 10, 5, 0], (c, snr, _i, r) => addNoise(c, gaussianNoise(c.x.length, r), snr)),
  {
    id: "babble-noise",
    axis: "SNR dB",
    levels: [30, 20, 10, 5, 0],
    apply(call, level, babble) {
      const base = clean(call);
      if (level === 0) return base;
      return { ...base, agents: call.agents.map((c, i) => addNoise(c, babble, this.levels[level - 1], i * 7919)) };
    },
  },
  perAgent("clipping", "gain dB over a −1 dBFS peak", [3, 9, 15, 21, 30], (c, db) => hardClip(c, -1, db)),
  perAgent("dropouts", "dropouts per s (20–40 ms)", [0.25, 0.5, 0.75, 1, 1.5], (c, rate, _i, r) => dropouts(c, Math.round((rate * c.x.length) / c.rate), 0.02, 0.04, r)),
  perAgent("frame-loss", "20 ms frames lost %", [2, 5, 10, 20, 35], (c, pct, _i, r) => frameLoss(c, pct / 100, r)),
  perAgent("loops", "loops per turn (0.22–0.58 s)", [1, 2, 3, 4, 5], (c, count, _i, r) => loops(c, count, 0.22, 0.58, r)),
  perAgent("telephone", "band (kHz); 8 kHz; μ-law", [6, 5, 4, 3.4, 0], (c, khz) => (khz === 0 ? telephone(c, true) : khz === 3.4 ? telephone(c, false) : bandLimit(c, 0, khz * 1000))),
  perAgent("level", "gain dB", [-6, -12, -20, -30, -40], (c, db) => gain(c, db)),
  perAgent("loudness-spread", "dB between alternate turns", [2, 4, 6, 9, 12], (c, db, i) => gain(c, i % 2 ? -db / 2 : db / 2)),
  perAgent("voice-change", "semitones on alternate turns", [1, 2, 4, 6, 8], (c, st, i) => (i % 2 ? shiftVoice(c, st) : c)),
  {
    id: "muted-turns",
    axis: "agent turns (of 6) replaced by silence",
    levels: [1, 2, 3, 4, 5],
    apply(call, level) {
      const base = clean(call);
      return { ...base, agents: call.agents.map((c, i) => (i < level ? mute(c) : c)) };
    },
  },
  {
    id: "reply-latency",
    axis: "s from caller end to agent start",
    levels: [2, 2.5, 3, 3.5, 4.5],
    apply(call, level) {
      const base = clean(call);
      return level === 0 ? base : { ...base, replyGapS: base.replyGapS.map(() => this.levels[level - 1]) };
    },
  },
  {
    id: "overlap",
    axis: "s the agent talks over the caller",
    levels: [0.2, 0.5, 0.9, 1.3, 1.8],
    apply(call, level) {
      const base = clean(call);
      return level === 0 ? base : { ...base, replyGapS: base.replyGapS.map(() => -this.levels[level - 1]) };
    },
  },
];

export const METRIC_IDS = ["naturalness", "intelligibility", "consistency", "turn-taking", "responsiveness", "integrity", "reliability"] as const;
export type MetricId = (typeof METRIC_IDS)[number];

/**
 * The contract (issue 17 §3): for each metric, the ladders it must respond to (monotone, a fall of at
 * least 0.4). Intelligibility × telephone is "gentle": monotone, a fall of at least 0.1, and a clean
 * phone call still at 0.6 or more. Every other pair must move by at most 0.1. Reliability is
 * responsiveness and integrity together (deepeval's definition), so it answers to both contracts.
 */
export const CONTRACT: Readonly<Record<MetricId, readonly string[]>> = {
  naturalness: ["clipping", "loops", "frame-loss", "dropouts"],
  intelligibility: ["white-noise", "babble-noise", "clipping", "level", "frame-loss", "muted-turns", "telephone"],
  consistency: ["loudness-spread", "voice-change", "muted-turns"],
  "turn-taking": ["reply-latency", "overlap"],
  responsiveness: ["muted-turns"],
  integrity: ["dropouts", "frame-loss", "clipping", "loops", "muted-turns"],
  reliability: ["muted-turns", "loops", "dropouts", "frame-loss", "clipping"],
};

export const GENTLE: ReadonlyArray<[MetricId, string]> = [["intelligibility", "telephone"]];

/** Babble: the source's six caller clips summed at staggered offsets (six talkers at once). */
export function makeBabble(call: CleanCall, rate: number): Float32Array {
  const users = call.users.map((u) => (u.rate === rate ? u.x : resampleLinear(u.x, u.rate, rate)));
  const n = Math.max(...users.map((u) => u.length)) * 2;
  const out = new Float32Array(n);
  users.forEach((u, k) => {
    const shift = Math.floor((k * n) / users.length);
    for (let i = 0; i < n; i++) out[(i + shift) % n] += u[i % u.length];
  });
  return out;
}

function resampleLinear(x: Float32Array, from: number, to: number): Float32Array {
  const n = Math.floor((x.length * to) / from);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = (i * from) / to, j = Math.floor(t), f = t - j;
    out[i] = (x[j] ?? 0) * (1 - f) + (x[j + 1] ?? 0) * f;
  }
  return out;
}
