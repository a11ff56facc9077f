import { z } from "zod";
import { JsonValue } from "./json.js";

/**
 * Approval of tool calls (issue Q): a call that needs approval waits for a decision before it
 * runs. Decisions come from the host (`run.approve` / `run.deny`), from another process through the
 * ledger (`agentloop approve`), or from the run itself (`expired`, `cancelled`).
 */

/** How far an approval reaches: this call, every call of the tool in this run, or in this session. */
export const ApprovalScope = z.enum(["once", "run", "session"]);
export type ApprovalScope = z.infer<typeof ApprovalScope>;

/** A decision a person (or a host policy) makes; `decidedBy` names who, e.g. "host" or "cli:alice". */
export const HostApprovalDecision = z.discriminatedUnion("decision", [
  z.strictObject({
    decision: z.literal("approved"),
    scope: ApprovalScope,
    /** Edited arguments: the call runs with these, validated again by the tool's schema. */
    arguments: JsonValue.optional(),
    decidedBy: z.string().min(1),
    decidedAt: z.string(),
  }),
  z.strictObject({
    decision: z.literal("denied"),
    message: z.string(),
    decidedBy: z.string().min(1),
    decidedAt: z.string(),
  }),
]);
export type HostApprovalDecision = z.infer<typeof HostApprovalDecision>;

/** How a call's wait for approval ended: a host decision, or one the run made itself. */
export type ApprovalOutcome =
  | HostApprovalDecision
  | { readonly decision: "expired"; readonly timeoutMs: number; readonly decidedBy: "runtime" }
  | { readonly decision: "cancelled"; readonly decidedBy: "runtime" };

export interface ApprovalRequest {
  readonly runId: string;
  readonly step: number;
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: JsonValue | string;
  readonly reason: string;
}

/** A call's approval as the ledger holds it (`agent_approvals`). */
export interface ApprovalRecord {
  readonly runId: string;
  readonly callId: string;
  readonly toolName: string;
  readonly step: number;
  readonly reason: string;
  readonly arguments: JsonValue | string;
  /** How long the call may wait, from `requestedAt`. */
  readonly timeoutMs: number;
  readonly requestedAt: string;
  readonly decision: HostApprovalDecision | null;
}
