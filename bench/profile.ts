// Benchmark of the voxmetrics profile (issue 17): `score --profile voxmetrics` against `score --acoustics` (deepeval profile with the standards set) on the same archive; goal ≤ 1.5× the time.
//
// The archive is generated once into the temp folder: deepeval JSON test cases of six exchanges
// each, the caller and agent clips taken from real read speech (pocketsphinx-testdata) when it is
// installed, else from the bundled sample clips, each turn at its own level. Both configurations
// score it in this process with the pool's in-thread mode (workers 0), alternating, and the
// medians of REPEATS runs are compared.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeAudio, writeWavPcm16 } from "../src/audio/index.js";
import { scoreArchive } from "../src/report/index.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CALLS = 120;
const EXCHANGES = 6;
const REPEATS = 5;
const TESTDATA = "/usr/share/pocketsphinx/test/data";

function sources(): { agents: string[]; users: string[]; origin: string } {
  const cards = ["001", "002", "003", "004", "005"].map((n) => join(TESTDATA, "cards", `${n}.wav`));
  const librivox = ["0880", "0930"].map((n) => join(TESTDATA, "librivox", `sense_and_sensibility_01_austen_64kb-${n}.wav`));
  if ([...cards, ...librivox].every(existsSync)) return { agents: cards, users: librivox, origin: "pocketsphinx-testdata (16 kHz read speech)" };
  const clips = join(ROOT, "fixtures", "sample-archive", "clips");
  return { agents: [1, 2, 3].map((i) => join(clips, `agent-${i}.wav`)), users: [1, 2, 3].map((i) => join(clips, `user-${i}.wav`)), origin: "fixtures/sample-archive clips (8 kHz)" };
}

/** Write the archive (cached by its shape) and return its folder. */
function archive(): { dir: string; origin: string; seconds: number } {
  const { agents, users, origin } = sources();
  const dir = join(tmpdir(), `voxmetrics-bench-profile-${CALLS}x${EXCHANGES}-${origin.split(" ")[0].replace(/\W/g, "")}`);
  const pcm = (p: string) => decodeAudio(readFileSync(p));
  let seconds = 0;
  const marker = join(dir, "done.json");
  if (existsSync(marker)) return { dir, origin, seconds: JSON.parse(readFileSync(marker, "utf8")).seconds };
  mkdirSync(join(dir, "clips"), { recursive: true });
  for (let c = 0; c < CALLS; c++) {
    const turns = [];
    let t = 0;
    for (let e = 0; e < EXCHANGES; e++) {
      for (const [role, list] of [["user", users], ["assistant", agents]] as const) {
        const src = pcm(list[(c + e) % list.length]);
        const gain = 0.5 + 0.5 * (((c * 7 + e * 3 + (role === "user" ? 1 : 0)) % 10) / 10);
        const name = `c${c}-e${e}-${role}.wav`;
        writeFileSync(join(dir, "clips", name), writeWavPcm16(src.samples.map((x) => Math.round(x * gain)), src.sampleRate, src.channels));
        const duration = src.frames / src.sampleRate;
        turns.push({ role, content: role === "user" ? "Could you help me with my account?" : "Of course, let me look that up for you.", audio: { url: `clips/${name}`, start_time: Math.round(t * 1000) / 1000 } });
        t += duration + (role === "user" ? 0.9 : 0.7);
        seconds += duration;
      }
    }
    writeFileSync(join(dir, `call-${c}.json`), JSON.stringify({ name: `call-${c}`, turns }));
  }
  writeFileSync(marker, JSON.stringify({ seconds }));
  return { dir, origin, seconds };
}

async function timeRun(dir: string, score: { profile?: "deepeval" | "voxmetrics"; acoustics?: boolean }): Promise<number> {
  const out = join(tmpdir(), "voxmetrics-bench-profile-results.jsonl");
  writeFileSync(out, "");
  const t0 = performance.now();
  const r = await scoreArchive({ inputs: [dir], out, score, pool: { workers: 0 } });
  const ms = performance.now() - t0;
  if (r.summary.errors > 0) throw new Error(`${r.summary.errors} call(s) failed to score`);
  return ms;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

export async function benchProfile(): Promise<void> {
  const { dir, origin, seconds } = archive();
  process.stdout.write(`archive: ${CALLS} calls × ${EXCHANGES} exchanges, ${(seconds / 60).toFixed(1)} min of audio, ${origin}\n`);
  // One warm-up of each configuration (module compilation, page faults), then alternating runs.
  await timeRun(dir, { acoustics: true });
  await timeRun(dir, { profile: "voxmetrics" });
  const acoustics: number[] = [], profile: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    acoustics.push(await timeRun(dir, { acoustics: true }));
    profile.push(await timeRun(dir, { profile: "voxmetrics" }));
  }
  const a = median(acoustics), p = median(profile);
  process.stdout.write(`score --acoustics:           median ${a.toFixed(0)} ms (${acoustics.map((v) => v.toFixed(0)).join(", ")})\n`);
  process.stdout.write(`score --profile voxmetrics:  median ${p.toFixed(0)} ms (${profile.map((v) => v.toFixed(0)).join(", ")})\n`);
  process.stdout.write(`profile / acoustics: ${(p / a).toFixed(2)}× (goal ≤ 1.5×); pairwise ${profile.map((v, i) => (v / acoustics[i]).toFixed(2)).join(", ")}\n`);
}
