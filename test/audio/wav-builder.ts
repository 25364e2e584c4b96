// Builds WAV files of any encoding for decoder tests.

export interface WavSpec {
  format?: number;
  channels?: number;
  sampleRate?: number;
  bits?: number;
  data: Uint8Array;
  /** Declared data size (defaults to the real size). */
  dataSize?: number;
  /** Extra chunks placed before fmt, between fmt and data, or after data. */
  before?: Array<[string, Uint8Array]>;
  between?: Array<[string, Uint8Array]>;
  extensibleSubformat?: number;
  dataBeforeFmt?: boolean;
}

function chunk(id: string, body: Uint8Array, declared = body.length): Uint8Array {
  const out = new Uint8Array(8 + body.length + (body.length & 1));
  for (let i = 0; i < 4; i++) out[i] = id.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, declared, true);
  out.set(body, 8);
  return out;
}

export function buildWav(spec: WavSpec): Uint8Array {
  const channels = spec.channels ?? 1;
  const rate = spec.sampleRate ?? 8000;
  const bits = spec.bits ?? 16;
  const ext = spec.extensibleSubformat !== undefined;
  const fmt = new Uint8Array(ext ? 40 : 16);
  const v = new DataView(fmt.buffer);
  v.setUint16(0, ext ? 0xfffe : (spec.format ?? 1), true);
  v.setUint16(2, channels, true);
  v.setUint32(4, rate, true);
  v.setUint32(8, (rate * channels * bits) / 8, true);
  v.setUint16(12, (channels * bits) / 8, true);
  v.setUint16(14, bits, true);
  if (ext) {
    v.setUint16(16, 22, true);
    v.setUint16(18, bits, true);
    v.setUint32(20, channels === 2 ? 3 : 4, true);
    v.setUint32(24, spec.extensibleSubformat!, true);
    const guidTail = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];
    fmt.set(guidTail.slice(2), 28);
  }
  const parts: Uint8Array[] = [];
  for (const [id, b] of spec.before ?? []) parts.push(chunk(id, b));
  const fmtChunk = chunk("fmt ", fmt);
  const dataChunk = chunk("data", spec.data, spec.dataSize ?? spec.data.length);
  const betweenChunks = (spec.between ?? []).map(([id, b]) => chunk(id, b));
  if (spec.dataBeforeFmt) parts.push(dataChunk, fmtChunk);
  else parts.push(fmtChunk, ...betweenChunks, dataChunk);
  let bodyLen = 4;
  for (const p of parts) bodyLen += p.length;
  let realData = parts;
  if (spec.dataSize !== undefined && spec.dataSize > spec.data.length) {
    const last = parts[parts.length - 1];
    realData = [...parts.slice(0, -1), last.subarray(0, 8 + spec.data.length)];
    bodyLen = 4 + realData.reduce((a, p) => a + p.length, 0);
  }
  const out = new Uint8Array(8 + bodyLen);
  out.set([0x52, 0x49, 0x46, 0x46]);
  new DataView(out.buffer).setUint32(4, bodyLen, true);
  out.set([0x57, 0x41, 0x56, 0x45], 8);
  let o = 12;
  for (const p of realData) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function int16Bytes(values: number[]): Uint8Array {
  return new Uint8Array(Int16Array.from(values).buffer);
}
