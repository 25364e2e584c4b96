// Option resolution shared by the speech models: defaults overlaid with what the caller gave, unknown names refused.

/** `defaults` overlaid with the defined entries of `partial`; a key `defaults` does not have is a RangeError naming it. */
export function overlayOptions<T extends object>(defaults: Readonly<T>, partial: Partial<T>, label: string): T {
  const out = { ...defaults } as T;
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(defaults, key)) throw new RangeError(`${label} option ${key} is unknown`);
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
