// The report's embedded data: breakdown entries placed on turns (assistant ordinals mapped), error records, a bad results line named by file and line, turn audio linked or embedded.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTurnAudioLocator, readReportData, renderHtmlReport, scoreArchive, type ReportData } from "../../src/report/index.js";
import type { ResultRecord, TurnRecord } from "../../src/scoring/index.js";
import { bareId } from "../helpers/ids.js";
import { REPO_ROOT } from "../helpers/shared.js";

const tmp = mkdtempSync(join(tmpdir(), "vx-report-data-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function turn(index: number, role: "user" | "assistant", start: number, dur: number): TurnRecord {
  return { index, role, start_time: start, duration: dur, measurements: { error: "x" } } as TurnRecord;
}

function metric(score: number, breakdown: Record<string, unknown>) {
  return { score, threshold: 0.5, success: score >= 0.5, skipped: false, strict_mode: false, reason: `r ${score}`, score_breakdown: breakdown, error: null };
}

function record(id: string, turns: TurnRecord[]): ResultRecord {
  return {
    id, name: null, source: { format: "deepeval-json", path: "nowhere.json" }, status: "ok", error: null, elapsed_ms: 1, turns,
    metrics: {
      "Voice Naturalness": metric(0.8, { eligible_turns: 2, turns: [{ turn: 1, score: 0.81234567 }, { turn: 2, score: 0.7 }] }),
      "Voice Consistency": metric(0.9, { eligible_turns: 2, turns: [{ turn: 1, rms_dbfs: -20 }, { turn: 3, rms_dbfs: -21 }] }),
      "Turn-Taking Naturalness": metric(0.7, { transitions: [{ from_turn: 1, to_turn: 2, kind: "gap", gap_seconds: 0.5, score: 0.7 }] }),
    },
  };
}

async function dataOf(records: unknown[], extra = ""): Promise<ReportData> {
  const path = join(tmp, `r-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n" + extra);
  return readReportData(path, { version: "test" });
}

/** Entries of one call as {metric, label, turn, values by key}. */
function entries(data: ReportData, k: number) {
  return data.detail[k]!.b.map((e) => {
    const keys = data.K[e[1] as number];
    return { metric: data.metrics[e[0] as number].name, label: keys[0], turn: e[2], values: Object.fromEntries(keys.slice(1).map((key, i) => [key, e[3 + i]])) };
  });
}

describe("report data", () => {
  it("places breakdown entries on turns: assistant ordinals for Naturalness, indices for Consistency, to_turn for transitions", async () => {
    const data = await dataOf([record("a", [turn(0, "user", 0, 1), turn(1, "assistant", 1.5, 1), turn(2, "user", 3, 1), turn(3, "assistant", 4.2, 1)])]);
    const es = entries(data, 0);
    const nat = es.filter((e) => e.metric === "Voice Naturalness" && e.label === "turns");
    expect(nat.map((e) => [e.turn, e.values.score])).toEqual([[1, 0.8123], [3, 0.7]]);
    expect(es.filter((e) => e.metric === "Voice Consistency" && e.label === "turns").map((e) => e.turn)).toEqual([1, 3]);
    expect(es.find((e) => e.label === "transitions")).toMatchObject({ turn: 2, values: { kind: "gap", gap_seconds: 0.5, score: 0.7 } });
    expect(es.find((e) => e.metric === "Voice Naturalness" && e.label === "")).toMatchObject({ turn: -1, values: { eligible_turns: 2 } });
    expect(data.detail[0]!.tr).toEqual([[0, 1, 0, 0.5], [1, 2, 0, 0.5], [2, 3, 0, 0.2]]);
  });

  it("leaves assistant ordinals unplaced when a turn is missing from the record (its role is unknown)", async () => {
    const data = await dataOf([record("a", [turn(0, "user", 0, 1), turn(1, "assistant", 1.5, 1), turn(3, "assistant", 4.2, 1)])]);
    const nat = entries(data, 0).filter((e) => e.metric === "Voice Naturalness" && e.label === "turns");
    expect(nat.map((e) => e.turn)).toEqual([-1, -1]);
    // Unplaced entries keep their turn key so the call's list still says which one.
    expect(nat.map((e) => e.values.turn)).toEqual([1, 2]);
  });

  it("keeps error records with their message, and the page data is safe inside <script>", async () => {
    const bad = { id: "b", name: null, source: { format: null, path: "x.json" }, status: "error", error: { code: "INVALID_JSON", message: "x.json: </script><b>bad" }, elapsed_ms: 0 };
    const data = await dataOf([record("a", [turn(0, "user", 0, 1)]), bad]);
    expect(data.calls.err).toEqual([0, 1]);
    expect(data.errors).toEqual([[1, "INVALID_JSON", data.S.indexOf("x.json: </script><b>bad")]]);
    expect(data.detail[1]).toBeNull();
    const html = renderHtmlReport(data);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
  });

  it("names the file and line of a bad results line; a cut last line (killed run) is ignored", async () => {
    const ok = record("a", [turn(0, "user", 0, 1)]);
    await expect(dataOf([ok], '{"id": "c", "sta')).resolves.toMatchObject({ header: { calls: 1 } });
    const path = join(tmp, "bad.jsonl");
    writeFileSync(path, `${JSON.stringify(ok)}\n{oops\n${JSON.stringify(ok)}\n`);
    await expect(readReportData(path, { version: "t" })).rejects.toThrow(`${path}: line 2: not a JSON line`);
    writeFileSync(path, `${JSON.stringify(ok)}\n{"no": "id"}\n`);
    await expect(readReportData(path, { version: "t" })).rejects.toThrow(`${path}: line 2: not a result record`);
    await expect(readReportData(join(tmp, "missing.jsonl"), { version: "t" })).rejects.toThrow("missing.jsonl: results file not found");
  });
});

describe("turn audio", () => {
  const results = join(tmp, "sample", "results.jsonl");
  let records: ResultRecord[];
  beforeAll(async () => {
    mkdirSync(join(tmp, "sample"), { recursive: true });
    await scoreArchive({ inputs: [join(REPO_ROOT, "fixtures", "sample-archive")], out: results, pool: { workers: 1 } });
    records = readFileSync(results, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  }, 120_000);

  it("links files by paths relative to the report, a recording's turns as media fragments; inline clips get no link", () => {
    const locate = createTurnAudioLocator({ reportPath: join(REPO_ROOT, "voxmetrics-out", "report.html"), embed: false, cwd: REPO_ROOT });
    const json = records.find((r) => bareId(r.id) === "order-status.json#0")!;
    const links = locate(json)!;
    expect(links.size).toBe(json.turns!.length);
    for (const src of links.values()) expect(src).toMatch(/^\.\.\/fixtures\/sample-archive\/[^#]+\.wav$/);
    const dual = records.find((r) => r.source.format === "dual-channel")!;
    const t1 = dual.turns![1];
    expect(locate(dual)!.get(1)).toBe(`../fixtures/sample-archive/recordings/call-0001.flac#t=${t1.start_time!.toFixed(3)},${(t1.start_time! + t1.duration!).toFixed(3)}`);
    const sim = records.find((r) => r.source.format === "deepeval-sim-folder")!;
    expect(locate(sim)!.size).toBe(0);
  });

  it("--embed-audio carries every turn's bytes as data: URIs", () => {
    const locate = createTurnAudioLocator({ reportPath: join(tmp, "report.html"), embed: true, cwd: REPO_ROOT });
    for (const format of ["deepeval-sim-folder", "dual-channel", "deepeval-json"]) {
      const r = records.find((x) => x.source.format === format)!;
      const links = locate(r)!;
      expect(links.size, format).toBe(r.turns!.length);
      for (const src of links.values()) expect(src).toMatch(/^data:audio\/wav;base64,UklGR/);
    }
  });
});
