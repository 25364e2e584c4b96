// Base64 decoding with Python's `base64.b64decode` default (non-validating) rules (voice-metrics.md §2.1).

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 61; // "="
const CANONICAL = /^[A-Za-z0-9+/]*={0,2}$/;

/** Thrown when the text cannot be decoded (Python raises binascii.Error "Incorrect padding"). */
class Base64Error extends Error {}

/**
 * Decode like CPython's binascii.a2b_base64 in non-strict mode: characters outside the standard
 * alphabet are discarded (URL-safe `-`/`_` included), a pad sequence after at least two data
 * characters of a quantum ends decoding, and a dangling partial quantum is an error.
 */
export function decodeBase64Python(text: string): Uint8Array {
  if (text.length % 4 === 0 && CANONICAL.test(text)) return decodeFast(text);
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let o = 0;
  let quad = 0;
  let acc = 0;
  let pads = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === PAD) {
      if (quad >= 2 && quad + ++pads >= 4) {
        quad = 0;
        break;
      }
      continue;
    }
    const v = ch < 256 ? DECODE[ch] : -1;
    if (v < 0) continue;
    pads = 0;
    acc = (acc << 6) | v;
    quad++;
    if (quad === 2) out[o++] = (acc >> 4) & 0xff;
    else if (quad === 3) out[o++] = (acc >> 2) & 0xff;
    else if (quad === 4) {
      out[o++] = acc & 0xff;
      quad = 0;
      acc = 0;
    }
  }
  if (quad !== 0) {
    throw new Base64Error(
      quad === 1
        ? "Invalid base64-encoded string: number of data characters cannot be 1 more than a multiple of 4"
        : "Incorrect padding",
    );
  }
  return out.subarray(0, o);
}

/** Node's lenient decoder (URL-safe alphabet, missing padding); used outside --compat deepeval as a fallback. */
export function decodeBase64Lenient(text: string): Uint8Array {
  return decodeFast(text);
}

function decodeFast(text: string): Uint8Array {
  if (typeof Buffer !== "undefined") {
    const b = Buffer.from(text, "base64");
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Standard base64 encoding with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  if (typeof Buffer !== "undefined") return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let bin = "";
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin);
}
