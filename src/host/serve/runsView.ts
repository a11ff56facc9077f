import { duration, escapeHtml, href, page, shortTime, stateBadge } from "./html.js";
import { RUN_STATUSES, type RunSummary, type RunsQuery } from "./ledgerViews.js";

/** The runs list: a filter form and a table the page script re-fetches when the ledger changes. */

const shortState = (state: string | null) => (state ? state.replace(/^active\.work\./, "") : "");

/** The table's rows: the fragment `/fragments/runs` answers with. */
export function runRows(runs: ReadonlyArray<RunSummary>): string {
  if (runs.length === 0) return `<tr class="empty"><td colspan="8" class="muted">no runs match</td></tr>`;
  return runs
    .map(
      (run) => `<tr data-run-id="${escapeHtml(run.runId)}" data-state="${escapeHtml(run.state)}">
<td class="nowrap"><a class="mono" href="${href("runs", run.runId)}">${escapeHtml(run.runId)}</a></td>
<td>${stateBadge(run.state)}${run.current ? ` <span class="muted mono" data-testid="current">${escapeHtml(shortState(run.current))}</span>` : ""}</td>
<td class="mono">${escapeHtml(run.reason ?? "—")}</td>
<td class="mono">${escapeHtml(run.sessionId)}</td>
<td class="mono nowrap">${shortTime(run.startedAt)}</td>
<td class="nowrap">${duration(run.durationMs)}</td>
<td>${run.steps ?? "—"}</td>
<td>${run.events}</td>
</tr>`,
    )
    .join("\n");
}

const queryString = (query: URLSearchParams) => {
  const text = query.toString();
  return text ? `?${text}` : "";
};

export function runsPage(options: {
  readonly db: string;
  readonly params: URLSearchParams;
  readonly query?: RunsQuery;
  readonly runs: ReadonlyArray<RunSummary>;
  readonly error?: string;
}): string {
  const field = (name: string) => escapeHtml(options.params.get(name) ?? "");
  const selected = options.params.get("state") ?? "";
  const states = ["", ...RUN_STATUSES]
    .map(
      (state) =>
        `<option value="${escapeHtml(state)}"${state === selected ? " selected" : ""}>${state || "any"}</option>`,
    )
    .join("");
  const form = `<form class="filters" method="get" action="/">
<label>state<select name="state">${states}</select></label>
<label>reason<input name="reason" value="${field("reason")}" placeholder="max_steps_reached" size="20"></label>
<label>session<input name="session" value="${field("session")}" size="18"></label>
<label>started since<input name="since" value="${field("since")}" placeholder="2026-12-01" size="20"></label>
<label>started before<input name="until" value="${field("until")}" placeholder="2026-12-01T12:00Z" size="20"></label>
<button type="submit">Filter</button> <a href="/">clear</a>
</form>`;
  const error = options.error ? `<div class="error" data-testid="error">${escapeHtml(options.error)}</div>` : "";
  const limit = options.query?.limit ?? 0;
  const shown =
    options.runs.length > 0 && options.runs.length === limit
      ? `<p class="muted">the ${limit} newest matching runs (more with <code>&amp;limit=</code>, up to 1000)</p>`
      : "";
  const body = `<h1>Runs</h1>${form}${error}${shown}
<table><thead><tr><th>run</th><th>state</th><th>reason</th><th>session</th><th>started (UTC)</th><th>duration</th><th>steps</th><th>events</th></tr></thead>
<tbody id="live-fragment" data-testid="runs">${runRows(options.runs)}</tbody></table>`;
  return page({
    title: "agentloop runs",
    nav: "runs",
    db: options.db,
    body,
    // A bad filter shows its error and nothing live: re-fetching would repeat the error.
    mainAttributes: options.error ? {} : { "data-fragment": `/fragments/runs${queryString(options.params)}` },
  });
}
