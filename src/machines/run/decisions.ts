import {
  type CallFingerprint,
  CORRECTION_MESSAGE,
  type ContextMessage,
  evidenceGap,
  type Outcome,
  type PendingEvent,
  type PlannedCall,
  type SampleOutcome,
  type SampleResponse,
  type Verdict,
} from "../../domain/index.js";
import { isDoomLoop } from "../loopGuards.js";
import { MAX_CORRECTION_TURNS, type Rows, type RunContext } from "./context.js";
import {
  anomaly,
  assistantOutput,
  hasText,
  malformedDetail,
  protocolRepairMessages,
  reportedAnomalies,
} from "./records.js";

/**
 * What the run does next, decided once per answer from the I/O actor by a pure function. Each
 * decision is one event the machine raises to itself, so no transition depends on the order of
 * guards: exactly one decision comes out of each function.
 */
export type RunDecision =
  /** A tool step: record the calls (write-ahead), run them, record their results. */
  | {
      readonly type: "CALLS";
      readonly calls: ReadonlyArray<PlannedCall>;
      readonly text: string;
      readonly anomalies: ReadonlyArray<PendingEvent>;
      /** Commentary to show the host now: the step's whole text (its deltas, if any, came while it streamed). */
      readonly commentary: boolean;
    }
  /** A tool finish without a parseable call, with a repair left: tell the model and sample again. */
  | { readonly type: "REPAIR"; readonly turn: Rows }
  /** A text answer: verify it against the contract and the receipts. */
  | { readonly type: "ANSWER"; readonly answer: string; readonly closing: Rows }
  /** The verifier asks for the one correction turn. */
  | { readonly type: "CORRECT"; readonly turn: Rows }
  | { readonly type: "CONTINUE" }
  /** The step's calls are durable: run them (a resumed run's re-runnable calls run first). */
  | { readonly type: "RUN_CALLS" }
  /** Cancelled while the step's calls were being recorded: none runs, each gets a cancelled result. */
  | { readonly type: "CANCEL_CALLS" }
  /** The run ends with this outcome; `closing` rows land with the terminal event. */
  | { readonly type: "STOP"; readonly outcome: Outcome; readonly closing?: Rows; readonly answer?: string };

const stop = (state: Outcome["state"], reason: Outcome["reason"], detail: string | null = null): RunDecision => ({
  type: "STOP",
  outcome: { state, reason, detail },
});

/** A STOP whose `closing` rows land with the terminal event. */
const stopWith = (state: Outcome["state"], reason: Outcome["reason"], detail: string, closing: Rows): RunDecision => ({
  type: "STOP",
  outcome: { state, reason, detail },
  closing,
});

function answerRows(step: number, outcome: SampleResponse): Rows {
  return {
    events: [...reportedAnomalies(step, outcome), assistantOutput(step, outcome, "answer")],
    transcript: [{ role: "assistant", content: outcome.text, toolCalls: [] } satisfies ContextMessage],
  };
}

function brokenToolTurnEvents(step: number, outcome: SampleResponse): PendingEvent[] {
  return [
    ...(hasText(outcome) ? [assistantOutput(step, outcome, "commentary")] : []),
    ...reportedAnomalies(step, outcome, "tool_finish_without_parsed_calls"),
    anomaly(step, "tool_finish_without_parsed_calls", malformedDetail(outcome)),
  ];
}

/** A provider's answer, classified. */
export function classifySample(outcome: SampleOutcome, context: RunContext): RunDecision {
  if (outcome.type === "failure") return stop("failed", outcome.reason, outcome.message);
  const { step } = context;
  if (outcome.calls.length > 0) {
    return {
      type: "CALLS",
      calls: outcome.calls,
      text: outcome.text,
      anomalies: reportedAnomalies(step, outcome),
      commentary: hasText(outcome),
    };
  }
  if (outcome.finishReason === "tool_calls" || outcome.malformed.length > 0) {
    if (context.protocolRepairs < context.maxProtocolRepairs) {
      return {
        type: "REPAIR",
        turn: { events: brokenToolTurnEvents(step, outcome), transcript: protocolRepairMessages(outcome, step) },
      };
    }
    return stopWith(
      "failed",
      "provider_tool_protocol_invalid",
      "tool finish without a parseable call, after one repair",
      {
        events: brokenToolTurnEvents(step, outcome),
        transcript: [],
      },
    );
  }
  if (!hasText(outcome)) {
    const closing = {
      events: [...reportedAnomalies(step, outcome), anomaly(step, "empty_turn", `finish ${outcome.finishReason}`)],
      transcript: [],
    };
    return outcome.finishReason === "error"
      ? {
          type: "STOP",
          outcome: { state: "failed", reason: "incomplete_turn", detail: "empty turn, finish error" },
          closing,
        }
      : {
          type: "STOP",
          outcome: {
            state: "incomplete",
            reason: "incomplete_turn",
            detail: `empty turn, finish ${outcome.finishReason}`,
          },
          closing,
        };
  }
  const closing = answerRows(step, outcome);
  if (outcome.finishReason === "error") {
    return {
      type: "STOP",
      outcome: { state: "failed", reason: "incomplete_turn", detail: "answer cut by a provider error" },
      closing,
      answer: outcome.text,
    };
  }
  if (outcome.finishReason === "length" || outcome.finishReason === "content_filter") {
    return {
      type: "STOP",
      outcome: {
        state: "incomplete",
        reason: "incomplete_turn",
        detail: `answer cut short, finish ${outcome.finishReason}`,
      },
      closing,
      answer: outcome.text,
    };
  }
  return { type: "ANSWER", answer: outcome.text, closing };
}

/**
 * The verifier's verdict, decided. Defence in depth: whatever the verifier says, under `enforce`
 * a `completed` needs the contract's receipts; `off` and `observe` report what the old loop would
 * have: the answer, completed.
 */
export function classifyVerdict(verdict: Verdict, context: RunContext): RunDecision {
  const enforced = context.receiptVerification === "enforce";
  if (
    verdict.verdict === "completed" &&
    (!enforced || evidenceGap(context.contract, context.receipts, context.toolKinds).satisfied)
  ) {
    return stop("completed", verdict.reason);
  }
  if (!enforced) return stop("completed", "answered");
  if (verdict.verdict === "correct" && context.correctionTurns < MAX_CORRECTION_TURNS) {
    const text = verdict.correction ?? CORRECTION_MESSAGE;
    return {
      type: "CORRECT",
      turn: {
        events: [...context.closing.events, { type: "user_input", payload: { text, origin: "runtime_correction" } }],
        transcript: [...context.closing.transcript, { role: "user", content: text }],
      },
    };
  }
  return stop(
    "unverified",
    verdict.verdict === "completed" ? "receipt_missing" : verdict.reason,
    verdict.missing.join("; ") || null,
  );
}

export interface Checkpoint {
  /** A CANCEL arrived while the last write was in flight. */
  readonly cancelled: boolean;
}

/**
 * After the run's opening rows are durable: a resumed run whose interrupted step left calls that
 * may run goes on with them; a cancelled one ends (its calls get closing receipts); any other samples.
 */
export function afterOpened(
  context: Pick<RunContext, "callsRecorded" | "stepCalls">,
  { cancelled }: Checkpoint,
): RunDecision {
  if (cancelled) return stop("cancelled", "cancelled_by_user");
  return context.callsRecorded && context.stepCalls.length > 0 ? { type: "RUN_CALLS" } : { type: "CONTINUE" };
}

/** After the step's tool_call rows are durable: run the calls, unless a CANCEL came meanwhile. */
export const afterCallsRecorded = ({ cancelled }: Checkpoint): RunDecision =>
  cancelled ? { type: "CANCEL_CALLS" } : { type: "RUN_CALLS" };

/**
 * Whether the run executes the step's calls itself, without a tool batch: one call that may run
 * and needs no approval (most tool steps). A batch of one would cost a child actor, its start and
 * done events and a forwarded TOOL_STARTED on every step.
 */
export const runsAlone = (calls: ReadonlyArray<PlannedCall>): boolean =>
  calls.length === 1 && calls[0]!.disposition === "run" && !calls[0]!.approval;

/** After a repair or correction turn is durable: sample again unless cancelled or out of steps. */
export function afterTurn(context: RunContext, { cancelled }: Checkpoint): RunDecision {
  if (cancelled) return stop("cancelled", "cancelled_by_user");
  if (context.step >= context.maxSteps) return stop("incomplete", "max_steps_reached");
  return { type: "CONTINUE" };
}

/** After a tool step's results are durable: `callLog` already holds this step's calls. */
export function afterToolResults(
  context: RunContext,
  callLog: ReadonlyArray<CallFingerprint>,
  { cancelled }: Checkpoint,
): RunDecision {
  if (cancelled) return stop("cancelled", "cancelled_by_user");
  if (isDoomLoop(callLog, context.doomLoopThreshold)) {
    return stop("incomplete", "doom_loop", "the same tool call kept repeating");
  }
  if (context.step >= context.maxSteps) return stop("incomplete", "max_steps_reached");
  return { type: "CONTINUE" };
}
