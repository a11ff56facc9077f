import * as Effect from "effect/Effect";
import type { ExecutionReceipt, LedgerEvent, RunRecord } from "../domain/index.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { type DeliveryRow, LedgerReads } from "../persistence/LedgerReads.js";
import { redactText } from "../persistence/payloadHygiene.js";
import { computeHealth, type HealthReport, parseWindow } from "../services/observability/health.js";
import { ledgerMetricFamilies } from "../services/observability/ledgerMetrics.js";
import { renderFamilies } from "../services/observability/prometheus.js";
import { CliFailure, type CliIO } from "./output.js";
import { readLedger } from "./readLedger.js";

/**
 * The implementations of `agentloop metrics|health|trace`, loaded only when one of them runs
 * (src/cli/observabilityCommands.ts defines the commands). Everything is computed from the ledger
 * file, opened read-only.
 */

// --- metrics --------------------------------------------------------------------------------

/** `agentloop metrics`: the runtime's metrics in Prometheus text format. */
export async function metricsCommand(io: CliIO, options: { db: string }): Promise<number> {
  const families = await readLedger(options.db, ledgerMetricFamilies);
  for (const line of renderFamilies(families).trimEnd().split("\n")) io.out(line);
  return 0;
}

// --- trace ----------------------------------------------------------------------------------

const oneLine = (text: string, max = 80) => {
  const flat = redactText(text).replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};
const quoted = (text: unknown, max = 60) => JSON.stringify(oneLine(typeof text === "string" ? text : "", max));
const compactJson = (value: unknown, max = 60) => oneLine(JSON.stringify(value ?? null), max);

/** One line per ledger event: what happened, in the operator's words. */
export function describeEvent(event: LedgerEvent, receipts: ReadonlyMap<string, ExecutionReceipt>): string {
  const p = (event.payload ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case "user_input":
      return `${p.origin === "runtime_correction" ? "runtime correction" : "user"} ${quoted(p.text)}`;
    case "assistant_output":
      return `step ${p.step} ${p.role} finish=${p.finishReason} parsed_tool_calls=${p.toolCallCount} ${quoted(p.text)}`;
    case "tool_call":
      return `step ${p.step} call ${p.callId} ${p.toolName} ${compactJson(p.arguments)}`;
    case "tool_result": {
      const receipt = receipts.get(String(p.callId));
      const receiptText = receipt
        ? `receipt ${receipt.status}/${receipt.verificationStatus}${receipt.reason ? ` (${receipt.reason})` : ""}`
        : "NO RECEIPT";
      return `step ${p.step} result ${p.callId} ${p.toolName} ${p.status}; ${receiptText}; ${compactJson(p.output, 50)}`;
    }
    case "provider_anomaly":
      return `step ${p.step} ${p.code}: ${oneLine(String(p.detail ?? ""), 70)}`;
    case "terminal": {
      const verification = p.verification as { mode?: string; verdict?: string; reason?: string } | undefined;
      return `${p.terminalState} (${p.reason}) steps=${p.steps} corrections=${p.correctionTurns}${
        verification ? ` verification=${verification.mode}:${verification.verdict}/${verification.reason}` : ""
      } ${quoted(p.finalText)}`;
    }
  }
}

export interface TraceView {
  readonly run: RunRecord;
  readonly events: ReadonlyArray<LedgerEvent & { readonly summary: string }>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly persistence: {
    readonly events: number;
    readonly receipts: number;
    readonly toolCalls: number;
    readonly toolResults: number;
    readonly callsWithoutReceipt: ReadonlyArray<string>;
    readonly terminalEvent: string | null;
    readonly runRowMatchesTerminal: boolean;
    readonly visibleTurns: number | null;
  };
  readonly deliveries: ReadonlyArray<DeliveryRow> | null;
}

const loadTrace = (id: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const reads = yield* LedgerReads;
    const run = (yield* store.findRunByTrace(id)) ?? (yield* store.getRun(id));
    if (!run) return undefined;
    const events = yield* store.listRunEvents(run.runId);
    const receipts = yield* store.listReceipts(run.runId);
    const byCall = new Map(receipts.map((receipt) => [receipt.callId, receipt]));
    const visibleTurns = yield* reads.visibleTurns(run.runId);
    const deliveries = yield* reads.runDeliveries(run.runId);
    const calls = events.filter((event) => event.type === "tool_call");
    const terminal = events.find((event) => event.type === "terminal");
    const terminalState = (terminal?.payload as { terminalState?: string } | undefined)?.terminalState ?? null;
    const view: TraceView = {
      run,
      events: events.map((event) => ({ ...event, summary: describeEvent(event, byCall) })),
      receipts,
      persistence: {
        events: events.length,
        receipts: receipts.length,
        toolCalls: calls.length,
        toolResults: events.filter((event) => event.type === "tool_result").length,
        callsWithoutReceipt: calls
          .map((event) => String((event.payload as { callId?: unknown }).callId))
          .filter((callId) => !byCall.has(callId)),
        terminalEvent: terminalState,
        runRowMatchesTerminal: terminalState !== null && terminalState === run.terminalState,
        visibleTurns,
      },
      deliveries,
    };
    return view;
  });

function printTrace(io: CliIO, view: TraceView): void {
  const { run, persistence } = view;
  io.out(`run ${run.runId}`);
  io.out(`trace ${run.traceId ?? "-"}  session ${run.sessionId}`);
  io.out(`provider ${run.providerId ?? "-"}/${run.model ?? "-"} (${run.apiFamily ?? "-"})`);
  const required =
    run.contract.requiredToolNames.length > 0 ? ` tools=${run.contract.requiredToolNames.join(",")}` : "";
  io.out(`contract ${run.contract.evidenceMode}${required} (source ${run.contract.source})`);
  io.out(`started ${run.startedAt}  ended ${run.endedAt ?? "-"}`);
  io.out(
    `terminal ${run.terminalState}${run.failureCode ? ` (${run.failureCode})` : ""}${
      run.failureDetail ? `: ${oneLine(run.failureDetail)}` : ""
    }`,
  );
  io.out(`events (${view.events.length}):`);
  const width = Math.max(...view.events.map((event) => event.type.length), 0);
  for (const event of view.events) io.out(`  #${event.sequence}  ${event.type.padEnd(width)}  ${event.summary}`);
  io.out(`receipts (${view.receipts.length}):`);
  for (const receipt of view.receipts) {
    const keys = Object.keys(receipt.evidence).join(",");
    io.out(
      `  ${receipt.callId}  ${receipt.toolName}  ${receipt.status}${receipt.reason ? ` (${receipt.reason})` : ""}  ${receipt.verificationStatus}  evidence: ${keys || "-"}`,
    );
  }
  io.out("persistence:");
  io.out(
    `  ledger: ${persistence.events} events, ${persistence.receipts} receipts; ${persistence.toolCalls} tool calls, ${persistence.toolResults} results${
      persistence.callsWithoutReceipt.length > 0
        ? `; calls without receipt: ${persistence.callsWithoutReceipt.join(", ")}`
        : "; every call has a receipt"
    }`,
  );
  io.out(
    `  terminal event: ${persistence.terminalEvent ?? "MISSING"}; run row: ${run.terminalState} (${
      persistence.runRowMatchesTerminal ? "matches" : "MISMATCH"
    })`,
  );
  if (persistence.visibleTurns !== null)
    io.out(`  memory_turns (dual-write): ${persistence.visibleTurns} visible turn(s)`);
  if (view.deliveries !== null) {
    if (view.deliveries.length === 0) io.out("  deliveries: none");
    for (const row of view.deliveries) {
      io.out(
        `  delivery ${row.channel_id} ${row.kind} attempt ${row.attempt}: ${row.status}${
          row.message_id ? ` message_id=${row.message_id}` : ""
        }${row.error ? ` (${oneLine(row.error, 60)})` : ""}`,
      );
    }
  }
}

/** `agentloop trace TRACE_ID`: everything the ledger holds about one run. */
export async function traceCommand(
  io: CliIO,
  traceId: string,
  options: { db: string; json?: boolean },
): Promise<number> {
  const view = await readLedger(options.db, loadTrace(traceId));
  if (!view) throw new CliFailure(`no run with trace id ${traceId} in ${options.db}`);
  if (options.json) io.out(JSON.stringify(view));
  else printTrace(io, view);
  return 0;
}

// --- health ---------------------------------------------------------------------------------

function printHealth(io: CliIO, report: HealthReport, windowText: string): void {
  io.out(
    `health over the last ${windowText} (${report.window.from} .. ${report.window.to}): ${report.runs} closed run(s)`,
  );
  const width = Math.max(...report.checks.map((check) => check.name.length));
  for (const check of report.checks) {
    const status = check.status === "firing" ? "FIRING" : "ok";
    const runs = check.runIds.length > 0 ? ` [${check.runIds.join(", ")}]` : "";
    io.out(`${status.padEnd(6)}  ${check.name.padEnd(width)}  ${check.summary}${runs}`);
  }
}

/** `agentloop health`: the documented alert conditions over a time window; 1 when one fires. */
export async function healthCommand(
  io: CliIO,
  options: { db: string; window: string; json?: boolean },
): Promise<number> {
  let windowMs: number;
  try {
    windowMs = parseWindow(options.window);
  } catch (error) {
    throw new CliFailure((error as Error).message, 2);
  }
  const report = await readLedger(options.db, computeHealth({ windowMs }));
  if (options.json) io.out(JSON.stringify(report));
  else printHealth(io, report, options.window);
  return report.firing ? 1 : 0;
}
