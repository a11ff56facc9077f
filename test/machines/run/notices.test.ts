import { describe, expect, it } from "vitest";
import type { AgentRunResult, LoopEvent, Outcome } from "../../../src/domain/index.js";
import type { RunContext } from "../../../src/machines/run/context.js";
import {
  approvalRequestedNotice,
  endNotices,
  runResult,
  textDeltaNotice,
  toolStartedNotice,
} from "../../../src/machines/run/notices.js";
import { finalText } from "../../../src/machines/run/records.js";
import { lookupReceipt, plannedLookup, runContext } from "../../support/runContext.js";

/** What the host hears of a run and gets at its end: each builder's exact output. */

describe("notices while the run goes", () => {
  const context = runContext({ step: 3 });

  it("a piece of streamed text carries the step it was sampled for", () => {
    expect(textDeltaNotice(context, { type: "TEXT_DELTA", step: 2, delta: "Hel" })).toStrictEqual({
      type: "text_delta",
      runId: "run-1",
      step: 2,
      delta: "Hel",
    });
  });

  it("a batch's call started", () => {
    expect(
      toolStartedNotice(context, { type: "TOOL_STARTED", step: 3, callId: "call-1", toolName: "lookup" }),
    ).toStrictEqual({ type: "tool_started", runId: "run-1", step: 3, callId: "call-1", toolName: "lookup" });
  });

  it("a call's approval is asked for, with its arguments and why", () => {
    const planned = plannedLookup("call-2", "beta");
    expect(
      approvalRequestedNotice(context, {
        type: "APPROVAL_WAITING",
        runId: "run-1",
        step: 3,
        callId: "call-2",
        toolName: "lookup",
        arguments: planned.call.arguments,
        reason: "writes to the order desk",
      }),
    ).toStrictEqual({
      type: "approval_requested",
      runId: "run-1",
      step: 3,
      callId: "call-2",
      toolName: "lookup",
      arguments: { q: "beta" },
      reason: "writes to the order desk",
    });
  });
});

describe("endNotices", () => {
  const ended = (outcome: Outcome, answer: string): RunContext => runContext({ outcome, answer });
  const rows: ReadonlyArray<readonly [string, Outcome, string, boolean]> = [
    [
      "completed: the text is the answer, no separate answer",
      { state: "completed", reason: "answered", detail: null },
      "42",
      false,
    ],
    [
      "unverified: the template, and the model's answer beside it",
      { state: "unverified", reason: "receipt_missing", detail: null },
      "42",
      true,
    ],
    [
      "failed: the template, and the (empty) answer beside it",
      { state: "failed", reason: "provider_error", detail: "500" },
      "",
      true,
    ],
  ];
  it.each(rows)("%s", (_, outcome, answer, withAnswer) => {
    const context = ended(outcome, answer);
    const expected: LoopEvent[] = [
      {
        type: "final",
        runId: "run-1",
        text: finalText(context),
        terminalState: outcome.state,
        ...(withAnswer ? { answer } : {}),
      },
      { type: "done", runId: "run-1", traceId: "trace-1", terminalState: outcome.state, reason: outcome.reason },
    ];
    expect(endNotices(context)).toStrictEqual(expected);
  });

  it("the completed text is the model's answer itself", () => {
    expect(endNotices(ended({ state: "completed", reason: "answered", detail: null }, "42"))[0].text).toBe("42");
  });
});

describe("runResult", () => {
  it("is the run's ids, outcome, final text, counts and a copy of its receipts", () => {
    const planned = plannedLookup("call-1", "alpha");
    const receipt = lookupReceipt(planned);
    const context = runContext({
      step: 3,
      correctionTurns: 1,
      receipts: [receipt],
      answer: "42",
      outcome: { state: "incomplete", reason: "max_steps_reached", detail: null },
    });
    const result = runResult(context);
    expect(result).toStrictEqual({
      runId: "run-1",
      traceId: "trace-1",
      sessionId: "session-1",
      terminalState: "incomplete",
      terminalReason: "max_steps_reached",
      finalText: finalText(context),
      steps: 3,
      correctionTurns: 1,
      receipts: [receipt],
    } satisfies AgentRunResult);
    expect(result.receipts).not.toBe(context.receipts);
  });
});
