/**
 * The ledger rows of one W10 run, shaped exactly as the runtime writes them (payload fields,
 * fingerprints, receipt evidence), so the floor, the raw-SQLite reference, the store benchmark and
 * the 100k-event session fixture all write the same rows.
 */
import { createHash } from "node:crypto";
import type { ExecutionReceipt, TerminalPayload } from "../../src/domain/index.js";
import type { EventToAppend, NewRun } from "../../src/persistence/AgentRunStore.js";
import { W10_CONTRACT, W10_FINAL_TEXT, W10_INPUT, W10_STEPS, w10Reply } from "../workloads/w10.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export const newW10Run = (runId: string, sessionId: string): NewRun => ({
  runId,
  sessionId,
  traceId: runId.replaceAll("-", ""),
  contract: W10_CONTRACT,
  providerId: "w10",
  model: "w10-scripted",
  apiFamily: "scripted",
});

export const userInputEvent = (): EventToAppend => ({
  sequence: 1,
  type: "user_input",
  payload: { text: W10_INPUT, origin: "user" },
});

export interface ToolCallRow {
  /** Written before the tool runs (write-ahead). */
  readonly event: EventToAppend;
  readonly callId: string;
  readonly inputFingerprint: string;
}

/**
 * The tool_call row of tool step `step`: sequence 2·step, `lookup({ i: step })` as W10's model asks
 * for steps 1–9 (longer runs, for fixtures, keep the same pattern).
 */
export function toolCallRow(step: number): ToolCallRow {
  const reply = w10Reply(step - 1);
  const callId = reply.kind === "call" ? reply.callId : `call_${step}`;
  const args = { i: step };
  const inputFingerprint = sha256(JSON.stringify({ arguments: args, name: "lookup" }));
  return {
    event: {
      sequence: 2 * step,
      type: "tool_call",
      payload: { step, callId, toolName: "lookup", arguments: args, inputFingerprint },
    },
    callId,
    inputFingerprint,
  };
}

export interface ToolResultRows {
  /** Written after the tool settled, with its receipt. */
  readonly event: EventToAppend;
  readonly receipt: ExecutionReceipt;
}

/** The tool_result row (sequence 2·step + 1) and the receipt of `call`. */
export function toolResultRows(
  runId: string,
  step: number,
  call: ToolCallRow,
  output: { readonly i: number; readonly value: string; readonly ok: true },
  startedAt: string,
  finishedAt: string,
): ToolResultRows {
  const outputJson = JSON.stringify({ i: output.i, ok: output.ok, value: output.value });
  const outputHash = sha256(outputJson);
  return {
    event: {
      sequence: 2 * step + 1,
      type: "tool_result",
      payload: { step, callId: call.callId, toolName: "lookup", status: "ok", output: { ...output }, outputHash },
    },
    receipt: {
      receiptId: `${runId}:${call.callId}`,
      runId,
      callId: call.callId,
      toolName: "lookup",
      status: "ok",
      startedAt,
      finishedAt,
      inputFingerprint: call.inputFingerprint,
      evidence: { output_sha256: outputHash, output_bytes: Buffer.byteLength(outputJson) },
      verificationStatus: "verified",
    },
  };
}

/** The closing rows after `toolSteps` tool steps: assistant_output, then the terminal (finishRun's sequence). */
export function closingRows(toolSteps = W10_STEPS - 1): {
  readonly answer: EventToAppend;
  readonly terminalSequence: number;
  readonly terminal: TerminalPayload;
} {
  const step = toolSteps + 1;
  return {
    answer: {
      sequence: 2 * toolSteps + 2,
      type: "assistant_output",
      payload: { step, text: W10_FINAL_TEXT, finishReason: "stop", toolCallCount: 0, role: "answer" },
    },
    terminalSequence: 2 * toolSteps + 3,
    terminal: {
      terminalState: "completed",
      reason: "receipts_satisfied",
      finalText: W10_FINAL_TEXT,
      steps: step,
      correctionTurns: 0,
      verification: { mode: "enforce", verdict: "completed", reason: "receipts_satisfied", missing: [] },
    },
  };
}
