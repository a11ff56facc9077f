import { describe, expect, it } from "vitest";
import type {
  BatchReply,
  CallFingerprint,
  EventSink,
  ExecutionReceipt,
  ExecutorResult,
  JsonValue,
  LoopEvent,
  PlannedCall,
  ToolSettlement,
} from "../../../src/domain/index.js";
import type { RunContext } from "../../../src/machines/run/context.js";
import type { RunDecision } from "../../../src/machines/run/decisions.js";
import {
  callResultCommand,
  callStarted,
  callsCancelledCommand,
  callsRecorded,
  giveUpCall,
  type ResultsRecorded,
  resultsRecorded,
  startToolStep,
  type ToolStepStart,
} from "../../../src/machines/run/toolStep.js";
import { lookupReceipt, plannedLookup, runContext } from "../../support/runContext.js";

/**
 * A tool step's context updates, host notices and commands are pure functions of the context and
 * the answer at hand: one table per function, one row per case, each with the exact result.
 */

const alpha = plannedLookup("call-1", "alpha");
const beta = plannedLookup("call-2", "beta");
const refused: PlannedCall = { ...plannedLookup("call-3", "gamma"), disposition: "not_allowed", problem: "no" };
const needsApproval = plannedLookup("call-4", "delta", { approval: { reason: "writes", timeoutMs: 5_000 } });

const toolCall = (planned: PlannedCall): LoopEvent => ({
  type: "tool_call",
  runId: "run-1",
  step: 2,
  callId: planned.call.id,
  toolName: planned.call.name,
  arguments: planned.call.arguments,
});

const settlement = (planned: PlannedCall, fields: Partial<ToolSettlement>): ToolSettlement => ({
  callId: planned.call.id,
  toolName: "lookup",
  inputFingerprint: planned.inputFingerprint,
  status: "ok",
  output: null,
  evidence: {},
  startedAt: null,
  finishedAt: null,
  ...fields,
});

const recordResults = (settlements: ToolSettlement[], after = 7) => ({
  type: "RECORD_RESULTS" as const,
  runId: "run-1",
  after,
  step: 2,
  settlements,
});

describe("callsRecorded", () => {
  const rows: ReadonlyArray<readonly [string, ReadonlyArray<PlannedCall>, number, LoopEvent[]]> = [
    ["no calls: nothing to tell", [], 5, []],
    ["one call", [alpha], 6, [toolCall(alpha)]],
    ["two calls, in the model's order", [beta, alpha], 9, [toolCall(beta), toolCall(alpha)]],
  ];
  it.each(rows)("%s", (_, stepCalls, lastSequence, notices) => {
    expect(callsRecorded(runContext({ stepCalls, lastSequence: 1 }), lastSequence)).toStrictEqual({
      update: { callsRecorded: true, lastSequence },
      notices,
    });
  });
});

describe("callsCancelledCommand", () => {
  it("gives each of the step's calls a cancelled result, none started", () => {
    const cancelled = (planned: PlannedCall) =>
      settlement(planned, {
        status: "cancelled",
        reason: "cancelled_by_user",
        output: { error: "cancelled before it started" },
        evidence: { started: false },
      });
    expect(callsCancelledCommand(runContext({ stepCalls: [alpha, beta], lastSequence: 7 }))).toStrictEqual(
      recordResults([cancelled(alpha), cancelled(beta)]),
    );
  });
});

describe("startToolStep", () => {
  const run: EventSink<BatchReply> = { send: () => undefined };
  const batch = (calls: PlannedCall[]): ToolStepStart => ({
    runner: "batch",
    input: { runId: "run-1", step: 2, calls, concurrency: 2 },
  });
  const rows: ReadonlyArray<readonly [string, PlannedCall[], ToolStepStart]> = [
    [
      "one call that may run and needs no approval: the run executes it",
      [alpha],
      {
        runner: "run",
        command: { type: "EXECUTE", runId: "run-1", step: 2, index: 0, planned: alpha, replyTo: run },
      },
    ],
    ["two calls: a batch", [alpha, beta], batch([alpha, beta])],
    ["one refused call: a batch (it settles as refused there)", [refused], batch([refused])],
    ["one call that needs approval: a batch", [needsApproval], batch([needsApproval])],
  ];
  it.each(rows)("%s", (_, stepCalls, start) => {
    expect(startToolStep(runContext({ stepCalls }), run)).toStrictEqual(start);
  });

  it("names the run itself as the one the I/O actor reports to", () => {
    const start = startToolStep(runContext({ stepCalls: [alpha] }), run);
    expect(start.runner === "run" && start.command.replyTo).toBe(run);
  });
});

describe("callStarted", () => {
  it("notes when the call started, tells the host, and times it out after its own timeout", () => {
    const slow = plannedLookup("call-9", "slow", { timeoutMs: 30_000 });
    const started: Extract<BatchReply, { type: "CALL_STARTED" }> = {
      type: "CALL_STARTED",
      index: 0,
      at: 12,
      startedAt: "2026-01-01T00:00:00.000Z",
    };
    expect(callStarted(runContext({ stepCalls: [slow] }), started)).toStrictEqual({
      update: { callStartedAt: "2026-01-01T00:00:00.000Z" },
      notice: { type: "tool_started", runId: "run-1", step: 2, callId: "call-9", toolName: "lookup" },
      timeout: { event: { type: "CALL_GIVEN_UP", status: "timed_out" }, delay: 30_000 },
    });
  });
});

describe("callResultCommand", () => {
  const result = (fields: Partial<ExecutorResult>): ExecutorResult => ({
    status: "ok",
    output: { answer: 42 },
    evidence: { rows: 1 },
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:01.000Z",
    ...fields,
  });
  const timing = { startedAt: "2026-01-01T00:00:00.000Z", finishedAt: "2026-01-01T00:00:01.000Z" };
  const rows: ReadonlyArray<readonly [string, ExecutorResult, ToolSettlement]> = [
    ["ok: no reason", result({}), settlement(alpha, { output: { answer: 42 }, evidence: { rows: 1 }, ...timing })],
    [
      "an error without a reason: tool_error",
      result({ status: "error", output: { error: "boom" }, evidence: {} }),
      settlement(alpha, { status: "error", reason: "tool_error", output: { error: "boom" }, ...timing }),
    ],
    [
      "an error with its reason",
      result({ status: "error", reason: "tool_threw", output: { error: "threw" }, evidence: {} }),
      settlement(alpha, { status: "error", reason: "tool_threw", output: { error: "threw" }, ...timing }),
    ],
  ];
  it.each(rows)("%s", (_, reported, settled) => {
    expect(
      callResultCommand(runContext({ stepCalls: [alpha], lastSequence: 7 }), {
        type: "CALL_SETTLED",
        index: 0,
        at: 40,
        result: reported,
      }),
    ).toStrictEqual(recordResults([settled]));
  });
});

describe("giveUpCall", () => {
  const STARTED = "2026-01-01T00:00:00.000Z";
  const rows: ReadonlyArray<readonly [string, "timed_out" | "cancelled", string | null, ToolSettlement]> = [
    [
      "timed out after its start",
      "timed_out",
      STARTED,
      settlement(alpha, {
        status: "timed_out",
        reason: "timed_out",
        output: { error: "no result within 1000 ms" },
        evidence: { timeout_ms: 1_000 },
        startedAt: STARTED,
      }),
    ],
    [
      "timed out before it reported its start",
      "timed_out",
      null,
      settlement(alpha, {
        status: "timed_out",
        reason: "timed_out",
        output: { error: "no result within 1000 ms" },
        evidence: { timeout_ms: 1_000 },
      }),
    ],
    [
      "cancelled while running",
      "cancelled",
      STARTED,
      settlement(alpha, {
        status: "cancelled",
        reason: "cancelled_by_user",
        output: { error: "cancelled while running" },
        evidence: { started: true },
        startedAt: STARTED,
      }),
    ],
    [
      "cancelled before it started",
      "cancelled",
      null,
      settlement(alpha, {
        status: "cancelled",
        reason: "cancelled_by_user",
        output: { error: "cancelled before it started" },
        evidence: { started: false },
      }),
    ],
  ];
  it.each(rows)("%s", (_, status, callStartedAt, settled) => {
    expect(giveUpCall(runContext({ stepCalls: [alpha], callStartedAt, lastSequence: 7 }), status)).toStrictEqual({
      abort: { type: "ABORT", callId: "call-1" },
      record: recordResults([settled]),
    });
  });
});

describe("resultsRecorded", () => {
  const receipt = lookupReceipt;
  const fingerprint = (planned: PlannedCall, resultHash: string): CallFingerprint => ({
    toolName: "lookup",
    inputFingerprint: planned.inputFingerprint,
    resultHash,
  });
  const earlier = receipt(plannedLookup("call-0", "zero"));
  const answer = (receipts: ExecutionReceipt[], outputs?: JsonValue[], lastSequence = 11): ResultsRecorded => ({
    type: "RESULTS_RECORDED",
    lastSequence,
    receipts,
    resultHashes: receipts.map((_, index) => `hash-${index}`),
    ...(outputs ? { outputs } : {}),
  });
  const toolResult = (planned: PlannedCall, fields: Partial<Extract<LoopEvent, { type: "tool_result" }>> = {}) => ({
    type: "tool_result" as const,
    runId: "run-1",
    step: 2,
    callId: planned.call.id,
    toolName: "lookup",
    status: "ok" as const,
    ...fields,
  });
  const CONTINUE: RunDecision = { type: "CONTINUE" };
  const stop = (state: "cancelled" | "incomplete", reason: string, detail: string | null = null) => ({
    type: "STOP",
    outcome: { state, reason, detail },
  });

  const rows: ReadonlyArray<
    readonly [string, Partial<RunContext>, ResultsRecorded, ReadonlyArray<unknown>, CallFingerprint[], unknown]
  > = [
    [
      "one result with its output: the host sees it, the run samples again",
      { stepCalls: [alpha] },
      answer([receipt(alpha)], [{ answer: 42 }]),
      [toolResult(alpha, { output: { answer: 42 } })],
      [fingerprint(alpha, "hash-0")],
      CONTINUE,
    ],
    [
      "no outputs in the answer: the notices carry none; a receipt's reason is passed on",
      { stepCalls: [alpha, beta] },
      answer([receipt(alpha), receipt(beta, { status: "error", reason: "tool_error" })]),
      [toolResult(alpha), toolResult(beta, { status: "error", reason: "tool_error" })],
      [fingerprint(alpha, "hash-0"), fingerprint(beta, "hash-1")],
      CONTINUE,
    ],
    [
      "a CANCEL came while the results were being written",
      { stepCalls: [alpha], cancelRequested: true },
      answer([receipt(alpha)], [null]),
      [toolResult(alpha, { output: null })],
      [fingerprint(alpha, "hash-0")],
      stop("cancelled", "cancelled_by_user"),
    ],
    [
      "the last step allowed",
      { stepCalls: [alpha], step: 4 },
      answer([receipt(alpha)]),
      [{ ...toolResult(alpha), step: 4 }],
      [fingerprint(alpha, "hash-0")],
      stop("incomplete", "max_steps_reached"),
    ],
    [
      "the same call a third time in a row",
      { stepCalls: [alpha], callLog: [fingerprint(alpha, "a"), fingerprint(alpha, "b")] },
      answer([receipt(alpha)]),
      [toolResult(alpha)],
      [fingerprint(alpha, "a"), fingerprint(alpha, "b"), fingerprint(alpha, "hash-0")],
      stop("incomplete", "doom_loop", "the same tool call kept repeating"),
    ],
  ];
  it.each(rows)("%s", (_, overrides, recorded, notices, callLog, decision) => {
    const context = runContext({
      lastSequence: 7,
      receipts: [earlier],
      callsRecorded: true,
      callStartedAt: "2026-01-01T00:00:00.000Z",
      samplingPhase: "first",
      ...overrides,
    });
    expect(resultsRecorded(context, recorded)).toStrictEqual({
      update: {
        lastSequence: 11,
        receipts: [earlier, ...recorded.receipts],
        callLog,
        stepCalls: [],
        callStartedAt: null,
        callsRecorded: false,
        samplingPhase: "continue",
      },
      notices,
      decision,
    });
  });
});
