import type { CallDisposition, ExecutorResult, PlannedCall, ReceiptReason, ToolSettlement } from "../domain/index.js";

/**
 * How a planned call settles, as pure data: refused before it runs, by its executor's result, by
 * its timeout, or by a cancel. The tool batch and the run machine build every settlement here.
 */

const REFUSAL_REASON: Record<Exclude<CallDisposition, "run">, ReceiptReason> = {
  executor_missing: "tool_executor_missing",
  not_allowed: "tool_not_allowed",
  unknown_tool: "unknown_tool",
  invalid_arguments: "invalid_arguments",
};

function settle(
  planned: PlannedCall,
  status: ToolSettlement["status"],
  fields: Partial<Pick<ToolSettlement, "reason" | "output" | "evidence" | "startedAt" | "finishedAt">>,
): ToolSettlement {
  return {
    callId: planned.call.id,
    toolName: planned.call.name,
    inputFingerprint: planned.inputFingerprint,
    status,
    output: null,
    evidence: {},
    startedAt: null,
    finishedAt: null,
    ...fields,
  };
}

/** A call the runtime refused while planning (unknown, not allowed, no executor, invalid arguments). */
export function refusedSettlement(planned: PlannedCall): ToolSettlement {
  const reason = REFUSAL_REASON[planned.disposition as Exclude<CallDisposition, "run">];
  return settle(planned, "error", { reason, output: { error: planned.problem ?? reason } });
}

export function resultSettlement(planned: PlannedCall, result: ExecutorResult): ToolSettlement {
  return settle(planned, result.status, {
    ...(result.status === "error" ? { reason: result.reason ?? "tool_error" } : {}),
    output: result.output,
    evidence: result.evidence,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
  });
}

export function timedOutSettlement(planned: PlannedCall, startedAt: string | null): ToolSettlement {
  return settle(planned, "timed_out", {
    reason: "timed_out",
    output: { error: `no result within ${planned.timeoutMs} ms` },
    evidence: { timeout_ms: planned.timeoutMs },
    startedAt,
  });
}

export function cancelledSettlement(planned: PlannedCall, startedAt: string | null): ToolSettlement {
  const started = startedAt !== null;
  return settle(planned, "cancelled", {
    reason: "cancelled_by_user",
    output: { error: started ? "cancelled while running" : "cancelled before it started" },
    evidence: { started },
    startedAt,
  });
}
