import { assign, setup } from "xstate";
import type { ApprovalOutcome, HostApprovalDecision, JsonValue } from "../../domain/index.js";

/**
 * One tool call's wait for approval. The tool batch spawns one per call that needs
 * approval; the call runs only after `approved`. A decision the host or another process made
 * arrives as DECIDED; nobody deciding within `timeoutMs` is `expired`; a cancelled run cancels the
 * wait. Every end is final and its output is the decision the call's receipt carries as evidence.
 */

export interface ApprovalInput {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: JsonValue | string;
  readonly reason: string;
  /** How long the call may wait (what is left of it, for a run resumed from its ledger). */
  readonly timeoutMs: number;
}

export interface ApprovalContext extends ApprovalInput {
  readonly outcome: ApprovalOutcome | null;
}

export type ApprovalEvent =
  | { readonly type: "DECIDED"; readonly callId: string; readonly decision: HostApprovalDecision }
  | { readonly type: "CANCEL" };

export const approvalMachine = setup({
  types: {
    context: {} as ApprovalContext,
    input: {} as ApprovalInput,
    events: {} as ApprovalEvent,
    output: {} as ApprovalOutcome,
  },
  guards: {
    approvedDecision: ({ event }) => event.type === "DECIDED" && event.decision.decision === "approved",
    deniedDecision: ({ event }) => event.type === "DECIDED" && event.decision.decision === "denied",
  },
  actions: {
    recordDecision: assign({
      outcome: ({ event }) => (event.type === "DECIDED" ? event.decision : null),
    }),
    recordExpiry: assign({
      outcome: ({ context }): ApprovalOutcome => ({
        decision: "expired",
        timeoutMs: context.timeoutMs,
        decidedBy: "runtime",
      }),
    }),
    recordCancel: assign({ outcome: (): ApprovalOutcome => ({ decision: "cancelled", decidedBy: "runtime" }) }),
  },
  delays: {
    approvalTimeout: ({ context }) => Math.max(0, context.timeoutMs),
  },
}).createMachine({
  id: "approval",
  initial: "awaitingApproval",
  context: ({ input }) => ({ ...input, outcome: null }),
  states: {
    awaitingApproval: {
      after: { approvalTimeout: { target: "expired", actions: "recordExpiry" } },
      on: {
        DECIDED: [
          { guard: "approvedDecision", target: "approved", actions: "recordDecision" },
          { guard: "deniedDecision", target: "denied", actions: "recordDecision" },
        ],
        CANCEL: { target: "cancelled", actions: "recordCancel" },
      },
    },
    approved: { type: "final" },
    denied: { type: "final" },
    expired: { type: "final" },
    cancelled: { type: "final" },
  },
  output: ({ context }) => context.outcome!,
});
