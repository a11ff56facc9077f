import type { AgentRunResult, ApprovalNotice, LoopEvent, RunReply } from "../../domain/index.js";
import type { RunContext } from "./context.js";
import { finalText } from "./records.js";

/**
 * What the host hears of a run as it goes (the LoopEvents the machine emits) and what it gets when
 * the run ends, built from the context and the answer at hand: pure. The tool step's own notices
 * (a call asked for, started, its result) are built in toolStep.ts.
 */

type Notice<T extends LoopEvent["type"]> = Extract<LoopEvent, { type: T }>;

export const textDeltaNotice = (
  context: RunContext,
  delta: Extract<RunReply, { type: "TEXT_DELTA" }>,
): Notice<"text_delta"> => ({
  type: "text_delta",
  runId: context.runId,
  step: delta.step,
  delta: delta.delta,
});

/** A tool batch's call started (the batch reports it through the I/O actor). */
export const toolStartedNotice = (
  context: RunContext,
  started: Extract<RunReply, { type: "TOOL_STARTED" }>,
): Notice<"tool_started"> => ({
  type: "tool_started",
  runId: context.runId,
  step: started.step,
  callId: started.callId,
  toolName: started.toolName,
});

/** A call's approval request is durable: the host is asked. */
export const approvalRequestedNotice = (
  context: RunContext,
  request: Extract<ApprovalNotice, { type: "APPROVAL_WAITING" }>,
): Notice<"approval_requested"> => ({
  type: "approval_requested",
  runId: context.runId,
  step: request.step,
  callId: request.callId,
  toolName: request.toolName,
  arguments: request.arguments,
  reason: request.reason,
});

/** The run ended: its final text (with the model's answer when it did not complete), then `done`. */
export function endNotices(context: RunContext): [Notice<"final">, Notice<"done">] {
  const outcome = context.outcome!;
  return [
    {
      type: "final",
      runId: context.runId,
      text: finalText(context),
      terminalState: outcome.state,
      ...(outcome.state === "completed" ? {} : { answer: context.answer }),
    },
    {
      type: "done",
      runId: context.runId,
      traceId: context.traceId,
      terminalState: outcome.state,
      reason: outcome.reason,
    },
  ];
}

/** The machine's output, once it is in a final state. */
export const runResult = (context: RunContext): AgentRunResult => ({
  runId: context.runId,
  traceId: context.traceId,
  sessionId: context.sessionId,
  terminalState: context.outcome!.state,
  terminalReason: context.outcome!.reason,
  finalText: finalText(context),
  steps: context.step,
  correctionTurns: context.correctionTurns,
  receipts: [...context.receipts],
});
