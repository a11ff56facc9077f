import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ApprovalRecord, type RecordedClaim, TerminalPayload } from "../../domain/index.js";
import { type Claim, completedActions } from "../../services/claims.js";
import { clip, describeApproval, describeEvent } from "./describeEvent.js";
import { CHART_SCRIPT, type ReportCharts, reportCharts, scriptJson } from "./reportCharts.js";
import type { CaseDetail, CaseResult, EvalReport } from "./runEval.js";

export { describeEvent };

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

const STATE_COLOURS: Record<string, string> = {
  completed: "#1a7f37",
  unverified: "#9a6700",
  incomplete: "#8250df",
  failed: "#cf222e",
  cancelled: "#57606a",
};

function badge(state: string) {
  return `<span class="badge" style="background:${STATE_COLOURS[state] ?? "#444"}">${escapeHtml(state)}</span>`;
}

/** The sentences the verifier took as unbacked claims, as the terminal event recorded them. */
function claimsOf(detail: CaseDetail | undefined): ReadonlyArray<RecordedClaim> {
  const terminal = detail?.events.find((event) => event.type === "terminal");
  const parsed = TerminalPayload.safeParse(terminal?.payload);
  return parsed.success ? (parsed.data.verification?.claims ?? []) : [];
}

/** A call's approval row (request, and who decided what, when, with what scope), beside the call. */
function approvalNote(approval: ApprovalRecord | undefined): string {
  if (!approval) return "";
  const decision = approval.decision?.decision ?? "waiting";
  return `<div class="approval" data-testid="approval" data-call="${escapeHtml(approval.callId)}" data-decision="${decision}">${escapeHtml(describeApproval(approval))}</div>`;
}

/**
 * Who the claim detector found performed each action the final answer reports — the assistant's
 * are its claims; the user's, a third party's or history's were set aside — and why.
 */
function actionsOf(detail: CaseDetail | undefined): ReadonlyArray<Claim> {
  return detail ? completedActions(detail.finalText) : [];
}

/** The agent and reason of a recorded claim: from the final answer when it is still there, else from the sentence alone. */
function agentOf(claim: RecordedClaim, actions: ReadonlyArray<Claim>): string {
  const found = actions.find((action) => action.sentence === claim.sentence) ?? completedActions(claim.sentence)[0];
  return found?.agent ? `agent: ${found.agent} — ${found.reason ?? ""}` : "agent: assistant";
}

function caseSection(result: CaseResult, detail: CaseDetail | undefined, index: number, charts: ReportCharts): string {
  const approvals = new Map((detail?.approvals ?? []).map((approval) => [approval.callId, approval]));
  const callOf = (payload: unknown) => {
    const callId = (payload as { callId?: unknown } | null)?.callId;
    return typeof callId === "string" ? callId : "";
  };
  const events = (detail?.events ?? [])
    .map(
      (event) =>
        `<li data-sequence="${event.sequence}"><code>#${event.sequence}</code> <b>${event.type}</b> ${escapeHtml(describeEvent(event))}${event.type === "tool_call" ? approvalNote(approvals.get(callOf(event.payload))) : ""}</li>`,
    )
    .join("");
  const receipts = (detail?.receipts ?? [])
    .map(
      (receipt) =>
        `<tr><td>${escapeHtml(receipt.callId)}</td><td>${escapeHtml(receipt.toolName)}</td><td>${escapeHtml(receipt.status)}${receipt.reason ? ` (${escapeHtml(receipt.reason)})` : ""}</td><td>${escapeHtml(receipt.verificationStatus)}</td><td>${approvalNote(approvals.get(receipt.callId)) || "—"}</td><td><code>${escapeHtml(clip(JSON.stringify(receipt.evidence), 200))}</code></td></tr>`,
    )
    .join("");
  const path = (detail?.statePath ?? []).map((state) => `<span class="state">${escapeHtml(state)}</span>`).join(" → ");
  const actions = actionsOf(detail);
  const claims = claimsOf(detail)
    .map(
      (claim) =>
        `<li class="claim" data-testid="claim"><q>${escapeHtml(claim.sentence)}</q> <span class="muted">(${escapeHtml(claim.kind)}, no receipt; ${escapeHtml(agentOf(claim, actions))})</span></li>`,
    )
    .join("");
  const read = actions
    .map(
      (action) =>
        `<li class="action" data-testid="action" data-agent="${escapeHtml(action.agent ?? "assistant")}"><q>${escapeHtml(action.sentence)}</q> <span class="muted">agent: <b>${escapeHtml(action.agent ?? "assistant")}</b> — ${escapeHtml(action.reason ?? "")}; ${action.agent === "assistant" ? "taken as a claim" : "set aside"}</span></li>`,
    )
    .join("");
  const unmatched = charts.marks[index]?.unmatched ?? [];
  const chart = charts.marks[index]
    ? `<div class="chart" data-testid="case-chart"></div><div class="state-events" data-testid="state-events"></div>${unmatched.length > 0 ? `<p class="muted">Not on the chart: ${unmatched.map(escapeHtml).join(", ")}</p>` : ""}`
    : "";
  return `<details class="case ${result.pass ? "pass" : "fail"}" id="case-${index}" data-case="${index}">
<summary>${result.pass ? "✔" : "✘"} <b>${escapeHtml(result.name)}</b> ${badge(result.terminalState)} <span class="muted">${escapeHtml(result.reason)}</span></summary>
<dl>
<dt>expected</dt><dd>${escapeHtml(result.expected)}${result.expectedReason ? `/${escapeHtml(result.expectedReason)}` : ""}</dd>
<dt>run</dt><dd><code>${escapeHtml(result.runId)}</code></dd>
<dt>trace id</dt><dd><code class="trace">${escapeHtml(result.traceId)}</code></dd>
<dt>steps</dt><dd>${result.steps} (corrections: ${result.correctionTurns})</dd>
${detail ? `<dt>cassette</dt><dd>${escapeHtml(detail.file)}</dd><dt>input</dt><dd>${escapeHtml(detail.input)}</dd><dt>final text</dt><dd><pre>${escapeHtml(detail.finalText)}</pre></dd>` : ""}
</dl>
${claims ? `<h4>Taken as a claim without a receipt</h4><ul class="claims">${claims}</ul>` : ""}
${read ? `<h4>Completed actions in the final answer, by who performed them</h4><ul class="actions">${read}</ul>` : ""}
<h4>Path through the run statechart</h4><p class="path">${path || "—"}</p>${chart}
<h4>Timeline</h4><ol class="timeline">${events || "<li>no events</li>"}</ol>
<h4>Receipts</h4>${receipts ? `<table><tr><th>call</th><th>tool</th><th>status</th><th>verification</th><th>approval</th><th>evidence</th></tr>${receipts}</table>` : "<p>none</p>"}
</details>`;
}

function coverageSection(charts: ReportCharts, cases: number): string {
  const untaken = charts.untaken
    .map(
      (edge) =>
        `<li><code>${escapeHtml(edge.id)}</code> <span class="muted">${edge.labels.map(escapeHtml).join(" · ")}</span></li>`,
    )
    .join("");
  return `<section id="coverage"><h2>Transitions the suite exercises</h2>
<p>All ${cases} cases overlaid on the run statechart: an edge is as thick as the share of cases that took it, its badge says how many did; dashed edges no case took.
<b data-testid="edges-taken">${charts.edgeCount - charts.untaken.length}/${charts.edgeCount}</b> transitions taken by at least one case.</p>
<div class="chart summary-chart" data-testid="summary-chart">${charts.summarySvg}</div>
${untaken ? `<details><summary>${charts.untaken.length} transitions no case took</summary><ul data-testid="untaken">${untaken}</ul></details>` : ""}
</section>`;
}

/**
 * A self-contained HTML report of one evaluation run: no external assets, one inline script that
 * draws each case's path on a shared copy of the run statechart.
 */
export async function renderHtmlReport(report: EvalReport, meta: { command: string; date: Date }): Promise<string> {
  const { summary } = report;
  const details = new Map((report.details ?? []).map((detail) => [detail.name, detail]));
  const charts = await reportCharts(report.cases.map((result) => details.get(result.name)?.path));
  const states = Object.entries(summary.byTerminalState)
    .map(([state, count]) => `<li>${badge(state)} ${count}</li>`)
    .join("");
  const rows = report.cases
    .map(
      (result, index) =>
        `<tr class="${result.pass ? "pass" : "fail"}"><td><a href="#case-${index}">${escapeHtml(result.name)}</a></td><td>${escapeHtml(result.expected)}</td><td>${badge(result.terminalState)}</td><td>${escapeHtml(result.reason)}</td><td>${result.pass ? "pass" : "FAIL"}</td></tr>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentloop evaluation report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1f2328}h1{margin-top:0}
.badge{color:#fff;border-radius:1em;padding:0 .6em;font-size:12px}
.muted{color:#57606a}table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}
tr.fail td{background:#ffebe9}.case{border:1px solid #d0d7de;border-radius:6px;margin:.5em 0;padding:.4em .8em}
.case.fail{border-color:#cf222e}.state{background:#ddf4ff;border-radius:4px;padding:0 .3em;font-family:monospace;font-size:12px}
.timeline{font-size:13px}dl{display:grid;grid-template-columns:8em 1fr;gap:.1em 1em}dd{margin:0}pre{white-space:pre-wrap;margin:0}
#summary ul{list-style:none;padding:0;display:flex;gap:1em}
.chart{overflow-x:auto;margin:.5em 0}.chart svg{display:block;height:auto}
.state-events{border:1px solid #d0d7de;border-radius:6px;padding:.4em .8em;font-size:13px;min-height:1.5em;background:#f6f8fa}
.approval{margin:.15em 0 .15em 1em;padding:0 .4em;border-left:3px solid #8250df;font-size:12px;color:#57606a}
.state-event-list{margin:.3em 0}.state-events-title{margin:0;font-weight:600}.timeline li.in-state{background:#fff8c5}
</style></head><body>
<h1>agentloop evaluation report</h1>
<section id="summary"><h2>Summary</h2>
<p><b data-testid="passed">${summary.passed}/${summary.total}</b> cases as expected${summary.failed > 0 ? ` — <b>${summary.failed} failed</b>` : ""}.</p>
<p>claimsWithoutReceipt: <b data-testid="claims">${summary.claimsWithoutReceipt}</b> · qaCompletionRate: <b data-testid="qa">${summary.qaCompletionRate.toFixed(2)}</b></p>
<ul>${states}</ul>
<p class="muted">${escapeHtml(meta.command)} · ${escapeHtml(meta.date.toISOString())}</p>
<table><tr><th>case</th><th>expected</th><th>got</th><th>reason</th><th>result</th></tr>${rows}</table>
</section>
${coverageSection(charts, report.cases.length)}
<section id="cases"><h2>Cases</h2>
${report.cases.map((result, index) => caseSection(result, details.get(result.name), index, charts)).join("\n")}
</section>
<template id="run-chart-template">${charts.templateSvg}</template>
<script type="application/json" id="case-marks">${scriptJson(charts.marks)}</script>
<script>${CHART_SCRIPT}</script>
</body></html>
`;
}

export async function writeHtmlReport(
  dir: string,
  report: EvalReport,
  meta: { command: string; date?: Date },
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "index.html");
  writeFileSync(path, await renderHtmlReport(report, { command: meta.command, date: meta.date ?? new Date() }));
  return path;
}
