import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type {
  ApprovalDecided,
  BatchReply,
  HostApprovalDecision,
  PlannedCall,
  RunCommand,
  ToolCall,
} from "../domain/index.js";
import { listApprovals, recordApprovalRequest, sessionGrantsOf } from "../persistence/approvals.js";
import {
  type ApprovalPolicy,
  approvalReason,
  DEFAULT_APPROVAL_POLL_MS,
  DEFAULT_APPROVAL_TIMEOUT_MS,
} from "../services/tools/approvalPolicy.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import type { CommandIO } from "./commandHandlers.js";

/**
 * The approval side of one run's I/O, kept in one place: which planned calls must wait (the
 * policy, less the tools approved for the run or the session), the request rows, the calls still
 * waiting for a decision and the batch each decision goes to, and the grants a decision with a
 * wider scope leaves behind — which decide the other waiting calls of the tool at once.
 *
 * While calls wait it reads the ledger for their decisions: where decisions are announced
 * (PostgreSQL NOTIFY) once when a call starts to wait and then whenever the runtime hears of one
 * (`readDecisions`); elsewhere (SQLite, with several processes on one file) every `pollMs`.
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
  /** Decisions made in other processes are announced: a waiting run does not poll for them. */
  readonly decisionsAnnounced?: boolean | undefined;
}

type RequestCommand = Extract<RunCommand, { type: "REQUEST_APPROVAL" }>;
type Requested = Extract<BatchReply, { type: "APPROVAL_REQUESTED" }>;

/** A call whose request is durable and whose decision has not been handed on yet. */
interface WaitingCall {
  readonly toolName: string;
  /** Hands a decision to the batch that asked. */
  readonly deliver: (decided: ApprovalDecided) => void;
}

/** What a desk holds once a call of its run has had to wait (most runs never need it). */
interface DeskState {
  /** Tools approved for this run (scope `run` or `session`), with the decision that approved them. */
  readonly runGrants: Map<string, HostApprovalDecision>;
  readonly waiting: Map<string, WaitingCall>;
  /** Calls whose wait ended, perhaps before their request was durable (a short expiry). */
  readonly closed: Set<string>;
  /** One read of the ledger: each decision found for a waiting call is handed on, once. */
  readonly pollOnce: Effect.Effect<unknown, never, SqlClient.SqlClient>;
}

/**
 * A class rather than a closure table: a run holds its desk for its whole life, and methods on a
 * prototype cost a run nothing; the maps are made when a call first waits.
 */
export class ApprovalDesk {
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private state: DeskState | undefined;

  constructor(private readonly wiring: ApprovalWiring) {
    this.timeoutMs = Math.max(1, Math.floor(wiring.approval?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS));
    this.pollMs = Math.max(10, wiring.approvalPollMs ?? DEFAULT_APPROVAL_POLL_MS);
  }

  private desk(): DeskState {
    if (this.state) return this.state;
    this.state = {
      runGrants: new Map(),
      waiting: new Map(),
      closed: new Set(),
      pollOnce: listApprovals(this.wiring.runId).pipe(
        Effect.tap((records) =>
          Effect.sync(() => {
            for (const record of records) {
              if (record.decision && this.state?.waiting.has(record.callId))
                this.decide(record.callId, record.toolName, record.decision);
            }
          }),
        ),
        // A failed read is tried again at the next beat.
        Effect.catchAllCause(() => Effect.void),
      ),
    };
    return this.state;
  }

  private granted(toolName: string): boolean {
    return this.state?.runGrants.has(toolName) === true || this.wiring.sessionGrants?.has(toolName) === true;
  }

  /** Why a runnable call must wait, and for how long; undefined when it may run at once. */
  approvalFor(call: ToolCall, tool: AnyToolDefinition) {
    const reason = approvalReason(call, tool, this.wiring.approval, (toolName) => this.granted(toolName));
    return reason === undefined ? undefined : { reason, timeoutMs: this.timeoutMs };
  }

  /**
   * A resumed call that never started and has no approval request of its own goes through this
   * run's approval policy as a new call would (the process may have stopped before asking).
   */
  withApproval(planned: PlannedCall): PlannedCall {
    if (planned.approval || planned.disposition !== "run") return planned;
    const tool = this.wiring.tools.get(planned.call.name);
    const approval = tool ? this.approvalFor(planned.call, tool) : undefined;
    return approval ? { ...planned, approval } : planned;
  }

  private handOn(callId: string, decision: HostApprovalDecision) {
    const call = this.state?.waiting.get(callId);
    if (!call) return;
    this.state?.waiting.delete(callId);
    call.deliver({ type: "APPROVAL_DECIDED", callId, decision });
  }

  /**
   * A decision on one call, from the host or the ledger: it goes to the call's batch if the call
   * still waits. Approved for the run or the session, the tool needs no approval for the rest of
   * the run (or the session), and every other call of the tool waiting now is approved with it.
   */
  decide(callId: string, toolName: string, decision: HostApprovalDecision) {
    this.handOn(callId, decision);
    if (decision.decision !== "approved" || decision.scope === "once") return;
    // Edited arguments belong to the call they were written for, not to the tool's other calls.
    const { arguments: _edited, ...forTheTool } = decision;
    const { runGrants, waiting } = this.desk();
    runGrants.set(toolName, forTheTool);
    if (decision.scope === "session") this.wiring.sessionGrants?.add(toolName);
    for (const [otherId, other] of [...waiting]) {
      if (other.toolName === toolName) this.handOn(otherId, forTheTool);
    }
  }

  /**
   * The call's request is durable before the host hears of it (a resumed run finds it there
   * already); from then on the ledger is read for its decision until none waits any more. A call
   * of a tool approved for the run while its request was being written is approved at once.
   */
  request(command: RequestCommand, io: Pick<CommandIO, "tell" | "fork">) {
    const { type: _command, timeoutMs: waitMs, replyTo, ...fields } = command;
    return recordApprovalRequest({ ...fields, timeoutMs: waitMs }, this.wiring.now()).pipe(
      Effect.as({ type: "APPROVAL_REQUESTED" as const, ...fields } satisfies Requested),
      Effect.tap(() => {
        const { closed, waiting, runGrants, pollOnce } = this.desk();
        if (closed.has(command.callId)) return Effect.void;
        waiting.set(command.callId, { toolName: command.toolName, deliver: (decided) => io.tell(replyTo, decided) });
        const grant = runGrants.get(command.toolName);
        if (grant) {
          this.handOn(command.callId, grant);
          return Effect.void;
        }
        // A new reader reads at once; the one it replaces loses nothing (decisions stay in the ledger).
        if (this.wiring.decisionsAnnounced) return io.fork("approvals", pollOnce);
        const polling = Effect.repeat(pollOnce, {
          schedule: Schedule.spaced(this.pollMs),
          while: () => waiting.size > 0,
        });
        return io.fork("approvals", polling);
      }),
    );
  }

  /** One read of the ledger for the decisions of the calls that wait now (none wait: nothing to read). */
  readDecisions(): Effect.Effect<unknown, never, SqlClient.SqlClient> {
    return this.state && this.state.waiting.size > 0 ? this.state.pollOnce : Effect.void;
  }

  /**
   * The session's grants other runs recorded (in any process): a call of such a tool asks no
   * more. A ledger that cannot be read leaves the grants this runtime knows; calls then ask.
   */
  adoptSessionGrants(sessionId: string): Effect.Effect<void, never, SqlClient.SqlClient> {
    return sessionGrantsOf(sessionId).pipe(
      Effect.tap((tools) =>
        Effect.sync(() => {
          for (const tool of tools) this.wiring.sessionGrants?.add(tool);
        }),
      ),
      Effect.asVoid,
      Effect.catchAll(() => Effect.void),
      // Under the OPEN command's span: no span of its own per statement.
      Effect.withTracerEnabled(false),
    );
  }

  /** The call's wait ended, whoever ended it: stop looking for its decision. */
  close(callId: string) {
    const { closed, waiting } = this.desk();
    closed.add(callId);
    waiting.delete(callId);
  }
}
