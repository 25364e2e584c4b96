// The report page: reads the embedded data and draws the overview, the call table and a call's view; charts are Observable Plot's (bundled by esbuild at build time).
import * as Plot from "@observablehq/plot";

const t0 = performance.now();
const data = JSON.parse(document.getElementById("report-data").textContent);
const tParsed = performance.now();
// Each call's view data: one JSON line per call, parsed when the call is opened.
const detailText = document.getElementById("report-calls").textContent;
let lineStarts = null;
function callDetail(k) {
  if (lineStarts === null) {
    lineStarts = [];
    for (let at = detailText.indexOf("\n"); at !== -1 && lineStarts.length <= N; at = detailText.indexOf("\n", at + 1)) lineStarts.push(at + 1);
  }
  return JSON.parse(detailText.slice(lineStarts[k], lineStarts[k + 1] - 1));
}
const S = data.S;
const K = data.K;
const C = data.calls;
const N = C.id.length;
const M = data.metrics;
const PAGE = 1000;
const OUTCOME = ["fail", "pass", "skipped", "error"];
const KIND = ["gap", "user barge-in", "agent overlap"];
const ROLE = ["user", "assistant"];
const COLORS = { user: "#1565c0", assistant: "#ef6c00", fail: "#c62828", gap: "#555", "user barge-in": "#c62828", "agent overlap": "#6a1b9a" };

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const f = (x, d = 3) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));
const pct = (x) => (x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)}%`);
const ms = (x) => (x === null || x === undefined ? "–" : `${Math.round(x)} ms`);

function chart(container, plot, label) {
  const fig = document.createElement("figure");
  fig.className = "chart";
  fig.dataset.chart = label;
  fig.append(plot);
  container.append(fig);
}

function noChart(container, text) {
  const p = document.createElement("p");
  p.className = "nochart";
  p.textContent = text;
  container.append(p);
}

// ---- header ----
function renderHeader() {
  const h = data.header;
  const opts = Object.entries(h.options).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : v}`).join(" · ");
  const gate = h.fail_under === null ? "" : ` · --fail-under ${h.fail_under}: ${M.some((m) => m.gate_fail) ? '<span class="badge">FAILED</span>' : '<span class="badge ok">passed</span>'}`;
  $("run-header").innerHTML = `<h1>${esc(h.title)}</h1>
  <dl class="kv">
  <dt>calls</dt><dd id="header-calls">${h.calls} (${h.ok} scored, ${h.errors} error${h.errors === 1 ? "" : "s"})${gate}</dd>
  <dt>inputs</dt><dd>${h.inputs.length ? h.inputs.map(esc).join(", ") : "–"}</dd>
  <dt>results</dt><dd>${esc(h.results)}</dd>
  <dt>options</dt><dd>${opts ? esc(opts) : "–"}</dd>
  <dt>run</dt><dd>${esc(h.run_time ?? "–")}${h.elapsed_s === null ? "" : ` · ${f(h.elapsed_s, 1)} s`}</dd>
  <dt>report</dt><dd>voxmetrics ${esc(h.version)} · ${esc(h.generated_at)}</dd>
  </dl>`;
}

// ---- metric cards: failing metrics (below --fail-under) first ----
function metricOrder() {
  const idx = M.map((_, i) => i);
  return idx.sort((a, b) => Number(M[b].gate_fail) - Number(M[a].gate_fail) || a - b);
}

function renderMetrics() {
  const box = $("metric-cards");
  for (const i of metricOrder()) {
    const m = M[i];
    const card = document.createElement("div");
    card.className = `card metric${m.gate_fail ? " gate-fail" : ""}`;
    card.dataset.metric = m.name;
    const badge = m.gate_fail ? ` <span class="badge gate">fails --fail-under ${data.header.fail_under} (mean ${f(m.mean)})</span>` : "";
    card.innerHTML = `<h3>${esc(m.name)}${badge}</h3>
      <div class="small">pass rate <b>${pct(m.pass_rate)}</b> · ${m.failed} failed · ${m.skipped} skipped · ${m.errors} error(s) · mean ${f(m.mean)} · p50 ${f(m.p50)} · p95 ${f(m.p95)} · threshold ${f(m.threshold, 2)}</div>`;
    const scores = C.score[i].filter((s) => s !== null);
    if (scores.length === 0) noChart(card, "no scores (every call skipped or errored)");
    else {
      // A score of exactly 1 goes in the last bin [0.95, 1] (the binning leaves the domain's upper bound out).
      const marks = [Plot.rectY(scores, Plot.binX({ y: "count" }, { x: (d) => Math.min(d, 0.99999), domain: [0, 1], thresholds: 20, fill: (d) => (m.threshold !== null && d < m.threshold ? "fail" : "pass") })), Plot.ruleY([0])];
      if (m.threshold !== null) marks.push(Plot.ruleX([m.threshold], { stroke: COLORS.fail, strokeDasharray: "4,3" }), Plot.text([m.threshold], { x: (d) => d, frameAnchor: "top", dy: -2, text: () => `threshold ${m.threshold}`, fill: COLORS.fail }));
      chart(card, Plot.plot({ height: 160, width: 320, marginTop: 14, x: { domain: [0, 1], label: "score" }, y: { label: "calls", grid: true }, color: { domain: ["fail", "pass"], range: ["#e57373", "#81c784"] }, marks }), m.name);
    }
    box.append(card);
  }
}

// ---- conversation: latencies, interruptions, overlaps ----
function renderConversation() {
  const box = $("conversation-cards");
  const c = data.conversation;
  const lat = document.createElement("div");
  lat.className = "card";
  lat.innerHTML = `<h3>Response latency (user end → agent start)</h3><div class="small">${c.responses} responses in ${c.calls} call(s) · p50 ${ms(c.latency_ms.p50)} · p90 ${ms(c.latency_ms.p90)} · p95 ${ms(c.latency_ms.p95)} · p99 ${ms(c.latency_ms.p99)}</div>`;
  if (data.latencies.length === 0) noChart(lat, "no response latencies (no timed user → agent transition)");
  else {
    const qs = ["p50", "p90", "p95", "p99"].filter((q) => c.latency_ms[q] !== null).map((q) => ({ q, v: c.latency_ms[q] }));
    chart(lat, Plot.plot({ height: 180, width: 420, marginTop: 16, x: { label: "latency (ms)" }, y: { label: "responses", grid: true }, marks: [
      Plot.rectY(data.latencies, Plot.binX({ y: "count" }, { x: (d) => d, thresholds: 30, fill: "#90a4ae" })), Plot.ruleY([0]),
      Plot.ruleX(qs, { x: "v", stroke: COLORS.fail, strokeDasharray: "3,2" }),
      Plot.text(qs, { x: "v", text: "q", frameAnchor: "top", dy: -12, fill: COLORS.fail }),
    ] }), "latency");
  }
  box.append(lat);

  const rows = [];
  const over = [];
  for (let k = 0; k < N; k++) {
    const st = C.stats[k];
    if (!st) continue;
    rows.push({ kind: "user barge-in", n: st[6] }, { kind: "agent overlap", n: st[7] });
    over.push(st[5]);
  }
  const inter = document.createElement("div");
  inter.className = "card";
  inter.innerHTML = `<h3>Interruptions per call</h3><div class="small">user barge-ins ${c.user_barge_ins.total} (in ${c.user_barge_ins.calls_with} call(s)) · agent overlaps ${c.agent_overlaps.total} (in ${c.agent_overlaps.calls_with} call(s)) · talk ratio (agent) ${pct(c.talk_ratio)}</div>`;
  if (rows.length === 0) noChart(inter, "no call has a timeline");
  else chart(inter, Plot.plot({ height: 180, width: 420, marginBottom: 36, fx: { label: "interruptions in the call" }, x: { axis: null }, y: { label: "calls", grid: true }, color: { legend: true, domain: ["user barge-in", "agent overlap"], range: [COLORS["user barge-in"], COLORS["agent overlap"]] }, marks: [
    Plot.barY(rows, Plot.groupX({ y: "count" }, { fx: "n", x: "kind", fill: "kind" })), Plot.ruleY([0]),
  ] }), "interruptions");
  box.append(inter);

  const ov = document.createElement("div");
  ov.className = "card";
  ov.innerHTML = `<h3>Overlap seconds per call</h3><div class="small">total ${f(c.overlap_s.total, 1)} s · mean ${f(c.overlap_s.mean_per_call, 2)} s per call · max ${f(c.overlap_s.max, 2)} s · longest silence p50 ${f(c.longest_silence_s.p50, 2)} s, p95 ${f(c.longest_silence_s.p95, 2)} s, max ${f(c.longest_silence_s.max, 2)} s</div>`;
  if (over.length === 0) noChart(ov, "no call has a timeline");
  else chart(ov, Plot.plot({ height: 180, width: 420, x: { label: "overlap (s)" }, y: { label: "calls", grid: true }, marks: [Plot.rectY(over, Plot.binX({ y: "count" }, { x: (d) => d, thresholds: 20, fill: "#b39ddb" })), Plot.ruleY([0])] }), "overlap");
  box.append(ov);
}

// ---- the call table ----
const failedCount = new Int32Array(N);
const minScore = new Float64Array(N);
for (let k = 0; k < N; k++) {
  let failed = 0, min = Infinity;
  for (let i = 0; i < M.length; i++) {
    if (C.outcome[i][k] === 0) failed++;
    const s = C.score[i][k];
    if (s !== null && s < min) min = s;
  }
  failedCount[k] = failed;
  minScore[k] = min;
}

const COLUMNS = [
  { key: "id", label: "call", get: (k) => C.id[k] },
  { key: "format", label: "format", get: (k) => S[C.format[k]] },
  { key: "failed", label: "failed metrics", num: true, get: (k) => (C.err[k] ? null : failedCount[k]) },
  ...M.map((m, i) => ({ key: `m${i}`, label: m.name, num: true, metric: i, get: (k) => C.score[i][k] })),
  { key: "p95", label: "latency p95 (ms)", num: true, get: (k) => C.stats[k]?.[2] ?? null, fmt: (v) => (v === null ? "–" : Math.round(v)) },
  { key: "talk", label: "talk ratio", num: true, get: (k) => C.stats[k]?.[4] ?? null, fmt: (v) => (v === null ? "–" : v.toFixed(2)) },
  { key: "overlap", label: "overlap (s)", num: true, get: (k) => C.stats[k]?.[5] ?? null, fmt: (v) => (v === null ? "–" : v.toFixed(2)) },
  { key: "barge", label: "barge-ins", num: true, get: (k) => C.stats[k]?.[6] ?? null, fmt: (v) => (v === null ? "–" : v) },
  { key: "silence", label: "longest silence (s)", num: true, get: (k) => C.stats[k]?.[8] ?? null, fmt: (v) => (v === null ? "–" : v.toFixed(2)) },
];

const state = { metric: "any", outcome: "all", format: "all", status: "all", text: "", sort: null, dir: 1, page: 0, rows: [] };

function worstFirst(a, b) {
  return C.err[a] - C.err[b] || failedCount[b] - failedCount[a] || minScore[a] - minScore[b] || a - b;
}

function matches(k) {
  if (state.status !== "all" && (state.status === "error") !== (C.err[k] === 1)) return false;
  if (state.format !== "all" && S[C.format[k]] !== state.format) return false;
  if (state.text && !C.id[k].toLowerCase().includes(state.text) && !(C.name[k] ?? "").toLowerCase().includes(state.text)) return false;
  if (state.outcome !== "all") {
    const want = OUTCOME.indexOf(state.outcome);
    const metrics = state.metric === "any" ? M.map((_, i) => i) : [Number(state.metric)];
    if (!metrics.some((i) => C.outcome[i][k] === want)) return false;
  } else if (state.metric !== "any" && C.outcome[Number(state.metric)][k] === null) return false;
  return true;
}

function computeRows() {
  const rows = [];
  for (let k = 0; k < N; k++) if (matches(k)) rows.push(k);
  if (state.sort === null) rows.sort(worstFirst);
  else {
    const col = COLUMNS.find((c) => c.key === state.sort);
    rows.sort((a, b) => {
      const x = col.get(a), y = col.get(b);
      if (x === y) return worstFirst(a, b);
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * state.dir;
    });
  }
  state.rows = rows;
}

function cell(col, k) {
  const v = col.get(k);
  if (col.metric !== undefined) {
    const o = C.outcome[col.metric][k];
    const cls = o === 0 ? "fail" : o === 1 ? "pass" : o === 2 ? "skip" : o === 3 ? "err" : "";
    const text = o === 2 ? "skipped" : o === 3 ? "error" : v === null ? "–" : v.toFixed(3);
    return `<td class="num ${cls}">${text}</td>`;
  }
  if (col.key === "id") return `<td>${esc(v)}${C.err[k] ? ' <span class="badge">error</span>' : ""}${C.name[k] ? `<div class="muted small">${esc(C.name[k])}</div>` : ""}</td>`;
  const text = col.fmt ? col.fmt(v) : v === null ? "–" : esc(v);
  return `<td class="${col.num ? "num" : ""}${col.key === "failed" && v > 0 ? " fail" : ""}">${text}</td>`;
}

function renderTable() {
  computeRows();
  const pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
  if (state.page >= pages) state.page = pages - 1;
  const slice = state.rows.slice(state.page * PAGE, (state.page + 1) * PAGE);
  const table = $("calls");
  table.querySelector("tbody").innerHTML = slice.map((k) => `<tr data-k="${k}">${COLUMNS.map((c) => cell(c, k)).join("")}</tr>`).join("");
  for (const th of table.querySelectorAll("th")) th.className = th.dataset.key === state.sort ? (state.dir > 0 ? "sorted-asc" : "sorted-desc") : "";
  const pager = $("pager");
  pager.innerHTML = `<span id="row-count">${state.rows.length}</span> of ${N} calls` + (pages > 1 ? ` · page <button id="prev">‹</button> <span id="page">${state.page + 1}</span> / <span id="pages">${pages}</span> <button id="next">›</button> (${PAGE} per page)` : "");
  if (pages > 1) {
    $("prev").onclick = () => { if (state.page > 0) { state.page--; renderTable(); } };
    $("next").onclick = () => { if (state.page < pages - 1) { state.page++; renderTable(); } };
  }
}

function renderFilters() {
  const formats = [...new Set(C.format.map((i) => S[i]))].sort();
  const opt = (v, label, sel) => `<option value="${esc(v)}"${sel ? " selected" : ""}>${esc(label)}</option>`;
  $("filters").innerHTML = `
    <label>metric <select id="f-metric">${opt("any", "any metric", true)}${M.map((m, i) => opt(i, m.name)).join("")}</select></label>
    <label>outcome <select id="f-outcome">${["all", "fail", "pass", "skipped", "error"].map((o) => opt(o, o === "all" ? "any outcome" : o === "error" ? "metric error" : o, o === "all")).join("")}</select></label>
    <label>format <select id="f-format">${opt("all", "any format", true)}${formats.map((x) => opt(x, x)).join("")}</select></label>
    <label>status <select id="f-status">${opt("all", "any status", true)}${opt("ok", "scored")}${opt("error", "error record")}</select></label>
    <label>search <input id="f-text" type="search" placeholder="call id or name"></label>
    <button id="f-failing">failing calls only</button> <button id="f-reset">reset</button>`;
  const bind = (id, key) => ($(id).onchange = (e) => { state[key] = e.target.value; state.page = 0; renderTable(); });
  bind("f-metric", "metric");
  bind("f-outcome", "outcome");
  bind("f-format", "format");
  bind("f-status", "status");
  $("f-text").oninput = (e) => { state.text = e.target.value.trim().toLowerCase(); state.page = 0; renderTable(); };
  $("f-failing").onclick = () => { state.outcome = "fail"; $("f-outcome").value = "fail"; state.page = 0; renderTable(); };
  $("f-reset").onclick = () => {
    Object.assign(state, { metric: "any", outcome: "all", format: "all", status: "all", text: "", sort: null, dir: 1, page: 0 });
    for (const [id, v] of [["f-metric", "any"], ["f-outcome", "all"], ["f-format", "all"], ["f-status", "all"], ["f-text", ""]]) $(id).value = v;
    renderTable();
  };
  // Rows are grids with these columns (the call table is laid out row by row, so rows off screen cost nothing).
  $("calls").style.setProperty("--cols", COLUMNS.map((c) => (c.key === "id" ? "250px" : c.key === "format" ? "120px" : c.metric !== undefined ? "132px" : "84px")).join(" "));
  const thead = $("calls").querySelector("thead");
  thead.innerHTML = `<tr>${COLUMNS.map((c) => `<th data-key="${c.key}" title="sort by ${esc(c.label)}">${esc(c.label)}</th>`).join("")}</tr>`;
  thead.onclick = (e) => {
    const th = e.target.closest("th");
    if (!th) return;
    if (state.sort === th.dataset.key) state.dir = -state.dir;
    else { state.sort = th.dataset.key; state.dir = COLUMNS.find((c) => c.key === th.dataset.key).metric !== undefined ? 1 : -1; }
    renderTable();
  };
  $("calls").querySelector("tbody").onclick = (e) => {
    const tr = e.target.closest("tr");
    if (tr) showCall(Number(tr.dataset.k));
  };
}

// ---- one call ----
const player = new Audio();

function entryText(e) {
  const keys = K[e[1]];
  const parts = [];
  for (let j = 1; j < keys.length; j++) {
    if (keys[j] === "turn" || keys[j] === "from_turn" || keys[j] === "to_turn") continue;
    const v = e[3 + j - 1];
    parts.push(`${keys[j]}=${typeof v === "object" && v !== null ? JSON.stringify(v) : v}`);
  }
  return `<b>${esc(M[e[0]].name)}</b>${keys[0] ? ` <span class="muted">${esc(keys[0])}</span>` : ""}: ${esc(parts.join(", "))}`;
}

function showCall(k) {
  for (const tr of document.querySelectorAll("#calls tr.selected")) tr.classList.remove("selected");
  document.querySelector(`#calls tr[data-k="${k}"]`)?.classList.add("selected");
  const view = $("call-view");
  view.hidden = false;
  view.dataset.call = C.id[k];
  const d = callDetail(k);
  if (!d) {
    const err = data.errors.find((x) => x[0] === k);
    view.innerHTML = `<h2>${esc(C.id[k])} <span class="badge">error</span></h2><p>${esc(S[C.path[k]])}</p><p><b>${esc(err?.[1])}</b>: ${esc(S[err?.[2]])}</p>`;
    view.scrollIntoView();
    return;
  }
  const turns = d.t.map(([index, role, start, dur]) => ({ index, role: ROLE[role], start, dur, end: start === null || dur === null ? null : start + dur }));
  const byIndex = new Map(turns.map((t) => [t.index, t]));
  const interrupted = new Set(d.tr.filter((t) => t[2] !== 0).map((t) => t[0]));
  const into = new Map(d.tr.map((t) => [t[1], t]));
  const timed = turns.filter((t) => t.end !== null);
  const metricRows = M.map((m, i) => {
    const o = C.outcome[i][k];
    if (o === null) return "";
    const cls = OUTCOME[o] === "fail" ? "fail" : OUTCOME[o] === "pass" ? "pass" : o === 2 ? "skip" : "err";
    const sc = C.score[i][k];
    return `<tr data-metric="${esc(m.name)}"><td>${esc(m.name)}</td><td class="num ${cls}">${sc === null ? "–" : sc.toFixed(3)}</td><td class="num">${f(m.threshold, 2)}</td><td class="${cls}">${OUTCOME[o]}</td><td>${esc(d.r[i] >= 0 ? S[d.r[i]] : "")}</td></tr>`;
  }).join("");
  const callEntries = d.b.filter((e) => e[2] === -1 || !byIndex.has(e[2]));
  const st = C.stats[k];
  view.innerHTML = `<h2>Call ${esc(C.id[k])} <button id="close-call">close</button></h2>
    <dl class="kv"><dt>name</dt><dd>${esc(C.name[k] ?? "–")}</dd><dt>source</dt><dd>${esc(S[C.path[k]])} (${esc(S[C.format[k]])})</dd>
    <dt>turns</dt><dd>${turns.length} (${timed.length} on the timeline) · transitions ${d.tr.length}</dd>
    <dt>latency</dt><dd>${st ? `p50 ${ms(st[0])} · p90 ${ms(st[1])} · p95 ${ms(st[2])} · p99 ${ms(st[3])} · talk ratio ${st[4] === null ? "–" : st[4].toFixed(2)} · overlap ${f(st[5], 2)} s · user barge-ins ${st[6]} · agent overlaps ${st[7]} · longest silence ${f(st[8], 2)} s` : "no timeline"}</dd></dl>
    <table class="call-metrics"><thead><tr><th>metric</th><th>score</th><th>threshold</th><th>outcome</th><th>reason</th></tr></thead><tbody>${metricRows}</tbody></table>
    ${callEntries.length ? `<h3>Breakdown (call)</h3><ul class="entries">${callEntries.map((e) => `<li>${entryText(e)}</li>`).join("")}</ul>` : ""}
    <h3>Timeline</h3><div id="lanes" style="overflow-x:auto"></div>
    <h3>Turns</h3><div id="turn-list"></div>`;
  $("close-call").onclick = () => { view.hidden = true; };
  drawLanes(d, timed, byIndex, interrupted);
  const entriesByTurn = new Map();
  for (const e of d.b) if (e[2] !== -1 && byIndex.has(e[2])) (entriesByTurn.get(e[2]) ?? entriesByTurn.set(e[2], []).get(e[2])).push(e);
  $("turn-list").innerHTML = turns.map((t) => turnHtml(t, d, interrupted.has(t.index), into.get(t.index), entriesByTurn.get(t.index) ?? [])).join("");
  $("turn-list").onclick = (e) => {
    const b = e.target.closest("button.play");
    if (!b) return;
    player.src = b.dataset.src;
    player.play().catch(() => { b.textContent = "▶ (cannot play)"; });
  };
  view.scrollIntoView();
}

function turnHtml(t, d, isInterrupted, tr, entries) {
  const flags = [];
  if (isInterrupted) flags.push('<span class="badge">interrupted</span>');
  if (tr) flags.push(`<span class="muted">${KIND[tr[2]]} ${Math.round(tr[3] * 1000)} ms</span>`);
  const a = d.a?.[t.index];
  const seg = d.g?.[t.index];
  const src = d.u?.[t.index];
  const lines = [];
  if (d.e?.[t.index]) lines.push(`<li class="err">measurement error: ${esc(d.e[t.index])}</li>`);
  for (const e of entries) lines.push(`<li>${entryText(e)}</li>`);
  if (a) lines.push(`<li class="acoustics"><b>acoustics</b>: loudness ${f(a[0], 1)} LUFS · true peak ${f(a[1], 1)} dBTP · SNR ${f(a[2], 1)} dB · speech ${pct(a[3])} · pauses ${a[4] ?? "–"} (longest ${f(a[5], 2)} s, ${f(a[6], 1)}/min) · ${f(a[7], 2)} syll/s · articulation ${f(a[8], 2)} · ${a[9] === null ? "–" : Math.round(a[9])} wpm · pitch ${f(a[10], 0)} Hz · ${esc(a[11] ?? "–")}</li>`);
  if (seg) {
    const pairs = [];
    for (let j = 0; j < seg.length; j += 2) pairs.push(`${seg[j].toFixed(2)}–${seg[j + 1].toFixed(2)}`);
    lines.push(`<li class="segments"><b>speech segments</b> (s in the clip): ${pairs.join(", ")}</li>`);
  }
  const when = t.end === null ? "not on the timeline" : `${t.start.toFixed(2)}–${t.end.toFixed(2)} s (${t.dur.toFixed(2)} s)`;
  return `<div class="turn${isInterrupted ? " interrupted" : ""}" data-turn="${t.index}"><span class="role-${t.role}">#${t.index} ${t.role}</span> ${when} ${flags.join(" ")} ${src ? `<button class="play" data-src="${esc(src)}">▶ play</button>` : ""}<ul class="entries">${lines.join("")}</ul></div>`;
}

function drawLanes(d, timed, byIndex, interrupted) {
  const box = $("lanes");
  if (timed.length === 0) return noChart(box, "no turn has a start time: nothing to place on the call clock");
  const end = Math.max(...timed.map((t) => t.end));
  const width = Math.min(20000, Math.max(900, Math.round(end * 25)));
  const trs = d.tr.map(([from, to, kind, gap]) => {
    const a = byIndex.get(from), b = byIndex.get(to);
    return { from: a, to: b, kind: KIND[kind], gap, x1: a.end, x2: b.start, mid: (a.end + b.start) / 2, label: `${Math.round(gap * 1000)} ms` };
  });
  // Speech-activity segments (clip-relative in the data) placed on the call clock inside their turn's bar.
  const segments = [];
  for (const t of timed) {
    const g = d.g?.[t.index];
    if (g) for (let j = 0; j < g.length; j += 2) segments.push({ role: t.role, x1: t.start + g[j], x2: t.start + g[j + 1] });
  }
  chart(box, Plot.plot({
    width, height: 170, marginLeft: 70, marginTop: 24,
    x: { label: "call time (s)", domain: [0, end] },
    y: { domain: ["user", "assistant"], label: null },
    color: { domain: ["user", "assistant"], range: [COLORS.user, COLORS.assistant] },
    symbol: { domain: KIND, range: ["circle", "triangle", "diamond"], legend: true },
    marks: [
      Plot.barX(timed, { x1: "start", x2: "end", y: "role", fill: "role", fillOpacity: 0.75, stroke: (t) => (interrupted.has(t.index) ? COLORS.fail : "none"), strokeWidth: 2, title: (t) => `#${t.index} ${t.role} ${t.start.toFixed(2)}–${t.end.toFixed(2)} s${interrupted.has(t.index) ? " (interrupted)" : ""}`, ariaDescription: "turns", insetTop: 6, insetBottom: 6 }),
      Plot.barX(segments, { x1: "x1", x2: "x2", y: "role", fill: "#263238", fillOpacity: 0.55, insetTop: 17, insetBottom: 17, ariaDescription: "speech segments" }),
      Plot.link(trs, { x1: "x1", x2: "x2", y1: (t) => t.from.role, y2: (t) => t.to.role, stroke: (t) => COLORS[t.kind], strokeOpacity: 0.8, ariaDescription: "transition links" }),
      Plot.dot(trs, { x: "x2", y: (t) => t.to.role, symbol: "kind", stroke: (t) => COLORS[t.kind], fill: "white", r: 4, title: (t) => `${t.kind} ${t.label} (turn ${t.from.index} → ${t.to.index})`, ariaDescription: "transitions" }),
      Plot.text(trs, { x: "mid", y: (t) => t.to.role, text: "label", dy: -16, fontSize: 10, fill: (t) => COLORS[t.kind], ariaDescription: "latency labels" }),
    ],
  }), "lanes");
}

// ---- error records ----
function renderErrors() {
  const list = $("error-list");
  if (data.errors.length === 0) {
    list.innerHTML = '<li class="muted">none</li>';
    return;
  }
  list.innerHTML = data.errors.map(([k, code, msg]) => `<li data-k="${k}"><b>${esc(C.id[k])}</b> <span class="badge">${esc(code)}</span> ${esc(S[msg])} <span class="muted small">${esc(S[C.path[k]])}</span></li>`).join("");
}

renderHeader();
renderMetrics();
renderConversation();
const tCharts = performance.now();
renderFilters();
renderTable();
renderErrors();
// Timings (ms) read by the benchmark: data parse, charts, table; `ready` marks the page interactive.
Object.assign(document.body.dataset, { startMs: t0.toFixed(1), parseMs: (tParsed - t0).toFixed(1), chartsMs: (tCharts - tParsed).toFixed(1), tableMs: (performance.now() - tCharts).toFixed(1), ready: "true" });
