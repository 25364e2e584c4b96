// Python's text behaviour where results depend on it: `{:.2f}` rounding in reasons, str.split()/strip() whitespace in word counts (voice-metrics.md §3.8, §7).

/**
 * Python's `format(x, ".2f")`: JavaScript's toFixed(2) also rounds the exact binary value but breaks
 * exact ties upward; Python breaks them to even. A double is an exact 2-decimal tie only when 8·x is
 * an odd integer, so only those values take the half-even path.
 */
export function fmt2(x: number): string {
  const eight = 8 * x;
  if (Number.isInteger(eight) && Math.abs(eight) % 2 === 1) {
    const f = Math.floor(x * 100);
    const even = f % 2 === 0 ? f : f + 1;
    return (even / 100).toFixed(2);
  }
  return x.toFixed(2);
}

/** Python's `str.isspace()` set, which `split()` and `strip()` use (JavaScript's \s differs). */
const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function isPyWhitespace(code: number): boolean {
  return PY_WHITESPACE.has(code);
}

/** Python's `str.split()` with no argument: tokens separated by runs of whitespace. */
export function pySplit(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (isPyWhitespace(text.charCodeAt(i))) {
      if (start >= 0) out.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  if (start >= 0) out.push(text.slice(start));
  return out;
}

/** Python's `str.strip()` with no argument. */
export function pyStrip(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && isPyWhitespace(text.charCodeAt(a))) a++;
  while (b > a && isPyWhitespace(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}

/** Words of a transcript as Python's `len(str.split())` counts them (voice-metrics.md §3.8). */
export function countWords(transcript: string): number {
  return pySplit(transcript).length;
}
