import { describe, expect, it } from "vitest";
import {
  type CallFingerprint,
  CORRECTION_MESSAGE,
  type CompletionContract,
  type ContextMessage,
  type ExecutionReceipt,
  type FinishReason,
  type PendingEvent,
  type PlannedCall,
  type ProviderAnomaly,
  type ReceiptVerificationMode,
  type SampleOutcome,
  type Verdict,
} from "../../src/domain/index.js";
import type { Rows, RunContext } from "../../src/machines/run/context.js";
import {
  afterCallsRecorded,
  afterOpened,
  afterToolResults,
  afterTurn,
  classifySample,
  classifyVerdict,
  type RunDecision,
  runsAlone,
} from "../../src/machines/run/decisions.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";
import { runContext as context, LOOKUP_CONTRACT as LOOKUP } from "../support/runContext.js";

/**
 * The run machine's decisions are pure functions of an answer and the context: one table per
 * function, one row per branch, each with the exact decision (and ledger rows) it must give.
 */

const planned: PlannedCall = {
  call: { id: "call-1", name: "lookup", arguments: { q: "alpha" } },
  disposition: "run",
  inputFingerprint: inputFingerprint("lookup", { q: "alpha" }),
  timeoutMs: 1_000,
};

const response = (
  text: string,
  finishReason: FinishReason,
  extra: Partial<Extract<SampleOutcome, { type: "response" }>> = {},
): SampleOutcome => ({
  type: "response",
  text,
  finishReason,
  calls: [],
  malformed: [],
  anomalies: [],
  streamed: false,
  ...extra,
});

const ARGS_NOT_JSON: ProviderAnomaly = { code: "arguments_not_json", detail: "call 2: not JSON" };
const TOOL_FINISH: ProviderAnomaly = { code: "tool_finish_without_parsed_calls", detail: "adapter's own report" };

const anomalyRow = (code: string, detail: string): PendingEvent => ({
  type: "provider_anomaly",
  payload: { step: 2, code, detail },
});
const outputRow = (text: string, finishReason: FinishReason, role: "answer" | "commentary"): PendingEvent => ({
  type: "assistant_output",
  payload: { step: 2, text, finishReason, toolCallCount: 0, role },
});
const answerClosing = (text: string, finishReason: FinishReason): Rows => ({
  events: [outputRow(text, finishReason, "answer")],
  transcript: [{ role: "assistant", content: text, toolCalls: [] }],
});
const repairMessages = (text: string, problems: string): ContextMessage[] => [
  { role: "assistant", content: text, toolCalls: [{ id: "invalid-2", name: "invalid", arguments: {} }] },
  {
    role: "tool",
    callId: "invalid-2",
    toolName: "invalid",
    isError: true,
    content: `The previous tool call was invalid (${problems}). Call an available tool with valid JSON arguments, or answer in text.`,
  },
];

describe("classifySample", () => {
  const rows: ReadonlyArray<readonly [string, SampleOutcome, Partial<RunContext>, RunDecision]> = [
    [
      "a provider failure",
      { type: "failure", reason: "provider_error", message: "provider returned 500" },
      {},
      { type: "STOP", outcome: { state: "failed", reason: "provider_error", detail: "provider returned 500" } },
    ],
    [
      "a script that ran out",
      { type: "failure", reason: "script_exhausted", message: "no step left" },
      {},
      { type: "STOP", outcome: { state: "failed", reason: "script_exhausted", detail: "no step left" } },
    ],
    [
      "tool calls without commentary",
      response("", "tool_calls", { calls: [planned] }),
      {},
      { type: "CALLS", calls: [planned], text: "", anomalies: [], commentary: false },
    ],
    [
      "tool calls with commentary not yet shown",
      response("Let me look.", "tool_calls", { calls: [planned], anomalies: [ARGS_NOT_JSON] }),
      {},
      {
        type: "CALLS",
        calls: [planned],
        text: "Let me look.",
        anomalies: [anomalyRow("arguments_not_json", "call 2: not JSON")],
        commentary: true,
      },
    ],
    [
      "tool calls with streamed commentary (shown whole as well: its deltas are not the authoritative text)",
      response("Let me look.", "tool_calls", { calls: [planned], streamed: true }),
      {},
      { type: "CALLS", calls: [planned], text: "Let me look.", anomalies: [], commentary: true },
    ],
    [
      "tool calls whatever the finish reason says",
      response("", "stop", { calls: [planned] }),
      {},
      { type: "CALLS", calls: [planned], text: "", anomalies: [], commentary: false },
    ],
    [
      "a tool finish without a parseable call, with a repair left",
      response("Calling.", "tool_calls", { anomalies: [TOOL_FINISH, ARGS_NOT_JSON] }),
      { protocolRepairs: 0 },
      {
        type: "REPAIR",
        turn: {
          events: [
            { ...outputRow("Calling.", "tool_calls", "commentary") },
            anomalyRow("arguments_not_json", "call 2: not JSON"),
            anomalyRow("tool_finish_without_parsed_calls", "finish tool_calls; no tool calls"),
          ],
          transcript: repairMessages("Calling.", "no tool call could be parsed"),
        },
      },
    ],
    [
      "malformed calls under another finish reason, with a repair left",
      response("", "stop", { malformed: [{ name: "lookup", rawArguments: "{", problem: "arguments are not JSON" }] }),
      { protocolRepairs: 0 },
      {
        type: "REPAIR",
        turn: {
          events: [anomalyRow("tool_finish_without_parsed_calls", "finish stop; arguments are not JSON")],
          transcript: repairMessages("", "arguments are not JSON"),
        },
      },
    ],
    [
      "a tool finish without a parseable call, no repair left",
      response("", "tool_calls"),
      { protocolRepairs: 1 },
      {
        type: "STOP",
        outcome: {
          state: "failed",
          reason: "provider_tool_protocol_invalid",
          detail: "tool finish without a parseable call, after one repair",
        },
        closing: {
          events: [anomalyRow("tool_finish_without_parsed_calls", "finish tool_calls; no tool calls")],
          transcript: [],
        },
      },
    ],
    [
      "an empty turn, finish error",
      response("  ", "error", { anomalies: [ARGS_NOT_JSON] }),
      {},
      {
        type: "STOP",
        outcome: { state: "failed", reason: "incomplete_turn", detail: "empty turn, finish error" },
        closing: {
          events: [anomalyRow("arguments_not_json", "call 2: not JSON"), anomalyRow("empty_turn", "finish error")],
          transcript: [],
        },
      },
    ],
    [
      "an empty turn, finish stop",
      response("", "stop"),
      {},
      {
        type: "STOP",
        outcome: { state: "incomplete", reason: "incomplete_turn", detail: "empty turn, finish stop" },
        closing: { events: [anomalyRow("empty_turn", "finish stop")], transcript: [] },
      },
    ],
    [
      "an empty turn, finish length",
      response("", "length"),
      {},
      {
        type: "STOP",
        outcome: { state: "incomplete", reason: "incomplete_turn", detail: "empty turn, finish length" },
        closing: { events: [anomalyRow("empty_turn", "finish length")], transcript: [] },
      },
    ],
    [
      "an answer cut by a provider error",
      response("The answer is", "error"),
      {},
      {
        type: "STOP",
        outcome: { state: "failed", reason: "incomplete_turn", detail: "answer cut by a provider error" },
        closing: answerClosing("The answer is", "error"),
        answer: "The answer is",
      },
    ],
    [
      "an answer cut short by length",
      response("The answer is", "length"),
      {},
      {
        type: "STOP",
        outcome: { state: "incomplete", reason: "incomplete_turn", detail: "answer cut short, finish length" },
        closing: answerClosing("The answer is", "length"),
        answer: "The answer is",
      },
    ],
    [
      "an answer cut short by the content filter",
      response("The answer is", "content_filter"),
      {},
      {
        type: "STOP",
        outcome: { state: "incomplete", reason: "incomplete_turn", detail: "answer cut short, finish content_filter" },
        closing: answerClosing("The answer is", "content_filter"),
        answer: "The answer is",
      },
    ],
    [
      "a plain answer",
      response("The answer is 42.", "stop", { anomalies: [ARGS_NOT_JSON] }),
      {},
      {
        type: "ANSWER",
        answer: "The answer is 42.",
        closing: {
          events: [
            anomalyRow("arguments_not_json", "call 2: not JSON"),
            outputRow("The answer is 42.", "stop", "answer"),
          ],
          transcript: [{ role: "assistant", content: "The answer is 42.", toolCalls: [] }],
        },
      },
    ],
  ];

  it.each(rows)("decides %s", (_, outcome, overrides, expected) => {
    expect(classifySample(outcome, context(overrides))).toEqual(expected);
  });
});

const receipt = (status: ExecutionReceipt["status"]): ExecutionReceipt => ({
  receiptId: "run-1:call-1",
  runId: "run-1",
  callId: "call-1",
  toolName: "lookup",
  status,
  startedAt: "2024-05-01T00:00:00.000Z",
  finishedAt: "2024-05-01T00:00:01.000Z",
  inputFingerprint: planned.inputFingerprint,
  evidence: {},
  verificationStatus: status === "ok" ? "verified" : "unverified",
});

const COMPLETED: Verdict = { verdict: "completed", reason: "receipts_satisfied", missing: [] };
const MISSING = ["a successful lookup result"];
const UNVERIFIED: Verdict = { verdict: "unverified", reason: "receipt_missing", missing: MISSING };
const CORRECT: Verdict = {
  verdict: "correct",
  reason: "receipt_missing",
  missing: MISSING,
  correction: "Call lookup.",
};
const CLOSING: Rows = {
  events: [outputRow("The answer is 42.", "stop", "answer")],
  transcript: [{ role: "assistant", content: "The answer is 42.", toolCalls: [] }],
};

describe("classifyVerdict", () => {
  const rows: ReadonlyArray<readonly [string, Verdict, ReceiptVerificationMode, Partial<RunContext>, RunDecision]> = [
    [
      "completed with the contract's receipts, enforce",
      COMPLETED,
      "enforce",
      { receipts: [receipt("ok")] },
      { type: "STOP", outcome: { state: "completed", reason: "receipts_satisfied", detail: null } },
    ],
    [
      "completed without the contract's receipts, enforce: overruled",
      COMPLETED,
      "enforce",
      { receipts: [receipt("error")] },
      {
        type: "STOP",
        // The verifier's verdict lists nothing missing, so the outcome carries no detail.
        outcome: { state: "unverified", reason: "receipt_missing", detail: null },
      },
    ],
    [
      "completed without receipts, observe: the old loop's report",
      COMPLETED,
      "observe",
      {},
      { type: "STOP", outcome: { state: "completed", reason: "receipts_satisfied", detail: null } },
    ],
    [
      "unverified, observe: completed as answered",
      UNVERIFIED,
      "observe",
      {},
      { type: "STOP", outcome: { state: "completed", reason: "answered", detail: null } },
    ],
    [
      "correct, off: completed as answered",
      CORRECT,
      "off",
      {},
      { type: "STOP", outcome: { state: "completed", reason: "answered", detail: null } },
    ],
    [
      "correct with the correction turn left, enforce",
      CORRECT,
      "enforce",
      { closing: CLOSING, correctionTurns: 0 },
      {
        type: "CORRECT",
        turn: {
          events: [
            ...CLOSING.events,
            { type: "user_input", payload: { text: "Call lookup.", origin: "runtime_correction" } },
          ],
          transcript: [...CLOSING.transcript, { role: "user", content: "Call lookup." }],
        },
      },
    ],
    [
      "correct without its own message: the runtime's correction message",
      { ...CORRECT, correction: undefined },
      "enforce",
      {},
      {
        type: "CORRECT",
        turn: {
          events: [{ type: "user_input", payload: { text: CORRECTION_MESSAGE, origin: "runtime_correction" } }],
          transcript: [{ role: "user", content: CORRECTION_MESSAGE }],
        },
      },
    ],
    [
      "correct with the correction turn used, enforce",
      CORRECT,
      "enforce",
      { correctionTurns: 1 },
      {
        type: "STOP",
        outcome: { state: "unverified", reason: "receipt_missing", detail: "a successful lookup result" },
      },
    ],
    [
      "unverified, enforce",
      { verdict: "unverified", reason: "tool_calling_unsupported", missing: [] },
      "enforce",
      {},
      { type: "STOP", outcome: { state: "unverified", reason: "tool_calling_unsupported", detail: null } },
    ],
  ];

  it.each(rows)("decides %s", (_, verdict, mode, overrides, expected) => {
    expect(classifyVerdict(verdict, context({ receiptVerification: mode, ...overrides }))).toEqual(expected);
  });

  it("completes under the none contract without any receipt, enforce", () => {
    const none: CompletionContract = { ...LOOKUP, evidenceMode: "none", requiredToolNames: [], source: "default" };
    expect(
      classifyVerdict({ verdict: "completed", reason: "answered", missing: [] }, context({ contract: none })),
    ).toEqual({ type: "STOP", outcome: { state: "completed", reason: "answered", detail: null } });
  });
});

const print = (input: string, result = "r"): CallFingerprint => ({
  toolName: "lookup",
  inputFingerprint: input,
  resultHash: result,
});

describe("afterToolResults", () => {
  const rows: ReadonlyArray<
    readonly [string, Partial<RunContext>, ReadonlyArray<CallFingerprint>, boolean, RunDecision]
  > = [
    [
      "cancelled while the results were recorded (before any other check)",
      { step: 4 },
      [print("a"), print("a"), print("a")],
      true,
      { type: "STOP", outcome: { state: "cancelled", reason: "cancelled_by_user", detail: null } },
    ],
    [
      "the same call repeated up to the doom-loop threshold",
      { step: 4 },
      [print("a"), print("a"), print("a")],
      false,
      {
        type: "STOP",
        outcome: { state: "incomplete", reason: "doom_loop", detail: "the same tool call kept repeating" },
      },
    ],
    [
      "the step budget spent",
      { step: 4 },
      [print("a"), print("b")],
      false,
      { type: "STOP", outcome: { state: "incomplete", reason: "max_steps_reached", detail: null } },
    ],
    ["steps left, no loop: sample again", { step: 3 }, [print("a"), print("a")], false, { type: "CONTINUE" }],
  ];

  it.each(rows)("decides %s", (_, overrides, callLog, cancelled, expected) => {
    expect(afterToolResults(context(overrides), callLog, { cancelled })).toEqual(expected);
  });

  it("reads the call log it is given (this step's calls included), not the context's", () => {
    const looping = [print("a"), print("a"), print("a")];
    expect(afterToolResults(context({ step: 1, callLog: looping }), [print("a")], { cancelled: false })).toEqual({
      type: "CONTINUE",
    });
  });
});

describe("afterTurn", () => {
  const rows: ReadonlyArray<readonly [string, Partial<RunContext>, boolean, RunDecision]> = [
    [
      "cancelled while the turn was recorded",
      { step: 1 },
      true,
      { type: "STOP", outcome: { state: "cancelled", reason: "cancelled_by_user", detail: null } },
    ],
    [
      "the step budget spent",
      { step: 4 },
      false,
      { type: "STOP", outcome: { state: "incomplete", reason: "max_steps_reached", detail: null } },
    ],
    ["steps left: sample again", { step: 3 }, false, { type: "CONTINUE" }],
  ];

  it.each(rows)("decides %s", (_, overrides, cancelled, expected) => {
    expect(afterTurn(context(overrides), { cancelled })).toEqual(expected);
  });
});

describe("afterOpened", () => {
  const fresh = { callsRecorded: false, stepCalls: [] };
  const resumed = { callsRecorded: true, stepCalls: [planned] };

  it("samples once a fresh run is open", () => {
    expect(afterOpened(fresh, { cancelled: false })).toEqual({ type: "CONTINUE" });
  });

  it("runs a resumed run's durable calls first", () => {
    expect(afterOpened(resumed, { cancelled: false })).toEqual({ type: "RUN_CALLS" });
  });

  it("ends the run cancelled when a CANCEL came while it opened, resumed or not", () => {
    const cancelled = { type: "STOP", outcome: { state: "cancelled", reason: "cancelled_by_user", detail: null } };
    expect(afterOpened(fresh, { cancelled: true })).toEqual(cancelled);
    expect(afterOpened(resumed, { cancelled: true })).toEqual(cancelled);
  });
});

describe("afterCallsRecorded", () => {
  it("runs the recorded calls, or cancels them all when a CANCEL came while they were recorded", () => {
    expect(afterCallsRecorded({ cancelled: false })).toEqual({ type: "RUN_CALLS" });
    expect(afterCallsRecorded({ cancelled: true })).toEqual({ type: "CANCEL_CALLS" });
  });
});

describe("runsAlone", () => {
  const second: PlannedCall = { ...planned, call: { ...planned.call, id: "call-2" } };
  const refused: PlannedCall = { ...planned, disposition: "unknown_tool" };
  const approving: PlannedCall = { ...planned, approval: { reason: "writes", timeoutMs: 1_000 } };
  const rows: ReadonlyArray<[string, ReadonlyArray<PlannedCall>, boolean]> = [
    ["one call that may run and needs no approval: the run executes it", [planned], true],
    ["two calls: a batch", [planned, second], false],
    ["one refused call: a batch (it settles there without running)", [refused], false],
    ["one call that needs approval: a batch (its approval lives there)", [approving], false],
    ["no call: nothing to run alone", [], false],
  ];

  it.each(rows)("decides %s", (_, calls, alone) => {
    expect(runsAlone(calls)).toBe(alone);
  });
});
