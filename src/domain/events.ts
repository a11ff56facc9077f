import { z } from "zod";
import { JsonValue } from "./json.js";
import { FinishReason } from "./provider.js";
import { ReceiptStatus } from "./receipt.js";
import { ReasonCode, TerminalState } from "./terminal.js";
import { ToolKind } from "./tool.js";

/** The six canonical ledger event types. */
export const CanonicalEventType = z.enum([
  "user_input",
  "assistant_output",
  "tool_call",
  "tool_result",
  "provider_anomaly",
  "terminal",
]);
export type CanonicalEventType = z.infer<typeof CanonicalEventType>;

/** `runtime_correction` marks the runtime-owned correction message, never model-editable. */
export const UserInputPayload = z.strictObject({
  text: z.string(),
  origin: z.enum(["user", "runtime_correction"]).default("user"),
  /**
   * An enqueued run's system prompt, resolved when it was queued (null: none), for the worker
   * that drives it. Absent: the worker resolves the run's agent's prompt itself.
   */
  system: z.string().nullable().optional(),
});

export const AssistantOutputPayload = z.strictObject({
  step: z.number().int().positive(),
  text: z.string(),
  finishReason: FinishReason,
  toolCallCount: z.number().int().nonnegative(),
  /** `commentary` when the text came with tool calls, `answer` when it is the turn's reply. */
  role: z.enum(["commentary", "answer"]),
});

export const ToolCallPayload = z.strictObject({
  step: z.number().int().positive(),
  callId: z.string().min(1),
  toolName: z.string().min(1),
  arguments: JsonValue,
  inputFingerprint: z.string(),
  /** sha256 of the call id the model sent, when it was unusable and replaced by `callId`. */
  originalIdHash: z.string().optional(),
});

export const ToolResultPayload = z.strictObject({
  step: z.number().int().positive(),
  callId: z.string().min(1),
  toolName: z.string().min(1),
  status: ReceiptStatus,
  output: JsonValue,
  outputHash: z.string(),
});

export const ProviderAnomalyPayload = z.strictObject({
  step: z.number().int().positive(),
  code: z.string().min(1),
  detail: z.string(),
});

/** The verifier's verdict as the run recorded it (also under receiptVerification `observe`). */
/** A sentence of an answer that claimed an action no receipt backed. */
export const RecordedClaim = z.strictObject({ sentence: z.string(), kind: ToolKind });
export type RecordedClaim = z.infer<typeof RecordedClaim>;

/**
 * Which part of a long answer the claim detector read: its first `headBytes` and last `tailBytes`
 * (UTF-8) of `answerBytes`. Absent when the whole answer was read.
 */
export const ClaimScope = z.strictObject({
  answerBytes: z.number().int().nonnegative(),
  headBytes: z.number().int().nonnegative(),
  tailBytes: z.number().int().nonnegative(),
});
export type ClaimScope = z.infer<typeof ClaimScope>;

export const RecordedVerdict = z.strictObject({
  mode: z.enum(["off", "observe", "enforce"]),
  verdict: z.enum(["completed", "unverified", "correct"]),
  reason: ReasonCode,
  missing: z.array(z.string()),
  /** Every unbacked claim the run's answers made, the corrected ones included. */
  claims: z.array(RecordedClaim).optional(),
  /** Set when the last answer was too long to read whole for claims. */
  claimScope: ClaimScope.optional(),
});

export const TerminalPayload = z.strictObject({
  terminalState: TerminalState,
  reason: ReasonCode,
  finalText: z.string(),
  steps: z.number().int().nonnegative(),
  correctionTurns: z.number().int().nonnegative(),
  verification: RecordedVerdict.optional(),
});

export const CanonicalEvent = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("user_input"), payload: UserInputPayload }),
  z.strictObject({ type: z.literal("assistant_output"), payload: AssistantOutputPayload }),
  z.strictObject({ type: z.literal("tool_call"), payload: ToolCallPayload }),
  z.strictObject({ type: z.literal("tool_result"), payload: ToolResultPayload }),
  z.strictObject({ type: z.literal("provider_anomaly"), payload: ProviderAnomalyPayload }),
  z.strictObject({ type: z.literal("terminal"), payload: TerminalPayload }),
]);
export type CanonicalEvent = z.infer<typeof CanonicalEvent>;
export type TerminalPayload = z.infer<typeof TerminalPayload>;

/** A canonical event with its place in the run, as stored. */
export const LedgerEvent = z.strictObject({
  runId: z.string(),
  sequence: z.number().int().positive(),
  type: CanonicalEventType,
  payload: JsonValue,
  createdAt: z.string(),
});
export type LedgerEvent = z.infer<typeof LedgerEvent>;
