import { Effect } from "effect";
import type { HostApprovalDecision, RunCommand, ToolCall } from "../domain/index.js";
import { listApprovals, recordApprovalRequest } from "../persistence/approvals.js";
import {
  type ApprovalPolicy,
  approvalReason,
  DEFAULT_APPROVAL_POLL_MS,
  DEFAULT_APPROVAL_TIMEOUT_MS,
} from "../services/tools/approvalPolicy.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";

/**
 * The approval side of one run's I/O: which planned calls must wait (the policy, less
 * the tools approved for the run or the session), the request row, and the decisions the ledger
 * holds for waiting calls. runOperations.ts folds these into the run's operations.
 */

export interface ApprovalWiring {
  readonly runId: string;
  readonly now: () => string;
  readonly approval?: ApprovalPolicy | undefined;
  /** Tools approved for the whole session (scope `session`): shared by the session's runs. */
  readonly sessionGrants?: Set<string> | undefined;
  /** How often a waiting run reads the ledger for decisions (default 250 ms). */
  readonly approvalPollMs?: number | undefined;
}

export function approvalOperations(wiring: ApprovalWiring) {
  /** Tools approved for this run (scope `run`). */
  const runGrants = new Set<string>();
  const granted = (toolName: string) => runGrants.has(toolName) || wiring.sessionGrants?.has(toolName) === true;
  const timeoutMs = Math.max(1, Math.floor(wiring.approval?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS));

  /** Why a runnable call must wait, and for how long; undefined when it may run at once. */
  const approvalFor = (call: ToolCall, tool: AnyToolDefinition) => {
    const reason = approvalReason(call, tool, wiring.approval, granted);
    return reason === undefined ? undefined : { reason, timeoutMs };
  };

  /** The call's request is durable before the host hears of it (a resumed run finds it there already). */
  const requestApproval = (command: Extract<RunCommand, { type: "REQUEST_APPROVAL" }>) => {
    const { type: _command, timeoutMs: waitMs, ...request } = command;
    return recordApprovalRequest({ ...request, timeoutMs: waitMs }, wiring.now()).pipe(
      Effect.as({ type: "APPROVAL_REQUESTED" as const, ...request }),
    );
  };

  /** Decisions the ledger holds for these waiting calls (made by this or another process). */
  const pollDecisions = (callIds: ReadonlySet<string>) =>
    listApprovals(wiring.runId).pipe(
      Effect.map((records) => records.filter((record) => callIds.has(record.callId) && record.decision !== null)),
      Effect.orElseSucceed(() => []),
    );

  /** A decision with a wider scope lets later calls of the tool run without asking. */
  const noteDecision = (toolName: string, decision: HostApprovalDecision) => {
    if (decision.decision !== "approved") return;
    if (decision.scope === "run") runGrants.add(toolName);
    if (decision.scope === "session") {
      runGrants.add(toolName);
      wiring.sessionGrants?.add(toolName);
    }
  };

  return {
    approvalPollMs: Math.max(10, wiring.approvalPollMs ?? DEFAULT_APPROVAL_POLL_MS),
    approvalFor,
    requestApproval,
    pollDecisions,
    noteDecision,
  };
}
