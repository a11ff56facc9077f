import { z } from "zod";
import { JsonValue } from "./json.js";
import { ReceiptReason, ReceiptStatus } from "./receipt.js";

/** Risk category of a tool; it decides which contracts its receipts can satisfy. */
export const ToolKind = z.enum(["observe", "mutate", "deliver"]);
export type ToolKind = z.infer<typeof ToolKind>;

/** A tool call as the provider produced it, after parsing. `arguments` is the raw string when it was not JSON. */
export const ToolCall = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.union([JsonValue, z.string()]),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** What the model is shown about a tool. `inputSchema` is JSON Schema (from zod via z.toJSONSchema). */
export const ToolDescriptor = z.strictObject({
  name: z.string().min(1),
  description: z.string().default(""),
  kind: ToolKind,
  inputSchema: z.record(z.string(), z.unknown()).default({ type: "object" }),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

/** The outcome an executor reports; the runtime turns it into an ExecutionReceipt. */
export const ToolOutcome = z.strictObject({
  status: z.enum(["ok", "error"]),
  output: JsonValue,
  evidence: z.record(z.string(), JsonValue).default({}),
});
export type ToolOutcome = z.infer<typeof ToolOutcome>;

/**
 * What the runtime decided about a parsed call before anything runs: only `run` calls reach an
 * executor; the others settle at once with an error receipt naming why.
 */
export const CallDisposition = z.enum(["run", "executor_missing", "not_allowed", "unknown_tool", "invalid_arguments"]);
export type CallDisposition = z.infer<typeof CallDisposition>;

export const PlannedCall = z.strictObject({
  call: ToolCall,
  disposition: CallDisposition,
  /** sha256 of the canonical JSON of name + arguments. */
  inputFingerprint: z.string(),
  timeoutMs: z.number().int().positive(),
  problem: z.string().optional(),
  /** sha256 of the id the model sent, when it was unusable and replaced by `call.id`. */
  originalIdHash: z.string().optional(),
  /** The call waits for a decision before it runs: why, and how long it may wait. */
  approval: z.strictObject({ reason: z.string(), timeoutMs: z.number().int().positive() }).optional(),
});
export type PlannedCall = z.infer<typeof PlannedCall>;

/** How one call ended, before the runtime stamps it into an ExecutionReceipt. */
export const ToolSettlement = z.strictObject({
  callId: z.string(),
  toolName: z.string(),
  inputFingerprint: z.string(),
  status: ReceiptStatus,
  reason: ReceiptReason.optional(),
  output: JsonValue,
  evidence: z.record(z.string(), JsonValue),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type ToolSettlement = z.infer<typeof ToolSettlement>;

/**
 * What an executor actor reports; expected failures are values, not rejections. `cancelled` / `start_refused`: the ledger refused the call's start
 * record (the run's lease moved or expired), so the executor was never invoked.
 */
export const ExecutorResult = z.strictObject({
  status: z.enum(["ok", "error", "cancelled"]),
  reason: z.enum(["tool_error", "tool_threw", "invalid_arguments", "start_refused"]).optional(),
  output: JsonValue,
  evidence: z.record(z.string(), JsonValue),
  startedAt: z.string(),
  finishedAt: z.string(),
});
export type ExecutorResult = z.infer<typeof ExecutorResult>;
