import type {
  ContextMessage,
  ExecutionReceipt,
  JsonValue,
  ToolSettlement,
  VerificationStatus,
} from "../../domain/index.js";
import { hasEvidence, MUTATION_EVIDENCE_KEYS, STABLE_ID_KEYS } from "../../domain/index.js";
import type { EventToAppend } from "../../persistence/AgentRunStore.js";
import { canonicalJson, sha256 } from "./fingerprint.js";
import type { AnyToolDefinition } from "./Tool.js";

/**
 * What settled tool calls leave behind, as data: one receipt each (the output's hash and size as
 * evidence, verified by the tool's kind), one `tool_result` row each, and the tool messages the
 * model reads next.
 */

export interface ReceiptContext {
  /** When the batch's results are written: the finish time of a settlement that has none. */
  readonly finishedAt: string;
  /** When the call started, as the run saw it start (a settlement may not know). */
  readonly startedAtOf: (callId: string) => string | undefined;
  readonly toolOf: (toolName: string) => AnyToolDefinition | undefined;
  /** Evidence the call noted while it ran (ToolContext.noteEvidence): kept when the runtime settles it. */
  readonly notedEvidenceOf?: ((callId: string) => Readonly<Record<string, JsonValue>> | undefined) | undefined;
}

function outputText(output: JsonValue): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

function verificationOf(settlement: ToolSettlement, tool: AnyToolDefinition | undefined): VerificationStatus {
  if (settlement.status !== "ok") return "unverified";
  const receiptLike = { evidence: settlement.evidence } as ExecutionReceipt;
  if (tool?.kind === "deliver") return hasEvidence(receiptLike, STABLE_ID_KEYS) ? "verified" : "partial";
  if (tool?.kind === "mutate") return hasEvidence(receiptLike, MUTATION_EVIDENCE_KEYS) ? "verified" : "partial";
  return "verified";
}

export function receiptOf(runId: string, settlement: ToolSettlement, context: ReceiptContext): ExecutionReceipt {
  const outputJson = canonicalJson(settlement.output);
  return {
    receiptId: `${runId}:${settlement.callId}`,
    runId,
    callId: settlement.callId,
    toolName: settlement.toolName,
    status: settlement.status,
    ...(settlement.reason ? { reason: settlement.reason } : {}),
    startedAt: settlement.startedAt ?? context.startedAtOf(settlement.callId) ?? context.finishedAt,
    finishedAt: settlement.finishedAt ?? context.finishedAt,
    inputFingerprint: settlement.inputFingerprint,
    evidence: {
      // A timeout or cancel settles the call without its executor's evidence: what it noted stands in.
      ...context.notedEvidenceOf?.(settlement.callId),
      ...settlement.evidence,
      output_sha256: sha256(outputJson),
      output_bytes: Buffer.byteLength(outputJson),
    },
    verificationStatus: verificationOf(settlement, context.toolOf(settlement.toolName)),
    ...(context.toolOf(settlement.toolName)?.kind ? { toolKind: context.toolOf(settlement.toolName)!.kind } : {}),
  };
}

/** Result rows (sequences from `first`), receipts and transcript messages for settled calls. */
export function toolResultRecords(
  runId: string,
  step: number,
  settlements: ReadonlyArray<ToolSettlement>,
  first: number,
  context: ReceiptContext,
): { receipts: ExecutionReceipt[]; events: EventToAppend[]; messages: ContextMessage[] } {
  const receipts = settlements.map((settlement) => receiptOf(runId, settlement, context));
  const events: EventToAppend[] = settlements.map((settlement, index) => ({
    sequence: first + index,
    type: "tool_result",
    payload: {
      step,
      callId: settlement.callId,
      toolName: settlement.toolName,
      status: settlement.status,
      output: settlement.output,
      outputHash: receipts[index]!.evidence.output_sha256 as string,
    },
  }));
  const messages: ContextMessage[] = settlements.map((settlement) => ({
    role: "tool",
    callId: settlement.callId,
    toolName: settlement.toolName,
    isError: settlement.status !== "ok",
    content:
      settlement.status === "ok"
        ? outputText(settlement.output)
        : `${settlement.status}${settlement.reason ? ` (${settlement.reason})` : ""}: ${outputText(settlement.output)}`,
  }));
  return { receipts, events, messages };
}
