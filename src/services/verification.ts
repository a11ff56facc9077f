import { evidenceGap } from "../domain/index.js";
import type { Verdict, VerifyInput } from "../machines/protocol.js";

/**
 * Decides a text answer's terminal state from the contract and the run's receipts: `none`
 * completes; any other mode completes only when the receipts meet the contract.
 */
export function verifyAnswer(input: VerifyInput): Verdict {
  if (input.contract.evidenceMode === "none" && input.contract.requiredToolNames.length === 0) {
    return { verdict: "completed", reason: "answered", missing: [] };
  }
  const gap = evidenceGap(input.contract, input.receipts, input.toolKinds);
  return gap.satisfied
    ? { verdict: "completed", reason: "receipts_satisfied", missing: [] }
    : { verdict: "unverified", reason: "receipt_missing", missing: gap.missing };
}
