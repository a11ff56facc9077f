import { evidenceGap, type ProviderCapabilities } from "../domain/index.js";
import type { Verdict, VerifyInput } from "../machines/protocol.js";
import { type Claim, detectClaims, unbackedClaims } from "./claims.js";

/** The runtime-owned correction message (seed §4 Phase 3); the model cannot edit it. */
export const CORRECTION_MESSAGE = [
  "The requested outcome requires verified execution evidence. No matching tool",
  "result exists for the claimed action. Call an available appropriate tool, or",
  "state clearly that the action was not completed. Do not claim completion without",
  "a result.",
].join("\n");

export function correctionText(missing: ReadonlyArray<string>): string {
  return missing.length === 0 ? CORRECTION_MESSAGE : `${CORRECTION_MESSAGE}\nMissing evidence: ${missing.join("; ")}.`;
}

const describeClaim = (claim: Claim) => `a successful ${claim.kind} result for the claim "${claim.sentence}"`;

/**
 * Decides a text answer (seed §2.2, §4 Phase 3, §8): `completed` only when the receipts meet the
 * contract and the text claims no action without a receipt; otherwise one correction turn, then
 * `unverified`. A provider without tool calling cannot produce evidence, so an evidence contract
 * ends `unverified` / `tool_calling_unsupported` without a correction.
 */
export function verifyAnswer(input: VerifyInput & { readonly capabilities: ProviderCapabilities }): Verdict {
  const gap = evidenceGap(input.contract, input.receipts, input.toolKinds);
  const claims = unbackedClaims(detectClaims(input.answer), input.receipts, input.toolKinds);
  const missing = [...gap.missing, ...claims.map(describeClaim)];
  if (gap.satisfied && claims.length === 0) {
    return {
      verdict: "completed",
      reason:
        input.contract.evidenceMode === "none" && input.contract.requiredToolNames.length === 0
          ? "answered"
          : "receipts_satisfied",
      missing: [],
    };
  }
  if (!input.capabilities.toolCalling && !gap.satisfied) {
    return { verdict: "unverified", reason: "tool_calling_unsupported", missing };
  }
  const reason = gap.satisfied ? "claim_without_receipt" : "receipt_missing";
  return {
    verdict: input.correctionTurns < 1 && input.capabilities.toolCalling ? "correct" : "unverified",
    reason,
    missing,
  };
}
