import { z } from "zod";
import { JsonValue } from "./json.js";

/** `denied` / `expired`: a call that needed approval and did not get it; it never ran. */
export const ReceiptStatus = z.enum(["ok", "error", "cancelled", "timed_out", "denied", "expired"]);
export type ReceiptStatus = z.infer<typeof ReceiptStatus>;

export const VerificationStatus = z.enum(["verified", "partial", "unverified"]);
export type VerificationStatus = z.infer<typeof VerificationStatus>;

/**
 * Why a receipt that is not `ok` ended as it did. `start_refused`: the ledger refused the call's
 * start record (the run's lease moved or expired), so its executor was never invoked.
 */
export const ReceiptReason = z.enum([
  "tool_error",
  "tool_threw",
  "tool_executor_missing",
  "tool_not_allowed",
  "unknown_tool",
  "invalid_arguments",
  "timed_out",
  "cancelled_by_user",
  "interrupted",
  "approval_denied",
  "approval_expired",
  "start_refused",
]);
export type ReceiptReason = z.infer<typeof ReceiptReason>;

/** One per tool call, including errors, timeouts, cancellations and missing executors. */
export const ExecutionReceipt = z.strictObject({
  receiptId: z.string().min(1),
  runId: z.string().min(1),
  callId: z.string().min(1),
  toolName: z.string().min(1),
  status: ReceiptStatus,
  reason: ReceiptReason.optional(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  inputFingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  evidence: z.record(z.string(), JsonValue),
  verificationStatus: VerificationStatus,
  /** The kind of the tool that produced it, as declared when the receipt was written. */
  toolKind: z.enum(["observe", "mutate", "deliver"]).optional(),
});
export type ExecutionReceipt = z.infer<typeof ExecutionReceipt>;
