import type { ApprovalNotice, BatchReply, RunReply } from "../../domain/index.js";
import type { RunDecision } from "./decisions.js";

/** What the run machine takes: the host's CANCEL, its I/O actor's answers and its own decisions. */

/** The I/O actor's report that the step's one call, run without a batch, started. */
export type CallStarted = Extract<BatchReply, { type: "CALL_STARTED" }>;

/** The I/O actor's report of that call's result. */
export type CallSettled = Extract<BatchReply, { type: "CALL_SETTLED" }>;

/** That call was given up: its timeout came (a delayed event), or a CANCEL (raised). */
export interface CallGivenUp {
  readonly type: "CALL_GIVEN_UP";
  readonly status: "timed_out" | "cancelled";
}

export type RunEvent =
  | { readonly type: "CANCEL" }
  | { readonly type: "CANCEL_REQUESTED" }
  | RunReply
  | RunDecision
  | ApprovalNotice
  /** The I/O actor's reports on the step's one call when the run executes it without a batch. */
  | CallStarted
  | CallSettled
  | CallGivenUp;

export interface RunIOInput {
  readonly runId: string;
}
