import type { Outcome, Verdict } from "../../domain/index.js";
import { NO_ROWS, type RunContext } from "./context.js";
import type { RunDecision } from "./decisions.js";

/**
 * How the run's context takes a decision outside the tool step (toolStep.ts has those): a repair or
 * correction turn to write, a verdict, an outcome. Pure: each returns the fields that change.
 */

type Decision<T extends RunDecision["type"]> = Extract<RunDecision, { type: T }>;

/** A broken tool turn is repaired: its rows are written next, then the model samples again. */
export const repairTurn = (
  context: RunContext,
  repair: Decision<"REPAIR">,
): Pick<RunContext, "turn" | "closing" | "protocolRepairs" | "samplingPhase"> => ({
  turn: repair.turn,
  closing: NO_ROWS,
  protocolRepairs: context.protocolRepairs + 1,
  samplingPhase: "continue",
});

/** The verifier asked for the correction turn: its rows are written next, then the model samples for it. */
export const correctionTurn = (
  context: RunContext,
  correct: Decision<"CORRECT">,
): Pick<RunContext, "turn" | "closing" | "correctionTurns" | "samplingPhase"> => ({
  turn: correct.turn,
  closing: NO_ROWS,
  correctionTurns: context.correctionTurns + 1,
  samplingPhase: "correction",
});

/** Claims of a corrected answer stay on record: the report shows which sentence was taken as a claim. */
export function mergedVerdict(context: RunContext, verdict: Verdict): Verdict {
  const claims = [...(context.verdict?.claims ?? []), ...(verdict.claims ?? [])];
  return claims.length > 0 ? { ...verdict, claims } : verdict;
}

/** The run ends with the decision's outcome; its closing rows and answer, when it has them, replace the ones held. */
export const stopped = (
  context: RunContext,
  stop: Decision<"STOP">,
): Pick<RunContext, "outcome" | "closing" | "answer"> => ({
  outcome: stop.outcome,
  closing: stop.closing ?? context.closing,
  answer: stop.answer ?? context.answer,
});

export const CANCELLED: Outcome = { state: "cancelled", reason: "cancelled_by_user", detail: null };

/** A ledger write was refused: the run fails, saying how it was ending when that was decided already. */
export const ledgerFailed = (context: RunContext): Outcome => ({
  state: "failed",
  reason: "ledger_write_failed",
  detail: context.outcome ? `while ending as ${context.outcome.state}/${context.outcome.reason}` : null,
});
