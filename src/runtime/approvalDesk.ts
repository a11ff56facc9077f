import { Effect, FiberMap, Schedule } from "effect";
import type {
  ApprovalDecided,
  HostApprovalDecision,
  PlannedCall,
  RunCommand,
  RunReply,
  ToolCall,
} from "../domain/index.js";
import { listApprovals, recordApprovalRequest } from "../persistence/approvals.js";
import {
  type ApprovalPolicy,
  approvalReason,
  DEFAULT_APPROVAL_POLL_MS,
  DEFAULT_APPROVAL_TIMEOUT_MS,
} from "../services/tools/approvalPolicy.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";

/**
 * The approval side of one run's I/O, kept in one place: which planned calls must wait (the
 * policy, less the tools approved for the run or the session), the request rows, the calls still
 * waiting for a decision, and the grants a decision with a wider scope leaves behind.
 *
 * While calls wait it reads the ledger for their decisions every `pollMs`: a decision made in
 * another process (`agentloop approve`) reaches the run that way. Polling, not LISTEN, so that
 * it works the same on SQLite with several processes on one file.
 */

export interface ApprovalWiring {
  readonly runId: string;
  readonly now: () => string;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly approval?: ApprovalPolicy | undefined;
  /** Tools approved for the whole session (scope `session`): shared by the session's runs. */
  readonly sessionGrants?: Set<string> | undefined;
  /** How often a waiting run reads the ledger for decisions (default 250 ms). */
  readonly approvalPollMs?: number | undefined;
}

type RequestCommand = Extract<RunCommand, { type: "REQUEST_APPROVAL" }>;
type Requested = Extract<RunReply, { type: "APPROVAL_REQUESTED" }>;

export type ApprovalDesk = ReturnType<typeof approvalDesk>;

export function approvalDesk(wiring: ApprovalWiring) {
  /** Tools approved for this run (scope `run`). */
  const runGrants = new Set<string>();
  const granted = (toolName: string) => runGrants.has(toolName) || wiring.sessionGrants?.has(toolName) === true;
  const timeoutMs = Math.max(1, Math.floor(wiring.approval?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS));
  const pollMs = Math.max(10, wiring.approvalPollMs ?? DEFAULT_APPROVAL_POLL_MS);
  /** Calls waiting for approval whose decision has not reached the run yet. */
  const awaiting = new Set<string>();
  /** Calls whose wait ended, perhaps before their request was durable (a short expiry). */
  const closed = new Set<string>();

  /** Why a runnable call must wait, and for how long; undefined when it may run at once. */
  const approvalFor = (call: ToolCall, tool: AnyToolDefinition) => {
    const reason = approvalReason(call, tool, wiring.approval, granted);
    return reason === undefined ? undefined : { reason, timeoutMs };
  };

  /**
   * A resumed call that never started and has no approval request of its own goes through this
   * run's approval policy as a new call would (the process may have stopped before asking).
   */
  const withApproval = (planned: PlannedCall): PlannedCall => {
    if (planned.approval || planned.disposition !== "run") return planned;
    const tool = wiring.tools.get(planned.call.name);
    const approval = tool ? approvalFor(planned.call, tool) : undefined;
    return approval ? { ...planned, approval } : planned;
  };

  /** A decision with a wider scope lets later calls of the tool run without asking. */
  const noteDecision = (toolName: string, decision: HostApprovalDecision) => {
    if (decision.decision !== "approved") return;
    if (decision.scope === "run") runGrants.add(toolName);
    if (decision.scope === "session") {
      runGrants.add(toolName);
      wiring.sessionGrants?.add(toolName);
    }
  };

  /** One read of the ledger: each decision found for a waiting call is noted and handed on, once. */
  const pollOnce = (deliver: (decided: ApprovalDecided) => void) =>
    listApprovals(wiring.runId).pipe(
      Effect.tap((records) =>
        Effect.sync(() => {
          for (const record of records) {
            if (!record.decision || !awaiting.delete(record.callId)) continue;
            noteDecision(record.toolName, record.decision);
            deliver({ type: "APPROVAL_DECIDED", callId: record.callId, decision: record.decision });
          }
        }),
      ),
      // A failed read is tried again at the next beat.
      Effect.catchAllCause(() => Effect.void),
    );

  /**
   * The call's request is durable before the host hears of it (a resumed run finds it there
   * already); from then on the ledger is read for its decision until none waits any more.
   */
  const request = (
    command: RequestCommand,
    fibers: FiberMap.FiberMap<string>,
    deliver: (decided: ApprovalDecided) => void,
  ) => {
    const { type: _command, timeoutMs: waitMs, ...fields } = command;
    return recordApprovalRequest({ ...fields, timeoutMs: waitMs }, wiring.now()).pipe(
      Effect.as({ type: "APPROVAL_REQUESTED" as const, ...fields } satisfies Requested),
      Effect.tap(() => {
        if (closed.has(command.callId)) return Effect.void;
        awaiting.add(command.callId);
        // A new poller reads at once; the one it replaces loses nothing (decisions stay in the ledger).
        const polling = Effect.repeat(pollOnce(deliver), {
          schedule: Schedule.spaced(pollMs),
          while: () => awaiting.size > 0,
        });
        return FiberMap.run(fibers, "approvals", polling);
      }),
    );
  };

  /** The call's wait ended, whoever ended it: stop looking for its decision. */
  const close = (callId: string) => {
    closed.add(callId);
    awaiting.delete(callId);
  };

  return { approvalFor, withApproval, noteDecision, request, close };
}
