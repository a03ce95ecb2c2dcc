// The console's style sheet (GET /console/app.css): a sober, dense operations layout.

export const CONSOLE_CSS = `
:root { --fg: #1d2125; --muted: #5f6b76; --line: #d8dee4; --bg: #f6f8fa; --panel: #fff;
  --accent: #0b5cad; --ok: #1a7f37; --warn: #9a6700; --bad: #c62828;
  --c1: #0b5cad; --c2: #8250df; --c3: #c62828; --c4: #1a7f37; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
h1 { font-size: 17px; margin: 0; font-weight: 600; }
h2 { font-size: 14px; margin: 0 0 10px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
h3 { font-size: 13px; margin: 12px 0 6px; font-weight: 600; }
.muted { color: var(--muted); font-weight: 400; text-transform: none; letter-spacing: 0; }
.bar { display: flex; gap: 14px; align-items: center; padding: 10px 20px; background: #24292f; color: #fff; }
.bar .muted { color: #b6c0ca; }
.bar #signout { margin-left: auto; }
.tag { display: inline-block; padding: 1px 8px; border-radius: 10px; background: #e7ecf1; color: var(--fg); font-size: 12px; text-transform: none; letter-spacing: 0; }
.bar .tag { background: #3d4650; color: #fff; }
.signin { max-width: 420px; margin: 60px auto; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 24px; }
.signin form { display: flex; flex-direction: column; gap: 8px; }
main { padding: 16px 20px 40px; }
.grid { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 16px; }
.panel.span2 { grid-column: span 2; }
@media (max-width: 1100px) { .grid { grid-template-columns: minmax(0, 1fr); } .panel.span2 { grid-column: auto; } }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 14px 16px; min-width: 0; }
.panel.wide { grid-column: 1 / -1; }
.figures { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 0 0 8px; }
.figures div { min-width: 120px; }
.figures dt { color: var(--muted); font-size: 12px; }
.figures dd { margin: 0; font-size: 18px; font-variant-numeric: tabular-nums; font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; }
.charts.one { grid-template-columns: minmax(0, 1fr); margin-top: 8px; }
.chart svg, .charts svg { display: block; max-width: 100%; height: auto; }
.chart-box { margin: 0; min-width: 0; }
.chart-box figcaption { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 8px; }
.chart-title { font-size: 12px; color: var(--muted); }
.value-label { font-size: 12px; font-weight: 600; font-variant-numeric: tabular-nums; }
a.search-link { color: var(--accent); text-decoration: none; }
a.search-link:hover code, a.search-link:focus code { text-decoration: underline; }
.table-scroll { overflow-x: auto; max-width: 100%; }
svg text { font: 10px system-ui, sans-serif; fill: var(--muted); }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.revoked td { color: var(--muted); text-decoration: line-through; }
input, select, button { font: inherit; padding: 5px 8px; border: 1px solid #b9c3cd; border-radius: 4px; background: #fff; color: var(--fg); }
input:focus, select:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
button { background: var(--accent); border-color: var(--accent); color: #fff; cursor: pointer; }
button:disabled { opacity: .6; cursor: default; }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); padding: 2px 8px; }
button.danger.armed { background: var(--bad); color: #fff; }
.stack { display: flex; flex-direction: column; gap: 6px; max-width: 420px; margin-bottom: 8px; }
.inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.inline input[name=q] { flex: 1; min-width: 280px; }
.error { color: var(--bad); }
.result { min-height: 1.4em; margin: 4px 0 12px; overflow-wrap: anywhere; }
.result.bad { color: var(--bad); }
.notice { border: 1px solid var(--warn); background: #fff8e5; padding: 8px 12px; border-radius: 4px; margin: 10px 0; }
.level { font-size: 12px; padding: 1px 8px; border-radius: 10px; color: #fff; background: var(--muted); text-transform: uppercase; }
.level.ok { background: var(--ok); }
.level.low { background: var(--warn); }
.level.critical, .level.empty { background: var(--bad); }
.legend { display: flex; gap: 12px; font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
.s-BROADCASTING { background: var(--c2); } .s-SUCCESS { background: var(--c1); }
.s-MINED { background: var(--c4); } .s-FAILED { background: var(--c3); }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; }
.hash { margin: 0 0 8px; }
@media (max-width: 700px) {
  .bar { flex-wrap: wrap; gap: 4px 12px; padding: 8px 12px; }
  main { padding: 10px 8px 30px; }
  .grid { gap: 10px; }
  .panel { padding: 10px; }
  .charts { grid-template-columns: minmax(0, 1fr); }
  .figures { gap: 6px 16px; }
  .figures div { min-width: 0; flex: 1 1 40%; }
  .inline input[name=q] { min-width: 0; width: 100%; }
  .panel > table, .panel > form + table { display: block; overflow-x: auto; }
  /* Ids and hashes stay on one line: the table scrolls inside its panel instead of growing tall. */
  .panel > table td code { word-break: normal; white-space: nowrap; }
  .kv { grid-template-columns: minmax(0, max-content) minmax(0, 1fr); }
  .signin { margin: 20px 8px; }
}
`;

export const CHART_CSS = `
svg .axis { stroke: #9aa6b2; }
svg .grid { stroke: var(--line); stroke-dasharray: 2 3; }
svg .line { fill: none; stroke: var(--c1); stroke-width: 1.6; }
svg .dot { fill: var(--c1); }
svg .mark { stroke: var(--warn); stroke-dasharray: 4 3; }
svg .mark-label { fill: var(--warn); }
svg .bar.ok { fill: var(--ok); } svg .bar.failed { fill: var(--bad); }
svg .bar.s-BROADCASTING { fill: var(--c2); } svg .bar.s-SUCCESS { fill: var(--c1); }
svg .bar.s-MINED { fill: var(--c4); } svg .bar.s-FAILED { fill: var(--c3); }
`;
