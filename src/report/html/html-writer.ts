// The self-contained HTML report: page skeleton, styles, the report data as inline JSON, and the page script (Observable Plot bundled at build time into build/report-page.js).
import { existsSync, readFileSync } from "node:fs";
import { VoxError } from "../../model/errors.js";
import { writeFileAtomic } from "../../ingest/files.js";
import type { ReportData } from "./report-data.js";

/** The page script, built by `npm run build:report` (esbuild) from src/report/page/app.js. */
const PAGE_SCRIPT = new URL("../../../build/report-page.js", import.meta.url);

let pageScript: string | null = null;

/** The bundled page script (read once). */
export function readPageScript(): string {
  if (pageScript === null) {
    if (!existsSync(PAGE_SCRIPT)) {
      throw new VoxError("IO_ERROR", `the report page script is not built (${PAGE_SCRIPT.pathname}): run \`npm run build:report\``);
    }
    pageScript = readFileSync(PAGE_SCRIPT, "utf8");
  }
  return pageScript;
}

const STYLE = `
:root{--fail:#c62828;--pass:#2e7d32;--skip:#8d6e63;--user:#1565c0;--agent:#ef6c00;--muted:#666;--line:#ddd;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:14px;color:#222}
body{margin:0;padding:0 20px 40px;background:#fafafa}
header.run{padding:14px 0 6px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 8px}h3{font-size:14px;margin:10px 0 4px}
.muted{color:var(--muted)}.small{font-size:12px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;word-break:break-all}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:12px}
.card{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px 12px}
.card.gate-fail{border:2px solid var(--fail);background:#fff5f5}
.badge{display:inline-block;border-radius:3px;padding:0 5px;font-size:11px;font-weight:600;color:#fff;background:var(--fail);vertical-align:middle}
.badge.ok{background:var(--pass)}
figure.chart{margin:4px 0}figure.chart svg{max-width:100%;height:auto}
.nochart{color:var(--muted);font-style:italic;margin:8px 0}
table{border-collapse:collapse;background:#fff}
#calls,#calls thead,#calls tbody{display:block}#calls{width:max-content}#calls thead{position:sticky;top:0;z-index:1}
#calls tr{display:grid;grid-template-columns:var(--cols)}#calls th{position:static;white-space:normal;display:flex;align-items:flex-end}#calls td{overflow:hidden;overflow-wrap:anywhere}
#calls tbody tr{content-visibility:auto;contain-intrinsic-size:auto 44px}th,td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
th{position:sticky;top:0;background:#f0f0f0;cursor:pointer}th.sorted-asc::after{content:" ▲"}th.sorted-desc::after{content:" ▼"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.fail{color:var(--fail);font-weight:600}td.pass{color:var(--pass)}td.skip{color:var(--skip)}td.err{color:var(--fail);font-style:italic}
#calls tbody tr{cursor:pointer}#calls tbody tr:hover{background:#eef4ff}#calls tbody tr.selected{background:#dde8ff}
.tablewrap{max-height:70vh;overflow:auto;border:1px solid var(--line)}
.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:6px 0}
.pager button{margin:0 2px}
#call-view{margin-top:16px}
.turn{background:#fff;border:1px solid var(--line);border-radius:4px;margin:6px 0;padding:6px 10px;content-visibility:auto;contain-intrinsic-size:auto 120px}
.turn.interrupted{border-left:4px solid var(--fail)}
.turn .role-user{color:var(--user);font-weight:600}.turn .role-assistant{color:var(--agent);font-weight:600}
.entries{font-size:12px;margin:4px 0 0 0;padding-left:16px}
button.play{font-size:12px}
.errors li{margin:3px 0}
`;

const BODY = `
<header class="run" id="run-header"></header>
<main>
<section id="metrics-section"><h2>Metrics</h2><div class="cards" id="metric-cards"></div></section>
<section id="conversation-section"><h2>Response latency and interruptions</h2><div class="cards" id="conversation-cards"></div></section>
<section id="table-section"><h2>Calls</h2><div class="filters" id="filters"></div><div class="pager" id="pager"></div><div class="tablewrap"><table id="calls"><thead></thead><tbody></tbody></table></div></section>
<section id="call-view" hidden></section>
<section id="errors-section"><h2>Error records</h2><ul class="errors" id="error-list"></ul></section>
</main>
<noscript>This report draws its charts and tables with JavaScript; enable it to see them.</noscript>
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

/** JSON safe inside a <script> element: "<" is escaped so no "</script>" in a reason or path can end it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * The report as one HTML document. The overview data is one JSON block parsed on load; each call's
 * view is one JSON line of a second block, parsed only when the call is opened, so a large archive
 * opens without parsing every call's detail.
 */
export function renderHtmlReport(data: ReportData): string {
  const { detail, ...overview } = data;
  const json = scriptJson(overview);
  const lines = detail.map(scriptJson).join("\n");
  const script = readPageScript().replace(/<\/script/gi, "<\\/script");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="generator" content="voxmetrics ${escapeHtml(data.header.version)}">`,
    `<title>${escapeHtml(data.header.title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    BODY,
    `<script type="application/json" id="report-data">${json}</script>`,
    `<script type="application/x-ndjson" id="report-calls">\n${lines}\n</script>`,
    `<script>${script}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}

/** Write the report atomically to `path`. */
export function writeHtmlReport(data: ReportData, path: string): void {
  writeFileAtomic(path, renderHtmlReport(data));
}
