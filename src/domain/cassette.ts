import { z } from "zod";
import { ApprovalScope } from "./approval.js";
import { EvidenceMode } from "./contract.js";
import { JsonValue } from "./json.js";
import { MemoryKind, MemoryVerificationStatus } from "./memory.js";
import { FinishReason, ToolChoiceMode } from "./provider.js";
import { ReceiptStatus } from "./receipt.js";
import { ReasonCode, TerminalState } from "./terminal.js";
import { ToolKind } from "./tool.js";

/** The public evaluation-case format (shared/spec/cassette.md). Unknown fields are errors. */

export const CassetteToolCall = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  /** An object, or a raw string to script malformed JSON. */
  arguments: z.union([z.record(z.string(), JsonValue), z.string()]),
});

export const CassetteModelStep = z.strictObject({
  text: z.string().optional(),
  toolCalls: z.array(CassetteToolCall).optional(),
  finishReason: FinishReason.optional(),
  error: z.strictObject({ status: z.number().int(), message: z.string().optional() }).optional(),
  delayMs: z.number().int().nonnegative().optional(),
  /**
   * Texts that must appear in the messages the model is handed at this step (e.g. a previous
   * turn's tool result); when one is missing the provider call fails (`context_mismatch`).
   */
  expectContext: z.array(z.string().min(1)).optional(),
});
export type CassetteModelStep = z.infer<typeof CassetteModelStep>;

export const FixtureOutcome = z.strictObject({
  status: z.enum(["ok", "error"]),
  output: JsonValue.optional(),
  evidence: z.record(z.string(), JsonValue).optional(),
  delayMs: z.number().int().nonnegative().optional(),
  throw: z.string().optional(),
});
export type FixtureOutcome = z.infer<typeof FixtureOutcome>;

export const CassetteTool = z.strictObject({
  name: z.string().min(1),
  builtin: z.boolean().optional(),
  kind: ToolKind.optional(),
  description: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  executor: z.boolean().optional(),
  outcomes: z.array(FixtureOutcome).min(1).optional(),
  /** every call of this tool waits for approval (a string is the reason shown). */
  approval: z.union([z.boolean(), z.string().min(1)]).optional(),
});
export type CassetteTool = z.infer<typeof CassetteTool>;

/**
 * a scripted decision on a call that waits for approval, made when the run asks for it
 * (after `delayMs`). A waiting call without one stays waiting: it expires, or the case cancels it.
 */
export const CassetteApproval = z.strictObject({
  callId: z.string().min(1),
  decision: z.enum(["approve", "deny"]),
  scope: ApprovalScope.optional(),
  /** Approve with these arguments instead of the model's. */
  arguments: z.record(z.string(), JsonValue).optional(),
  /** The denial's message (the model is told it). */
  message: z.string().optional(),
  delayMs: z.number().int().nonnegative().optional(),
  decidedBy: z.string().min(1).optional(),
});
export type CassetteApproval = z.infer<typeof CassetteApproval>;

export const Cassette = z.strictObject({
  name: z.string().min(1),
  session: z.string().min(1).optional(),
  input: z.string(),
  contract: z
    .strictObject({
      evidenceMode: EvidenceMode,
      requiredToolNames: z.array(z.string()).optional(),
      requiredReceiptKinds: z.array(z.string()).optional(),
      allowUnverifiedAnswer: z.boolean().optional(),
    })
    .optional(),
  signals: z
    .strictObject({
      command: z.string().optional(),
      skill: z.string().optional(),
      jobType: z.string().optional(),
      deliveryRequest: z.boolean().optional(),
    })
    .optional(),
  capabilities: z
    .strictObject({ toolCalling: z.boolean().optional(), toolChoice: z.array(ToolChoiceMode).optional() })
    .optional(),
  maxSteps: z.number().int().positive().optional(),
  locale: z.enum(["en", "zh"]).optional(),
  channelPolicy: z.enum(["final_only", "progress_updates", "silent_tool_status"]).optional(),
  /** Memory gate rollout for this case (default enforce). */
  memoryGate: z.enum(["off", "observe", "enforce"]).optional(),
  workspace: z.strictObject({ files: z.record(z.string(), z.string()) }).optional(),
  tools: z.array(CassetteTool).optional(),
  model: z.array(CassetteModelStep),
  cancelAfterMs: z.number().int().nonnegative().nullable().optional(),
  /** scripted decisions on calls that wait for approval. */
  approvals: z.array(CassetteApproval).optional(),
  /** how long a call waits for approval before it expires (default 10 minutes). */
  approvalTimeoutMs: z.number().int().positive().optional(),
  /**
   * when the first call waits for approval, the runtime driving the run is disposed
   * (the run is parked) and a new runtime on the same ledger file resumes it; the scripted
   * decisions are then made on the resumed run. Needs a ledger file (not `:memory:`).
   */
  restartWhileWaiting: z.boolean().optional(),
  expect: z.strictObject({
    terminalState: TerminalState,
    reason: ReasonCode.optional(),
    correctionTurns: z.number().int().nonnegative().optional(),
    receipts: z.array(z.strictObject({ toolName: z.string(), status: ReceiptStatus })).optional(),
    /** After the case: the session's memory holds an item containing `contains`, with this status. */
    memory: z
      .array(
        z.strictObject({ contains: z.string().min(1), kind: MemoryKind.optional(), status: MemoryVerificationStatus }),
      )
      .optional(),
  }),
});
export type Cassette = z.infer<typeof Cassette>;

export const CassetteFile = z.union([Cassette, z.array(Cassette).min(1)]);
