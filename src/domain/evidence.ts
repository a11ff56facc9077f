import type { CompletionContract } from "./contract.js";
import type { JsonValue } from "./json.js";
import type { ExecutionReceipt } from "./receipt.js";
import type { ToolKind } from "./tool.js";

/** Evidence keys that name a stable external id; DELIVER needs one. */
export const STABLE_ID_KEYS = [
  "message_id",
  "commit_id",
  "artifact_id",
  "external_id",
  "messageId",
  "commitId",
] as const;

/** Evidence keys that show a mutation happened (a hash after the write, an exit code …). */
export const MUTATION_EVIDENCE_KEYS = [
  "sha256_after",
  "exit_code",
  "bytes_written",
  "diff_sha256",
  "rows_affected",
  "commit_id",
] as const;

function present(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return value.trim().length > 0;
  return true;
}

export function hasEvidence(receipt: ExecutionReceipt, keys: ReadonlyArray<string>): boolean {
  return keys.some((key) => present(receipt.evidence[key]));
}

export type ToolKinds = Readonly<Record<string, ToolKind>>;

export interface EvidenceGap {
  readonly satisfied: boolean;
  /** What is missing, in words a correction message or a log line can carry. */
  readonly missing: ReadonlyArray<string>;
}

/**
 * Whether the run's receipts meet its contract. Only `ok` receipts count: error, timed-out and
 * cancelled receipts never satisfy anything. Pure: used by the run machine's guard (so no path
 * can reach `completed` without evidence, whatever a verifier says) and by the verifier service.
 */
export function evidenceGap(
  contract: CompletionContract,
  receipts: ReadonlyArray<ExecutionReceipt>,
  toolKinds: ToolKinds,
): EvidenceGap {
  const ok = receipts.filter((receipt) => receipt.status === "ok");
  const missing: string[] = [];
  for (const name of contract.requiredToolNames) {
    if (!ok.some((receipt) => receipt.toolName === name)) missing.push(`a successful ${name} result`);
  }
  for (const kind of contract.requiredReceiptKinds) {
    if (!ok.some((receipt) => present(receipt.evidence[kind]))) missing.push(`a receipt carrying ${kind}`);
  }
  const kindOf = (receipt: ExecutionReceipt) => toolKinds[receipt.toolName];
  switch (contract.evidenceMode) {
    case "none":
      break;
    case "observe":
      if (ok.length === 0) missing.push("a successful tool result that observes the current state");
      break;
    case "mutate":
      if (!ok.some((receipt) => kindOf(receipt) === "mutate" && hasEvidence(receipt, MUTATION_EVIDENCE_KEYS))) {
        missing.push("a successful mutating tool result with evidence of the change (hash after write, exit code …)");
      }
      break;
    case "deliver":
      if (!ok.some((receipt) => kindOf(receipt) === "deliver" && hasEvidence(receipt, STABLE_ID_KEYS))) {
        missing.push("a successful delivery result carrying a stable external id (message_id, commit_id …)");
      }
      break;
  }
  return { satisfied: missing.length === 0, missing };
}
