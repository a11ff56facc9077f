import { z } from "zod";

/** The five ways a run can end. Only `completed` may be phrased as done. */
export const TerminalState = z.enum(["completed", "unverified", "incomplete", "failed", "cancelled"]);
export type TerminalState = z.infer<typeof TerminalState>;

/** A run row carries `running` until its terminal event is durable. */
export const RunStatus = z.union([z.literal("running"), TerminalState]);
export type RunStatus = z.infer<typeof RunStatus>;

/** Why a run ended where it did; every terminal event carries exactly one. */
export const ReasonCode = z.enum([
  "answered",
  "receipts_satisfied",
  "max_steps_reached",
  "provider_tool_protocol_invalid",
  "incomplete_turn",
  "doom_loop",
  "receipt_missing",
  "claim_without_receipt",
  "tool_calling_unsupported",
  "tool_executor_missing",
  "provider_error",
  "script_exhausted",
  "ledger_write_failed",
  "cancelled_by_user",
  "interrupted",
  "internal_error",
]);
export type ReasonCode = z.infer<typeof ReasonCode>;
