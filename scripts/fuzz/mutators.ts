// Seeded input generators of the fuzzing harness: WAV files (chunk sizes, format tags incl. extensible sub-formats, channels, rates, bit depths, truncation, byte flips) and JSON/JSONL (wrong types, NaN/Infinity, huge strings, deep nesting, invalid UTF-8, BOMs, base64 garbage, traversal).

/** A small deterministic PRNG (mulberry32): the same seed gives the same inputs on every machine. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** One generated input: a file name (its extension tells the CLI what it is) and its bytes. */
export interface FuzzInput {
  name: string;
  bytes: Uint8Array;
  /** What was done to it (for the failure report). */
  recipe: string[];
}

const GUID_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];

function chunk(id: string, body: Uint8Array, declared = body.length): Uint8Array {
  const out = new Uint8Array(8 + body.length + (body.length & 1));
  for (let i = 0; i < 4; i++) out[i] = id.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, declared >>> 0, true);
  out.set(body, 8);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

interface WavShape {
  tag: number;
  channels: number;
  rate: number;
  bits: number;
  frames: number;
  extensible: boolean;
}

/** A well-formed WAV of the given shape holding a tone (PCM/float) or arbitrary codec bytes. */
export function buildWav(s: WavShape, rng: Rng): Uint8Array {
  const width = Math.max(1, Math.ceil(s.bits / 8));
  const data = new Uint8Array(s.frames * s.channels * width);
  const dv = new DataView(data.buffer);
  for (let i = 0; i < s.frames * s.channels; i++) {
    const x = Math.sin((2 * Math.PI * 220 * Math.floor(i / s.channels)) / Math.max(1, s.rate)) * 0.5;
    const at = i * width;
    if (s.tag === 3 && s.bits === 32) dv.setFloat32(at, x, true);
    else if (s.tag === 3 && s.bits === 64) dv.setFloat64(at, x, true);
    else if (s.tag === 1 && s.bits === 16) dv.setInt16(at, Math.round(x * 32767), true);
    else if (s.tag === 1 && s.bits === 8) data[at] = Math.round(128 + x * 127);
    else for (let k = 0; k < width; k++) data[at + k] = rng.int(0, 255);
  }
  const fmt = new Uint8Array(s.extensible ? 40 : 16);
  const v = new DataView(fmt.buffer);
  v.setUint16(0, s.extensible ? 0xfffe : s.tag, true);
  v.setUint16(2, s.channels & 0xffff, true);
  v.setUint32(4, s.rate >>> 0, true);
  v.setUint32(8, (s.rate * s.channels * width) >>> 0, true);
  v.setUint16(12, (s.channels * width) & 0xffff, true);
  v.setUint16(14, s.bits & 0xffff, true);
  if (s.extensible) {
    v.setUint16(16, 22, true);
    v.setUint16(18, s.bits, true);
    v.setUint32(20, s.channels === 2 ? 3 : 4, true);
    v.setUint16(24, s.tag, true);
    fmt.set(GUID_TAIL, 26);
  }
  const body = concat([new TextEncoder().encode("WAVE"), chunk("fmt ", fmt), chunk("data", data)]);
  return concat([chunk("RIFF", body).subarray(0, 8), body]);
}

const TAGS = [0, 1, 1, 1, 2, 3, 3, 6, 7, 0x11, 0x31, 0x55, 0x161, 0x162, 0xfffe, 0xffff];
const CHANNELS = [0, 1, 1, 1, 2, 2, 3, 6, 8, 32, 33, 255, 65535];
const RATES = [0, 1, 500, 999, 1000, 1200, 1500, 1700, 2000, 8000, 16000, 22050, 44100, 48000, 96000, 768000, 768001, 2 ** 31 - 1, 2 ** 31, 0xffffffff];
const BITS = [0, 1, 4, 8, 12, 16, 16, 20, 24, 32, 33, 48, 64, 0xffff];

/** Offsets of the header fields of a canonical 44-byte header. */
const FIELDS: Array<[string, number, 2 | 4]> = [
  ["riff size", 4, 4],
  ["fmt size", 16, 4],
  ["format tag", 20, 2],
  ["channels", 22, 2],
  ["rate", 24, 4],
  ["byte rate", 28, 4],
  ["block align", 32, 2],
  ["bits", 34, 2],
  ["data size", 40, 4],
];

/** A WAV: a valid one of a random shape, then 0–4 mutations. */
export function mutatedWav(rng: Rng, index: number): FuzzInput {
  const shape: WavShape = {
    tag: rng.pick([1, 1, 1, 3, 7, 6]),
    channels: rng.pick([1, 1, 2]),
    rate: rng.pick([8000, 16000, 24000, 44100, 48000]),
    bits: 16,
    frames: rng.int(0, 4000),
    extensible: rng.chance(0.15),
  };
  shape.bits = shape.tag === 3 ? rng.pick([32, 64]) : shape.tag === 1 ? rng.pick([8, 16, 16, 24, 32]) : 8;
  const recipe = [`wav tag ${shape.tag}${shape.extensible ? " (extensible)" : ""}, ${shape.channels} ch, ${shape.rate} Hz, ${shape.bits} bits, ${shape.frames} frames`];
  let b = buildWav(shape, rng);
  const mutations = rng.int(0, 4);
  for (let m = 0; m < mutations; m++) {
    const kind = rng.int(0, 9);
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const set = (name: string, at: number, size: 2 | 4, value: number) => {
      if (shape.extensible && at >= 36) at += 24;
      if (at + size > b.length) return;
      if (size === 2) dv.setUint16(at, value & 0xffff, true);
      else dv.setUint32(at, value >>> 0, true);
      recipe.push(`${name} = ${value}`);
    };
    if (kind === 0) set("format tag", 20, 2, rng.pick(TAGS));
    else if (kind === 1) set("channels", 22, 2, rng.pick(CHANNELS));
    else if (kind === 2) set("rate", 24, 4, rng.pick(RATES));
    else if (kind === 3) set("bits", 34, 2, rng.pick(BITS));
    else if (kind === 4) {
      const [name, at, size] = rng.pick(FIELDS);
      set(name, at, size, rng.pick([0, 1, 2, 7, 15, 16, 17, 18, 40, 44, 0x7fffffff, 0xffffffff, rng.int(0, 1 << 20)]));
    } else if (kind === 5 && shape.extensible && b.length > 46) {
      dv.setUint16(44, rng.pick(TAGS), true);
      recipe.push("extensible sub-format changed");
    } else if (kind === 6) {
      const at = rng.int(0, b.length);
      b = b.slice(0, at);
      recipe.push(`truncated at ${at}`);
    } else if (kind === 7) {
      const flips = rng.int(1, 20);
      for (let f = 0; f < flips && b.length > 0; f++) b[rng.int(0, b.length - 1)] ^= rng.int(1, 255);
      recipe.push(`${flips} byte flips`);
    } else if (kind === 8) {
      const junk = chunk(rng.pick(["LIST", "junk", "fmt ", "data", "fact", "\u0000\u0000\u0000\u0000"]), new Uint8Array(rng.int(0, 64)), rng.chance(0.3) ? 0xffffffff : undefined);
      b = concat([b.subarray(0, 12), junk, b.subarray(12)]);
      recipe.push("extra chunk before fmt");
    } else {
      b = concat([b, new Uint8Array(rng.int(1, 256)).map(() => rng.int(0, 255))]);
      recipe.push("trailing garbage");
    }
  }
  return { name: `w${index}.wav`, bytes: b, recipe };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function baseTestCase(rng: Rng, clipBase64: string): { [k: string]: Json } {
  const turns: Json[] = [];
  const n = rng.int(1, 4);
  for (let i = 0; i < n; i++) {
    const audio: { [k: string]: Json } = rng.chance(0.5)
      ? { dataBase64: clipBase64, mimeType: "audio/wav", start_time: i * 1.5 }
      : { url: rng.pick(["clip.wav", "./clip.wav", "clip.wav"]), start_time: i * 1.5 };
    turns.push({ role: i % 2 === 0 ? "user" : "assistant", content: `turn ${i}`, audio });
  }
  return { name: "fuzz", turns };
}

function voiceLiveRow(rng: Rng, clipBase64: string): { [k: string]: Json } {
  return rng.chance(0.5)
    ? { WavPath: rng.pick(["clip.wav", "../clip.wav", "/etc/passwd", "sub/../clip.wav", "clip.wav"]), Question: "q", Answer: "a", conversationID: `c${rng.int(1, 3)}` }
    : { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: `data:audio/wav;base64,${clipBase64}`, format: "wav" } }] }], expected_output: "a", conversationID: `m${rng.int(1, 3)}` };
}

const WRONG_VALUES: Json[] = [null, true, 0, -1, 1e308, -1e-308, "", "x", [], {}, [null], { turns: [] }];
const TRAVERSAL = ["../../../../../../etc/passwd", "/etc/passwd", "file:///etc/passwd", "file://%2e%2e/%2e%2e/etc/passwd", "http://[bad", "https://", "\u0000", "clip.wav\u0000.txt", "C:\\Windows\\win.ini", ""];

/** Every object of a JSON value, for picking a place to mutate. */
function objects(root: Json): Array<{ [k: string]: Json } | Json[]> {
  const out: Array<{ [k: string]: Json } | Json[]> = [];
  const seen = new Set<object>();
  const stack: Json[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    out.push(v);
    stack.push(...(Array.isArray(v) ? v : Object.values(v)));
  }
  return out;
}

function mutateValue(rng: Rng, root: Json, recipe: string[]): void {
  const targets = objects(root);
  const target = rng.pick(targets);
  const keys = Array.isArray(target) ? target.map((_, i) => String(i)) : Object.keys(target);
  if (keys.length === 0) return;
  const key = rng.pick(keys);
  const kind = rng.int(0, 5);
  let value: Json;
  if (kind === 0) value = structuredClone(rng.pick(WRONG_VALUES));
  else if (kind === 1) value = rng.pick(TRAVERSAL);
  else if (kind === 2) value = "x".repeat(rng.pick([1000, 100_000, 1_000_000]));
  else if (kind === 3) value = rng.pick(["!!!", "====", "QUJD=", "A", "AAAA====AAAA", "\u00ff\u00fe", "data:audio/wav;base64,%%%"]);
  else if (kind === 4) {
    let nested: Json = 0;
    const depth = rng.pick([100, 1000, 10_000, 50_000]);
    for (let d = 0; d < depth; d++) nested = rng.chance(0.5) ? [nested] : { a: nested };
    value = nested;
    recipe.push(`nested ${depth} deep`);
  } else value = rng.pick([-1, 1e400 === Infinity ? 1e300 : 0, 0.5, 3600 * 24 * 365]);
  (target as Record<string, Json>)[key] = value;
  recipe.push(`${key} = ${typeof value === "string" && value.length > 40 ? `string(${value.length})` : Array.isArray(value) || (value && typeof value === "object") ? typeof value : JSON.stringify(value)}`);
}

/** A JSON or JSONL input: a valid deepeval test case or Voice Live rows, then 0–4 mutations of the value and 0–2 of the text. */
export function mutatedJson(rng: Rng, index: number, clipBase64: string): FuzzInput {
  const jsonl = rng.chance(0.5);
  const recipe: string[] = [];
  const voiceLive = jsonl && rng.chance(0.3);
  const records: Json[] = [];
  const count = jsonl ? rng.int(1, 5) : 1;
  for (let r = 0; r < count; r++) records.push(voiceLive ? voiceLiveRow(rng, clipBase64) : baseTestCase(rng, clipBase64));
  recipe.push(`${voiceLive ? "voice live rows" : "test cases"} x${count} (${jsonl ? "jsonl" : "json"})`);
  const mutations = rng.int(0, 4);
  for (let m = 0; m < mutations; m++) mutateValue(rng, rng.pick(records), recipe);
  const textOf = (v: Json) => {
    try {
      return JSON.stringify(v);
    } catch {
      return "null";
    }
  };
  let text = jsonl ? records.map(textOf).join("\n") + "\n" : textOf(records.length === 1 ? records[0] : records);
  text = text.replace(/"__NEST__(\d+)"/g, (_, d: string) => "[{\"a\":".repeat(Number(d) / 2) + "0" + "}]".repeat(Number(d) / 2));
  let bytes: Uint8Array = new TextEncoder().encode(text);
  const textMutations = rng.int(0, 2);
  for (let m = 0; m < textMutations; m++) {
    const kind = rng.int(0, 7);
    if (kind === 0) {
      text = new TextDecoder().decode(bytes).replace(/\d+(\.\d+)?/, rng.pick(["NaN", "Infinity", "-Infinity", "1e999", "0x10", "01"]));
      bytes = new TextEncoder().encode(text);
      recipe.push("non-JSON number");
    } else if (kind === 1) {
      const at = rng.int(0, bytes.length);
      bytes = concat([bytes.subarray(0, at), new Uint8Array([rng.pick([0xff, 0xc0, 0xed, 0x80]), rng.pick([0xa0, 0x80, 0xff])]), bytes.subarray(at)]);
      recipe.push("invalid UTF-8");
    } else if (kind === 2) {
      bytes = concat([new Uint8Array(rng.pick([[0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]])), bytes]);
      recipe.push("byte-order mark");
    } else if (kind === 3) {
      const at = rng.int(0, bytes.length);
      bytes = bytes.slice(0, at);
      recipe.push(`truncated at ${at}`);
    } else if (kind === 4) {
      for (let f = rng.int(1, 10); f > 0 && bytes.length > 0; f--) bytes[rng.int(0, bytes.length - 1)] ^= rng.int(1, 255);
      recipe.push("byte flips");
    } else if (kind === 5 && jsonl) {
      bytes = concat([new TextEncoder().encode(Array.from({ length: rng.int(1, 25) }, () => "garbage {\n").join("")), bytes]);
      recipe.push("garbage lines first");
    } else if (kind === 6 && jsonl) {
      bytes = concat([bytes, new TextEncoder().encode(rng.pick(["null\n", "[]\n", "\"x\"\n", "{}\n", "{\"turns\":\n"]))]);
      recipe.push("stray record");
    } else {
      bytes = concat([bytes, new TextEncoder().encode(" \r\n\t ")]);
    }
  }
  return { name: `j${index}.${jsonl ? "jsonl" : "json"}`, bytes, recipe };
}
