import type { ExecutionReceipt, LedgerEvent } from "../../domain/index.js";
import { describeEvent } from "../eval/describeEvent.js";
import { duration, escapeHtml, page, shortTime, stateBadge } from "./html.js";
import type { RunDetail } from "./ledgerViews.js";

/**
 * A run's page: its ledger row, the run machine's chart with the path its ledger shows, the
 * timeline of its events and its receipts. `runBody` is also the fragment the page script
 * re-fetches while the run is open.
 */

const shortState = (state: string) => state.replace(/^active\.work\./, "");

function timeline(events: ReadonlyArray<LedgerEvent>): string {
  if (events.length === 0) return `<p class="muted">no events yet</p>`;
  const items = events
    .map(
      (event) =>
        `<li data-sequence="${event.sequence}" data-type="${escapeHtml(event.type)}"><span class="seq mono">#${event.sequence}</span><span class="type">${escapeHtml(
          event.type,
        )}</span> <span class="muted mono">${shortTime(event.createdAt)}</span><br>${escapeHtml(describeEvent(event))}</li>`,
    )
    .join("");
  return `<ol class="timeline" data-testid="timeline">${items}</ol>`;
}

function receiptsTable(receipts: ReadonlyArray<ExecutionReceipt>): string {
  if (receipts.length === 0) return `<p class="muted" data-testid="receipts">no receipts</p>`;
  const rows = receipts
    .map(
      (receipt) => `<tr data-call-id="${escapeHtml(receipt.callId)}"><td class="mono">${escapeHtml(receipt.callId)}</td>
<td class="mono">${escapeHtml(receipt.toolName)}</td><td>${escapeHtml(receipt.status)}${
        receipt.reason ? ` <span class="muted">(${escapeHtml(receipt.reason)})</span>` : ""
      }</td><td>${escapeHtml(receipt.verificationStatus)}</td>
<td class="mono">${escapeHtml(JSON.stringify(receipt.evidence))}</td></tr>`,
    )
    .join("");
  return `<table class="receipts" data-testid="receipts"><thead><tr><th>call</th><th>tool</th><th>status</th><th>verification</th><th>evidence</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Everything below the title; `chart` is the SVG of the run machine with this run's path. */
export function runBody(detail: RunDetail, chart: string): string {
  const { run, path } = detail;
  const contract = run.contract;
  const required = contract.requiredToolNames.length > 0 ? ` · tools ${contract.requiredToolNames.join(", ")}` : "";
  const now = path.terminal ? "" : path.states.at(-1);
  const meta = `<dl class="meta">
<dt>state</dt><dd>${stateBadge(run.terminalState, "run-state")}${
    run.failureCode ? ` <span class="mono" data-testid="run-reason">${escapeHtml(run.failureCode)}</span>` : ""
  }${now ? ` <span class="muted">now in <span class="mono" data-testid="current">${escapeHtml(shortState(now))}</span></span>` : ""}</dd>
${run.failureDetail ? `<dt>detail</dt><dd>${escapeHtml(run.failureDetail)}</dd>` : ""}
<dt>trace id</dt><dd class="mono" data-testid="trace-id">${escapeHtml(run.traceId ?? "—")}</dd>
<dt>session</dt><dd class="mono"><a href="/?session=${escapeHtml(encodeURIComponent(run.sessionId))}">${escapeHtml(run.sessionId)}</a></dd>
<dt>provider</dt><dd class="mono">${escapeHtml(run.providerId ?? "—")} ${escapeHtml(run.model ?? "")}</dd>
<dt>contract</dt><dd class="mono">${escapeHtml(contract.evidenceMode)} (${escapeHtml(contract.source)})${escapeHtml(required)}</dd>
<dt>started</dt><dd class="mono">${shortTime(run.startedAt)} UTC</dd>
<dt>ended</dt><dd class="mono">${shortTime(run.endedAt)}${
    run.endedAt ? ` · ${duration(Date.parse(run.endedAt) - Date.parse(run.startedAt))}` : ""
  }</dd>
</dl>`;
  const pathText = path.states.map(shortState).map(escapeHtml).join(" → ");
  // The chart marks visited states; the one a running run is in now is drawn apart.
  // (`<style>` is raw text: only a state id's own characters may go into it.)
  const nowStyle =
    now && /^[A-Za-z.]+$/.test(now)
      ? `<style>.chart .agentloop-chart g.state[data-state="${now}"]>rect{stroke:#bf8700!important;stroke-width:3!important;fill:#fff8c5!important}</style>`
      : "";
  return `${meta}
<div class="columns">
<section><h2>Statechart path</h2><p class="path mono" data-testid="path">${pathText}</p>${nowStyle}<div class="chart" data-testid="chart">${chart}</div></section>
<section><h2>Timeline (${detail.events.length} events)</h2>${timeline(detail.events)}
<h2>Receipts (${detail.receipts.length})</h2>${receiptsTable(detail.receipts)}</section>
</div>`;
}

export function runPage(options: { readonly db: string; readonly detail: RunDetail; readonly chart: string }): string {
  const { run } = options.detail;
  const body = `<h1>Run <span class="mono">${escapeHtml(run.runId)}</span></h1><div id="live-fragment">${runBody(
    options.detail,
    options.chart,
  )}</div>`;
  return page({
    title: `agentloop run ${run.runId}`,
    nav: "run",
    db: options.db,
    body,
    mainAttributes: {
      ...(run.terminalState === "running"
        ? { "data-fragment": `/fragments/runs/${encodeURIComponent(run.runId)}` }
        : {}),
      "data-run-events": `/runs/${encodeURIComponent(run.runId)}/events`,
      "data-run-state": run.terminalState,
    },
  });
}
