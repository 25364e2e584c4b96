// Parity comparison rules of shared/parity/README.md: exact strings/ints/bools/nulls, floats within a relative tolerance.

export interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Compare `actual` with `expected` recursively; numbers within `rel` relative (absolute floor `abs`). Key order is checked. */
export function compareDeep(actual: unknown, expected: unknown, path = "$", rel = 1e-6, abs = 1e-12, out: Mismatch[] = []): Mismatch[] {
  if (typeof expected === "number" && typeof actual === "number") {
    if (Number.isInteger(expected) && Number.isInteger(actual) && Math.abs(expected) > 1) {
      if (expected !== actual) out.push({ path, expected, actual });
    } else if (Math.abs(actual - expected) > Math.max(rel * Math.max(Math.abs(actual), Math.abs(expected)), abs)) {
      out.push({ path, expected, actual });
    }
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push({ path: `${path}.length`, expected: expected.length, actual: Array.isArray(actual) ? actual.length : actual });
      return out;
    }
    expected.forEach((e, i) => compareDeep(actual[i], e, `${path}[${i}]`, rel, abs, out));
    return out;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
      out.push({ path, expected, actual });
      return out;
    }
    const ek = Object.keys(expected);
    const ak = Object.keys(actual as object);
    if (ek.join(",") !== ak.join(",")) out.push({ path: `${path} (keys)`, expected: ek, actual: ak });
    for (const k of ek) compareDeep((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`, rel, abs, out);
    return out;
  }
  if (actual !== expected) out.push({ path, expected, actual });
  return out;
}
