import type { Verdict, VerifyInput } from "../domain/index.js";
import { CORRECTION_MESSAGE, correctionText, evidenceGap, type ProviderCapabilities } from "../domain/index.js";
import type { JudgedClaim } from "./claimJudge.js";
import { languageOf } from "./claims/text.js";
import { type Claim, detectClaims, unbackedClaims } from "./claims.js";

export { CORRECTION_MESSAGE, correctionText };

const describeClaim = (claim: Claim) => `a successful ${claim.kind} result for the claim "${claim.sentence}"`;

/**
 * Decides a text answer (seed §2.2, §4 Phase 3, §8): `completed` only when the receipts meet the
 * contract and the text claims no action without a receipt; otherwise one correction turn, then
 * `unverified`. A provider without tool calling cannot produce evidence, so an evidence contract
 * ends `unverified` / `tool_calling_unsupported` without a correction.
 */
export function verifyAnswer(
  input: VerifyInput & {
    readonly capabilities: ProviderCapabilities;
    /** Claims the optional model judge found among the detector's unsure sentences (never fewer claims). */
    readonly judged?: ReadonlyArray<JudgedClaim> | undefined;
  },
): Verdict {
  const gap = evidenceGap(input.contract, input.receipts, input.toolKinds);
  const judged = (input.judged ?? []).map(
    (claim): Claim => ({ ...claim, verb: "judged", language: languageOf(claim.sentence) }),
  );
  const claims = unbackedClaims([...detectClaims(input.answer), ...judged], input.receipts, input.toolKinds);
  const missing = [...gap.missing, ...claims.map(describeClaim)];
  const recorded =
    claims.length > 0 ? { claims: claims.map((claim) => ({ sentence: claim.sentence, kind: claim.kind })) } : {};
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
    return { verdict: "unverified", reason: "tool_calling_unsupported", missing, ...recorded };
  }
  const reason = gap.satisfied ? "claim_without_receipt" : "receipt_missing";
  if (input.correctionTurns < 1 && input.capabilities.toolCalling) {
    return { verdict: "correct", reason, missing, correction: correctionText(missing), ...recorded };
  }
  return { verdict: "unverified", reason, missing, ...recorded };
}
