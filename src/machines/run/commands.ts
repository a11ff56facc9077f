import type { RunCommand, ToolSettlement } from "../../domain/index.js";
import type { RunContext } from "./context.js";
import { runsAlone } from "./decisions.js";
import { finalText, toolStepEvents, toolStepTranscript, unsettledCalls } from "./records.js";

/** The commands the run machine sends its I/O actor, built from its context: pure. */

type Command<T extends RunCommand["type"]> = Extract<RunCommand, { type: T }>;

export const openCommand = (context: RunContext): Command<"OPEN"> => ({
  type: "OPEN",
  runId: context.runId,
  sessionId: context.sessionId,
  traceId: context.traceId,
  contract: context.contract,
  input: context.input,
  after: context.lastSequence,
  ...(context.resume ? { resumed: true } : {}),
});

/**
 * The step's tool_call rows (and commentary), durable before any tool runs: before its answer,
 * or — for a step whose one call runs alone — at the latest with that call's start record.
 */
export const recordCallsCommand = (context: RunContext): Command<"RECORD_CALLS"> => ({
  type: "RECORD_CALLS",
  runId: context.runId,
  after: context.lastSequence,
  events: toolStepEvents(context),
  transcript: toolStepTranscript(context),
  ...(runsAlone(context.stepCalls) ? { withStart: true as const } : {}),
});

export const recordResultsCommand = (
  context: RunContext,
  settlements: ReadonlyArray<ToolSettlement>,
): Command<"RECORD_RESULTS"> => ({
  type: "RECORD_RESULTS",
  runId: context.runId,
  after: context.lastSequence,
  step: context.step,
  settlements,
});

export const recordTurnCommand = (context: RunContext): Command<"RECORD_TURN"> => ({
  type: "RECORD_TURN",
  runId: context.runId,
  after: context.lastSequence,
  events: context.turn.events,
  transcript: context.turn.transcript,
});

export const verifyCommand = (context: RunContext): Command<"VERIFY"> => ({
  type: "VERIFY",
  runId: context.runId,
  contract: context.contract,
  receipts: context.receipts,
  answer: context.answer,
  toolKinds: context.toolKinds,
  correctionTurns: context.correctionTurns,
});

/** The closing rows, receipts for the step's unsettled calls, and the terminal event. */
export function finishCommand(context: RunContext): Command<"FINISH"> {
  const outcome = context.outcome!;
  return {
    type: "FINISH",
    runId: context.runId,
    after: context.lastSequence,
    events: context.closing.events,
    unsettled: unsettledCalls(context),
    terminal: {
      terminalState: outcome.state,
      reason: outcome.reason,
      finalText: finalText(context),
      steps: context.step,
      correctionTurns: context.correctionTurns,
      ...(context.verdict && context.receiptVerification !== "off"
        ? {
            verification: {
              mode: context.receiptVerification,
              verdict: context.verdict.verdict,
              reason: context.verdict.reason,
              missing: [...context.verdict.missing],
              ...(context.verdict.claims?.length ? { claims: [...context.verdict.claims] } : {}),
              ...(context.verdict.claimScope ? { claimScope: { ...context.verdict.claimScope } } : {}),
            },
          }
        : {}),
    },
    detail: outcome.detail,
    transcript: context.closing.transcript,
  };
}
