import * as Effect from "effect/Effect";
import type { ClaimScope, Verdict, VerifyInput } from "../domain/index.js";
import { CORRECTION_MESSAGE, correctionText, evidenceGap, type ProviderCapabilities } from "../domain/index.js";
import { answerPieces } from "./answerPieces.js";
import type { JudgedClaim } from "./claimJudge.js";
import { languageOf } from "./claims/text.js";
import { type Claim, detectClaims, unbackedClaims, uncertainSentences } from "./claims.js";

export { CORRECTION_MESSAGE, correctionText };

const describeClaim = (claim: Claim) => `a successful ${claim.kind} result for the claim "${claim.sentence}"`;

type VerifyAnswerInput = VerifyInput & {
  readonly capabilities: ProviderCapabilities;
  /** Claims the optional model judge found among the detector's unsure sentences (never fewer claims). */
  readonly judged?: ReadonlyArray<JudgedClaim> | undefined;
};

/** What the detector found in an answer, and the part of it it read when not all of it. */
export interface ClaimReading {
  readonly claims: ReadonlyArray<Claim>;
  readonly scope?: ClaimScope | undefined;
}

/** Decides from the claims already read (see verifyAnswer). */
function decide(input: VerifyAnswerInput, reading: ClaimReading): Verdict {
  const gap = evidenceGap(input.contract, input.receipts, input.toolKinds);
  const judged = (input.judged ?? []).map(
    (claim): Claim => ({ ...claim, verb: "judged", language: languageOf(claim.sentence) }),
  );
  const claims = unbackedClaims([...reading.claims, ...judged], input.receipts, input.toolKinds);
  const missing = [...gap.missing, ...claims.map(describeClaim)];
  const recorded = {
    ...(claims.length > 0 ? { claims: claims.map((claim) => ({ sentence: claim.sentence, kind: claim.kind })) } : {}),
    ...(reading.scope ? { claimScope: reading.scope } : {}),
  };
  if (gap.satisfied && claims.length === 0) {
    return {
      verdict: "completed",
      reason:
        input.contract.evidenceMode === "none" && input.contract.requiredToolNames.length === 0
          ? "answered"
          : "receipts_satisfied",
      missing: [],
      ...recorded,
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

/** The detector over the answer's pieces (answerPieces.ts), in one go. */
export function readClaims(answer: string): ClaimReading {
  const { pieces, scope } = answerPieces(answer);
  return { claims: pieces.flatMap((piece) => detectClaims(piece)), ...(scope ? { scope } : {}) };
}

/**
 * Decides a text answer: `completed` only when the receipts meet the
 * contract and the text claims no action without a receipt; otherwise one correction turn, then
 * `unverified`. A provider without tool calling cannot produce evidence, so an evidence contract
 * ends `unverified` / `tool_calling_unsupported` without a correction. Reads an answer over the
 * size cap of answerPieces.ts in part, and says so in `claimScope`.
 */
export function verifyAnswer(input: VerifyAnswerInput, reading: ClaimReading = readClaims(input.answer)): Verdict {
  return decide(input, reading);
}

/**
 * Lets timers, I/O and signal handlers run: a macrotask, not a microtask (Effect's own yield may
 * resume before any of them gets a turn). Interruptible, so a cancelled run stops reading here.
 */
const letTheLoopRun: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void));
  return Effect.sync(() => clearImmediate(handle));
});

/** Runs `read` on each piece, giving the event loop a turn between pieces. */
const eachPiece = <A>(pieces: ReadonlyArray<string>, read: (piece: string) => A): Effect.Effect<A[]> =>
  Effect.forEach(pieces, (piece, index) =>
    index === 0
      ? Effect.sync(() => read(piece))
      : Effect.zipRight(
          letTheLoopRun,
          Effect.sync(() => read(piece)),
        ),
  );

/** readClaims as an Effect that never holds the event loop for more than one piece. */
export const readClaimsYielding = (answer: string): Effect.Effect<ClaimReading> =>
  Effect.suspend(() => {
    const { pieces, scope } = answerPieces(answer);
    return eachPiece(pieces, detectClaims).pipe(
      Effect.map((found): ClaimReading => ({ claims: found.flat(), ...(scope ? { scope } : {}) })),
    );
  });

/** The detector's unsure sentences (claims.ts uncertainSentences) over the answer's pieces, at most `limit`. */
export const uncertainSentencesYielding = (answer: string, limit = 12): Effect.Effect<string[]> =>
  Effect.suspend(() => {
    const found: string[] = [];
    const { pieces } = answerPieces(answer);
    return eachPiece(pieces, (piece) => {
      if (found.length < limit) found.push(...uncertainSentences(piece, limit - found.length));
    }).pipe(Effect.as(found));
  });
