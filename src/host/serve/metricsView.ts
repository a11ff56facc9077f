import { type MetricFamily, renderFamilies } from "../../services/observability/prometheus.js";
import { escapeHtml, href, page } from "./html.js";
import type { ObservabilityView } from "./ledgerViews.js";

/** `agentloop health` and `agentloop metrics` as a page, from the same functions. */

const labelsText = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(", ");

const number = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

function metricRows(families: ReadonlyArray<MetricFamily>): string {
  const rows: string[] = [];
  for (const family of families) {
    const head = `<td class="mono">${escapeHtml(family.name)}</td><td>${escapeHtml(family.type)}</td>`;
    if (family.series.length === 0) {
      rows.push(`<tr>${head}<td class="muted">—</td><td class="muted">no data</td></tr>`);
      continue;
    }
    for (const series of family.series) {
      const value =
        family.type === "histogram"
          ? (() => {
              const histogram = series as Extract<MetricFamily, { type: "histogram" }>["series"][number];
              return `count ${histogram.count}, sum ${number(histogram.sum)}`;
            })()
          : number((series as { value: number }).value);
      rows.push(
        `<tr>${head}<td class="mono">${escapeHtml(labelsText(series.labels))}</td><td>${escapeHtml(value)}</td></tr>`,
      );
    }
  }
  return rows.join("\n");
}

/** The part below the title: the fragment the page re-fetches when the ledger changes. */
export function observabilityBody(view: ObservabilityView): string {
  const { health } = view;
  const checks = health.checks
    .map(
      (check) => `<tr data-check="${escapeHtml(check.name)}" data-status="${escapeHtml(check.status)}">
<td><span class="badge ${check.status === "firing" ? "firing" : "ok"}">${check.status === "firing" ? "FIRING" : "ok"}</span></td>
<td class="mono">${escapeHtml(check.name)}</td><td>${escapeHtml(check.summary)}</td>
<td>${check.runIds.map((runId) => `<a class="mono" href="${href("runs", runId)}">${escapeHtml(runId)}</a>`).join("<br>") || "—"}</td></tr>`,
    )
    .join("\n");
  return `<h2>Health over the last ${escapeHtml(view.windowText)} <span class="muted">(${escapeHtml(
    health.window.from,
  )} .. ${escapeHtml(health.window.to)}, ${health.runs} closed run(s))</span></h2>
<table data-testid="health"><thead><tr><th>status</th><th>check</th><th>summary</th><th>runs</th></tr></thead><tbody>${checks}</tbody></table>
<h2>Metrics</h2>
<table data-testid="metrics"><thead><tr><th>metric</th><th>type</th><th>labels</th><th>value</th></tr></thead><tbody>${metricRows(
    view.families,
  )}</tbody></table>
<details><summary>Prometheus text (also at <a href="/metrics.txt">/metrics.txt</a>)</summary><pre>${escapeHtml(
    renderFamilies(view.families),
  )}</pre></details>`;
}

export function metricsPage(options: {
  readonly db: string;
  readonly params: URLSearchParams;
  readonly view?: ObservabilityView;
  readonly error?: string;
}): string {
  const windowText = escapeHtml(options.params.get("window") ?? "1h");
  const form = `<form class="filters" method="get" action="/metrics"><label>health window<input name="window" value="${windowText}" size="8"></label><button type="submit">Check</button></form>`;
  const error = options.error ? `<div class="error" data-testid="error">${escapeHtml(options.error)}</div>` : "";
  const search = options.params.toString();
  return page({
    title: "agentloop metrics and health",
    nav: "metrics",
    db: options.db,
    body: `<h1>Metrics &amp; health</h1>${form}${error}<div id="live-fragment">${
      options.view ? observabilityBody(options.view) : ""
    }</div>`,
    mainAttributes: options.view ? { "data-fragment": `/fragments/metrics${search ? `?${search}` : ""}` } : {},
  });
}
