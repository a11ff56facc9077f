import {
  type CallFingerprint,
  type ContextMessage,
  finalMessage,
  type PendingEvent,
  type PlannedCall,
  type SampleResponse,
  type ToolSettlement,
} from "../../domain/index.js";
import type { RunContext } from "./context.js";

/** The ledger rows and transcript messages the run machine decides on: pure builders. */

export const INVALID_TOOL_NAME = "invalid";

export const hasText = (outcome: SampleResponse) => outcome.text.trim().length > 0;

export function anomaly(step: number, code: string, detail: string): PendingEvent {
  return { type: "provider_anomaly", payload: { step, code, detail } };
}

/** The adapter's own anomaly reports, minus any code the machine records itself. */
export function reportedAnomalies(step: number, outcome: SampleResponse, skip?: string): PendingEvent[] {
  return outcome.anomalies
    .filter((reported) => reported.code !== skip)
    .map((reported) => anomaly(step, reported.code, reported.detail));
}

export function assistantOutput(step: number, outcome: SampleResponse, role: "commentary" | "answer"): PendingEvent {
  return {
    type: "assistant_output",
    payload: {
      step,
      text: outcome.text,
      finishReason: outcome.finishReason,
      toolCallCount: outcome.calls.length,
      role,
    },
  };
}

/** The hidden `invalid` tool's call and result: what the model is told after a broken tool turn. */
export function protocolRepairMessages(outcome: SampleResponse, step: number): ContextMessage[] {
  const callId = `${INVALID_TOOL_NAME}-${step}`;
  const problems = outcome.malformed.map((call) => call.problem).join("; ") || "no tool call could be parsed";
  return [
    { role: "assistant", content: outcome.text, toolCalls: [{ id: callId, name: INVALID_TOOL_NAME, arguments: {} }] },
    {
      role: "tool",
      callId,
      toolName: INVALID_TOOL_NAME,
      isError: true,
      content: `The previous tool call was invalid (${problems}). Call an available tool with valid JSON arguments, or answer in text.`,
    },
  ];
}

export function malformedDetail(outcome: SampleResponse): string {
  const problems = outcome.malformed.map((call) => call.problem);
  return `finish ${outcome.finishReason}; ${problems.length > 0 ? problems.join("; ") : "no tool calls"}`;
}

/** The rows of a tool step that are made durable before any tool runs (write-ahead). */
export function toolStepEvents(context: RunContext): PendingEvent[] {
  const events: PendingEvent[] = [...context.stepAnomalies];
  if (context.stepText.trim().length > 0) {
    events.push({
      type: "assistant_output",
      payload: {
        step: context.step,
        text: context.stepText,
        finishReason: "tool_calls",
        toolCallCount: context.stepCalls.length,
        role: "commentary",
      },
    });
  }
  for (const planned of context.stepCalls) {
    events.push({
      type: "tool_call",
      payload: {
        step: context.step,
        callId: planned.call.id,
        toolName: planned.call.name,
        arguments: planned.call.arguments,
        inputFingerprint: planned.inputFingerprint,
        ...(planned.originalIdHash ? { originalIdHash: planned.originalIdHash } : {}),
      },
    });
  }
  return events;
}

export function toolStepTranscript(context: RunContext): ContextMessage[] {
  return [
    { role: "assistant", content: context.stepText, toolCalls: context.stepCalls.map((planned) => planned.call) },
  ];
}

export function fingerprints(
  settlements: ReadonlyArray<Pick<ToolSettlement, "toolName" | "inputFingerprint">>,
  hashes: ReadonlyArray<string>,
): CallFingerprint[] {
  return settlements.map((settlement, index) => ({
    toolName: settlement.toolName,
    inputFingerprint: settlement.inputFingerprint,
    resultHash: hashes[index] ?? "",
  }));
}

/** Calls of the current step whose results were never recorded: they must still get a receipt. */
export function unsettledCalls(context: RunContext): ReadonlyArray<PlannedCall> {
  if (!context.callsRecorded) return [];
  const recorded = new Set(context.receipts.map((receipt) => receipt.callId));
  return context.stepCalls.filter((planned) => !recorded.has(planned.call.id));
}

export function finalText(context: RunContext): string {
  const outcome = context.outcome!;
  return finalMessage({
    terminalState: outcome.state,
    reason: outcome.reason,
    modelText: context.answer,
    traceId: context.traceId,
    locale: context.locale,
  });
}
