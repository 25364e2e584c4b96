// The clean calls of the validation ladders: real human read speech (pocketsphinx-testdata), the real TTS recordings of the parity set (../shared), espeak-ng voices.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeAudio } from "../../src/audio/index.js";
import { ESPEAK, speak } from "../helpers/tools.js";
import { sharedDir } from "../helpers/shared.js";
import type { Clip } from "./degrade.js";

/** A clean call: six caller clips and six agent clips, alternating, caller first. */
export interface CleanCall {
  id: string;
  users: Clip[];
  agents: Clip[];
  agentText: string[];
}

export type SourceId = "human" | "tts" | "espeak";

const TESTDATA = "/usr/share/pocketsphinx/test/data";
const LIBRIVOX = ["0880", "0930", "0880", "0930", "0880", "0930"].map((n) => join(TESTDATA, "librivox", `sense_and_sensibility_01_austen_64kb-${n}.wav`));
const CARDS = ["001", "002", "003", "004", "005", "002"].map((n) => join(TESTDATA, "cards", `${n}.wav`));

const AGENT_SENTENCES = [
  "Of course. Could you tell me your full name, please?",
  "Thank you. What is the new street address?",
  "Great, I have updated that for you.",
  "Your next bill will arrive on the fifth of June.",
  "Is there anything else I can help you with today?",
  "Thank you for calling, and have a good afternoon.",
];
const USER_SENTENCES = [
  "I would like to change the address on my account.",
  "My name is Anna Miller.",
  "It is twenty four Oak Street, in Springfield.",
  "When will my next bill arrive?",
  "Can I pay it online?",
  "How long does a refund take?",
];

function readClip(path: string): Clip {
  const d = decodeAudio(readFileSync(path), { compat: "voxmetrics", name: path });
  const x = new Float32Array(d.frames);
  for (let i = 0; i < d.frames; i++) {
    let s = 0;
    for (let c = 0; c < d.channels; c++) s += d.samples[i * d.channels + c];
    x[i] = s / d.channels / 32768;
  }
  return { rate: d.sampleRate, x };
}

/** Why a source is unavailable, or null when it can be built. */
export function sourceUnavailable(id: SourceId): string | null {
  if (id === "human") return existsSync(LIBRIVOX[0]) && existsSync(CARDS[0]) ? null : `pocketsphinx-testdata is not installed (${TESTDATA})`;
  if (id === "tts") return sharedDir() ? null : "../shared (the parity set with the real TTS recordings) is absent";
  return ESPEAK ? null : "espeak-ng is not installed";
}

/** The clean call of a source (the caller must check sourceUnavailable first). */
export function loadSource(id: SourceId): CleanCall {
  if (id === "human") {
    // The agent is the "cards" speaker (five short read utterances); the caller a LibriVox reader.
    return { id, users: LIBRIVOX.map(readClip), agents: CARDS.map(readClip), agentText: AGENT_SENTENCES };
  }
  if (id === "tts") {
    // deepeval's real simulation (OpenAI TTS, 24 kHz): agent turns 1 and 3 end naturally (2 and 4 were
    // cut by the caller's barge-ins, 5 is a 0.3 s sign-off), so they alternate as the agent's six turns.
    const dir = join(sharedDir()!, "parity", "deepeval-sim");
    const agent = (n: number) => readClip(join(dir, `deepeval-turn-${n}-assistant.wav`));
    const user = (n: number) => readClip(join(dir, `deepeval-turn-${n}-user.wav`));
    return { id, users: [1, 2, 3, 4, 5, 1].map(user), agents: [1, 3, 1, 3, 1, 3].map(agent), agentText: AGENT_SENTENCES };
  }
  const clip = (text: string, voice: string): Clip => {
    const a = speak(text, 165, voice);
    return { rate: a.sampleRate, x: a.channels[0] };
  };
  return { id, users: USER_SENTENCES.map((t) => clip(t, "en-us+f3")), agents: AGENT_SENTENCES.map((t) => clip(t, "en-us")), agentText: AGENT_SENTENCES };
}
