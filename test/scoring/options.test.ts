// Options resolved once: defaults, validation naming the option, compat carried resolved, acoustics as resolved options.
import { describe, expect, it } from "vitest";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { DEFAULT_AUDIO_LIMITS } from "../../src/audio/limits.js";
import { DEFAULT_POOL_OPTIONS, resolvePoolOptions } from "../../src/pool/pool.js";
import { DEFAULT_VOXMETRICS_PROFILE_OPTIONS } from "../../src/metrics/index.js";
import { DEFAULT_SCORE_OPTIONS, resolveScoreOptions } from "../../src/scoring/options.js";

describe("resolveScoreOptions", () => {
  it("fills the defaults and freezes the result", () => {
    const o = resolveScoreOptions();
    expect(o).toEqual({ metrics: [], threshold: 0.5, strict: false, compat: "voxmetrics", acoustics: null, profile: "deepeval", profileOptions: DEFAULT_VOXMETRICS_PROFILE_OPTIONS, limits: DEFAULT_AUDIO_LIMITS });
    expect(o).toEqual(DEFAULT_SCORE_OPTIONS);
    expect(Object.isFrozen(o) && Object.isFrozen(DEFAULT_SCORE_OPTIONS)).toBe(true);
  });

  it("profile: deepeval by default, voxmetrics on request with overridable constants, anything else named", () => {
    expect(resolveScoreOptions({ profile: "voxmetrics" }).profile).toBe("voxmetrics");
    expect(resolveScoreOptions({ profileOptions: { snrDb: { bad: -3 } } }).profileOptions.snrDb).toEqual({ good: 12, bad: -3 });
    expect(() => resolveScoreOptions({ profile: "eva" as never })).toThrow(/must be one of deepeval, voxmetrics, got eva/);
    expect(() => resolveScoreOptions({ profileOptions: { truncatedFactor: 2 } })).toThrow(/profile option truncatedFactor must be in \[0, 1\]/);
  });

  it("acoustics: true means every default, a partial set is resolved and validated, false and null leave it out", () => {
    expect(resolveScoreOptions({ acoustics: true }).acoustics).toEqual(DEFAULT_ACOUSTICS_OPTIONS);
    expect(resolveScoreOptions({ acoustics: { minPauseS: 0.5 } }).acoustics).toEqual({ ...DEFAULT_ACOUSTICS_OPTIONS, minPauseS: 0.5 });
    expect(resolveScoreOptions({ acoustics: false }).acoustics).toBeNull();
    expect(resolveScoreOptions({ acoustics: null }).acoustics).toBeNull();
    expect(() => resolveScoreOptions({ acoustics: { minPauseS: -1 } })).toThrow(/minPauseS must be a number in \[0, 60\]/);
  });

  it("refuses bad values with INVALID_OPTION naming the option", () => {
    const refused = (input: object, field: string) =>
      expect(() => resolveScoreOptions(input)).toThrow(expect.objectContaining({ code: "INVALID_OPTION", field }));
    refused({ compat: "python" }, "compat");
    refused({ threshold: Number.NaN }, "threshold");
    refused({ strict: "yes" }, "strict");
    refused({ metrics: ["naturalness", "loudness"] }, "--metrics");
    expect(resolveScoreOptions({ metrics: ["turn_taking"], threshold: null, strict: true, compat: "deepeval" })).toMatchObject({ metrics: ["turn_taking"], threshold: null, strict: true, compat: "deepeval" });
  });
});

describe("resolvePoolOptions", () => {
  it("defaults to every core and refuses counts out of range by name", () => {
    expect(resolvePoolOptions()).toMatchObject(DEFAULT_POOL_OPTIONS);
    expect(resolvePoolOptions({ workers: 0 }).workers).toBe(0);
    expect(() => resolvePoolOptions({ workers: -1 })).toThrow(expect.objectContaining({ code: "INVALID_OPTION", field: "workers" }));
    expect(() => resolvePoolOptions({ maxCallsPerTask: 0 })).toThrow(expect.objectContaining({ field: "maxCallsPerTask" }));
  });
});
