import type {
  ApprovalOutcome,
  CallDisposition,
  ExecutorResult,
  JsonValue,
  PlannedCall,
  ReceiptReason,
  ToolSettlement,
} from "../domain/index.js";

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
    ...(result.status !== "ok" ? { reason: result.reason ?? "tool_error" } : {}),
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

/** The decision as receipt evidence: what was decided, by whom, when, how far it reaches. */
export function approvalEvidence(outcome: ApprovalOutcome): { [key: string]: JsonValue } {
  const { decision, decidedBy } = outcome;
  switch (outcome.decision) {
    case "approved":
      return {
        decision,
        decidedBy,
        decidedAt: outcome.decidedAt,
        scope: outcome.scope,
        argumentsEdited: outcome.arguments !== undefined,
      };
    case "denied":
      return { decision, decidedBy, decidedAt: outcome.decidedAt, message: outcome.message };
    case "expired":
      return { decision, decidedBy, timeoutMs: outcome.timeoutMs };
    case "cancelled":
      return { decision, decidedBy };
  }
}

/**
 * A call that never ran because it was not approved. The output is what the model is shown: it
 * says plainly that the call did not happen, and why.
 */
export function unapprovedSettlement(
  planned: PlannedCall,
  outcome: Exclude<ApprovalOutcome, { decision: "approved" }>,
): ToolSettlement {
  const evidence = { approval: approvalEvidence(outcome), started: false };
  switch (outcome.decision) {
    case "denied":
      return settle(planned, "denied", {
        reason: "approval_denied",
        output: {
          error: `the call was not run: approval was denied${outcome.message ? `: ${outcome.message}` : ""}`,
        },
        evidence,
      });
    case "expired":
      return settle(planned, "expired", {
        reason: "approval_expired",
        output: { error: `the call was not run: nobody approved it within ${outcome.timeoutMs} ms` },
        evidence,
      });
    case "cancelled":
      return settle(planned, "cancelled", {
        reason: "cancelled_by_user",
        output: { error: "the call was not run: the run was cancelled while it waited for approval" },
        evidence,
      });
  }
}
