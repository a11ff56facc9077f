/**
 * HTML helpers of the serve pages. Ledger text is model and tool output — hostile — so every
 * value that reaches a page goes through `escapeHtml` (text and double-quoted attributes alike)
 * or `href` (a path with its parts URI-encoded); pages carry no inline script (the server's
 * Content-Security-Policy allows only /app.js), so markup that slipped through could not run.
 */

export const escapeHtml = (value: unknown): string =>
  String(value ?? "").replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!,
  );

/** A path under the server with each part URI-encoded and the whole escaped for an attribute. */
export const href = (...parts: ReadonlyArray<string>): string =>
  escapeHtml(`/${parts.map((part) => encodeURIComponent(part)).join("/")}`);

const STATE_CLASS = new Set(["running", "completed", "unverified", "incomplete", "failed", "cancelled"]);

/** A run state as a coloured badge; `data-state` is the hook tests and the live script read. */
export function stateBadge(state: string, testId?: string): string {
  const kind = STATE_CLASS.has(state) ? state : "unknown";
  return `<span class="badge ${kind}" data-state="${escapeHtml(state)}"${
    testId ? ` data-testid="${escapeHtml(testId)}"` : ""
  }>${escapeHtml(state)}</span>`;
}

/** Milliseconds as people read them. */
export function duration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `2026-12-01T23:40:12.345Z` → `2026-12-01 23:40:12` (UTC, as the ledger stores it). */
export const shortTime = (iso: string | null): string =>
  iso ? escapeHtml(iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "")) : "—";

const CSS = `
:root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#f6f8fa;--accent:#0969da}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
header{display:flex;align-items:center;gap:24px;padding:10px 24px;border-bottom:1px solid var(--line);background:var(--bg)}
header .brand{font-weight:700;font-size:16px}
header nav a{margin-right:16px;color:var(--fg);text-decoration:none}
header nav a.here{font-weight:600;border-bottom:2px solid var(--accent)}
header .db{margin-left:auto;color:var(--muted);font-family:ui-monospace,Menlo,monospace;font-size:12px}
.live{display:inline-flex;align-items:center;gap:6px;color:var(--muted);font-size:12px}
.live::before{content:"";width:8px;height:8px;border-radius:50%;background:#8c959f}
.live.on::before{background:#1a7f37}
main{padding:16px 24px;max-width:1400px}
h1{font-size:20px;margin:4px 0 12px}
h2{font-size:15px;margin:20px 0 8px}
a{color:var(--accent)}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--bg);font-weight:600;font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
tr:hover td{background:#fafbfc}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:600}
.badge.running{background:#0969da}.badge.completed{background:#1a7f37}.badge.unverified{background:#9a6700}
.badge.incomplete{background:#8250df}.badge.failed{background:#cf222e}.badge.cancelled{background:#57606a}
.badge.unknown{background:#444}
.badge.ok{background:#1a7f37}.badge.firing{background:#cf222e}
form.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin-bottom:14px;padding:10px;background:var(--bg);border:1px solid var(--line);border-radius:6px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:3px}
input,select,button{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:5px;background:#fff}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
.error{padding:8px 12px;border:1px solid #ff818266;background:#ffebe9;border-radius:6px;margin-bottom:12px}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 8px}
.meta dt{color:var(--muted)}.meta dd{margin:0}
.columns{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:24px}
@media (max-width:1100px){.columns{grid-template-columns:1fr}}
.chart{overflow:auto;border:1px solid var(--line);border-radius:6px;padding:8px;background:#fff}
.chart svg{max-width:100%;height:auto}
td.nowrap,td .nowrap{white-space:nowrap}
table.receipts td:last-child{word-break:break-all}
.path{font-size:12.5px;color:var(--muted);margin:6px 0}
ol.timeline{list-style:none;padding:0;margin:0}
ol.timeline li{padding:5px 0;border-bottom:1px solid #eaeef2;word-break:break-word}
ol.timeline .seq{display:inline-block;min-width:34px;color:var(--muted)}
ol.timeline .type{display:inline-block;min-width:120px;font-weight:600}
.muted{color:var(--muted)}
pre{background:var(--bg);padding:10px;border-radius:6px;overflow:auto;font-size:12px}
`;

export interface Shell {
  readonly title: string;
  readonly nav: "runs" | "metrics" | "run";
  readonly db: string;
  readonly body: string;
  /** Attributes on `<main>` the page script reads (`data-fragment`, `data-run-id`, …). */
  readonly mainAttributes?: Readonly<Record<string, string>>;
}

/** A whole page: no external resources but /app.js, which keeps it live. */
export function page(shell: Shell): string {
  const attributes = Object.entries(shell.mainAttributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
    .join("");
  const link = (target: string, label: string, here: boolean) =>
    `<a href="${target}"${here ? ' class="here"' : ""}>${label}</a>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(shell.title)}</title><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><header><span class="brand">agentloop</span><nav>${link("/", "Runs", shell.nav === "runs")}${link(
    "/metrics",
    "Metrics &amp; health",
    shell.nav === "metrics",
  )}</nav><span class="live" data-testid="live">connecting</span><span class="db" title="ledger">${escapeHtml(
    shell.db,
  )}</span></header>
<main${attributes}>${shell.body}</main>
<script src="/app.js"></script></body></html>
`;
}
