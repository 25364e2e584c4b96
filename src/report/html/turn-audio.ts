// Where each turn's audio is, for the report's play buttons: a path relative to the report (a recording's span as a media fragment), or the bytes as a data: URI with --embed-audio.
import { existsSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { discoverCalls, loadCall } from "../../ingest/index.js";
import type { CallRef } from "../../ingest/types.js";
import { guessMimeType } from "../../model/audio.js";
import type { ResultRecord } from "../../scoring/index.js";
import type { TurnAudioLocator } from "./report-data.js";

export interface TurnAudioOptions {
  /** The report file: relative paths are made from its folder. */
  reportPath: string;
  /** Embed the bytes (data: URIs) instead of linking files. */
  embed: boolean;
  /** Folder the results' source paths are relative to (the scoring run's working directory). */
  cwd?: string;
}

/** A path relative to the report's folder, as a URL path (forward slashes, each segment escaped). */
function relativeUrl(fromDir: string, file: string): string {
  return relative(fromDir, file).split(sep).map(encodeURIComponent).join("/");
}

/**
 * A locator that finds each turn's audio by reading the call again from its source (only files, not
 * decoding). Calls whose source is gone get no play buttons; nothing here fails the report.
 */
export function createTurnAudioLocator(options: TurnAudioOptions): TurnAudioLocator {
  const reportDir = dirname(resolve(options.reportPath));
  const cwd = options.cwd ?? process.cwd();
  const refsByPath = new Map<string, CallRef[]>();
  const refsOf = (path: string): CallRef[] => {
    let refs = refsByPath.get(path);
    if (!refs) {
      try {
        refs = discoverCalls([path]).calls;
      } catch {
        refs = [];
      }
      refsByPath.set(path, refs);
    }
    return refs;
  };

  return (record: ResultRecord) => {
    if (!record.source?.path || !Array.isArray(record.turns) || record.turns.length === 0) return null;
    const source = resolve(cwd, record.source.path);
    if (!existsSync(source)) return null;
    const out = new Map<number, string>();
    // A dual-channel recording: each turn is a span of the one file, played through a media fragment.
    if (record.source.format === "dual-channel" && !options.embed) {
      const url = relativeUrl(reportDir, source);
      for (const t of record.turns) {
        if (t.start_time !== null && t.duration !== null) out.set(t.index, `${url}#t=${t.start_time.toFixed(3)},${(t.start_time + t.duration).toFixed(3)}`);
      }
      return out;
    }
    const matches = refsOf(source).filter((r) => !r.error && (r.id === record.id || record.id.endsWith(`/${r.id}`) || r.id.endsWith(`/${record.id}`)));
    if (matches.length !== 1) return null;
    let loaded;
    try {
      loaded = loadCall(matches[0]);
      loaded.testCase.turns.forEach((turn, i) => {
        const audio = turn.audio;
        if (!audio) return;
        if (options.embed) {
          if (!audio.hasBytes) return;
          const mime = audio.mimeType ?? (audio.path ? guessMimeType(audio.path) : null) ?? "audio/wav";
          out.set(i, `data:${mime};base64,${Buffer.from(audio.getBytes()).toString("base64")}`);
        } else if (audio.path && existsSync(audio.path)) {
          out.set(i, relativeUrl(reportDir, audio.path));
        }
      });
    } catch {
      return null;
    } finally {
      loaded?.dispose?.();
    }
    return out;
  };
}
