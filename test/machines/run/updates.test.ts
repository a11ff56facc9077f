import { describe, expect, it } from "vitest";
import type { Outcome, PendingEvent, Verdict } from "../../../src/domain/index.js";
import { NO_ROWS, type Rows, type RunContext } from "../../../src/machines/run/context.js";
import {
  CANCELLED,
  correctionTurn,
  ledgerFailed,
  mergedVerdict,
  repairTurn,
  stopped,
} from "../../../src/machines/run/updates.js";
import { runContext } from "../../support/runContext.js";

/** How the run's context takes a decision outside the tool step: each update's exact fields. */

const row = (text: string): PendingEvent => ({
  type: "provider_anomaly",
  payload: { step: 2, code: "x", detail: text },
});
const rows = (text: string): Rows => ({
  events: [row(text)],
  transcript: [{ role: "assistant", content: text, toolCalls: [] }],
});
const held = rows("held");

describe("turns", () => {
  it("a repair: its rows are the next turn, the held closing rows are dropped, one more repair", () => {
    const turn = rows("repair");
    expect(
      repairTurn(runContext({ protocolRepairs: 1, closing: held, samplingPhase: "first" }), { type: "REPAIR", turn }),
    ).toStrictEqual({ turn, closing: NO_ROWS, protocolRepairs: 2, samplingPhase: "continue" });
  });

  it("a correction: its rows are the next turn, the next sample is the correction's", () => {
    const turn = rows("correct");
    expect(
      correctionTurn(runContext({ correctionTurns: 0, closing: held, samplingPhase: "continue" }), {
        type: "CORRECT",
        turn,
      }),
    ).toStrictEqual({ turn, closing: NO_ROWS, correctionTurns: 1, samplingPhase: "correction" });
  });
});

describe("mergedVerdict", () => {
  const verdict = (claims?: Verdict["claims"]): Verdict => ({
    verdict: "unverified",
    reason: "claim_without_receipt",
    missing: ["lookup"],
    ...(claims ? { claims } : {}),
  });
  const sent = { sentence: "I sent it.", kind: "deliver" } as const;
  const wrote = { sentence: "I wrote it.", kind: "mutate" } as const;
  const table: ReadonlyArray<readonly [string, Verdict | null, Verdict, Verdict]> = [
    ["no claims before or now: the verdict as it came", null, verdict(), verdict()],
    ["claims now only", null, verdict([sent]), verdict([sent])],
    [
      "claims of the corrected answer stay, before the new ones",
      verdict([wrote]),
      verdict([sent]),
      verdict([wrote, sent]),
    ],
    ["claims before, none now: kept", verdict([wrote]), verdict(), verdict([wrote])],
  ];
  it.each(table)("%s", (_, before, now, merged) => {
    expect(mergedVerdict(runContext({ verdict: before }), now)).toStrictEqual(merged);
  });
});

describe("stopped", () => {
  const outcome: Outcome = { state: "unverified", reason: "receipt_missing", detail: "lookup" };
  const closing = rows("closing");
  const table: ReadonlyArray<
    readonly [string, Partial<RunContext>, Parameters<typeof stopped>[1], ReturnType<typeof stopped>]
  > = [
    [
      "the decision brings no rows nor answer: the held ones stay",
      { closing: held, answer: "held answer" },
      { type: "STOP", outcome },
      { outcome, closing: held, answer: "held answer" },
    ],
    [
      "the decision's rows and answer replace the held ones",
      { closing: held, answer: "held answer" },
      { type: "STOP", outcome, closing, answer: "new answer" },
      { outcome, closing, answer: "new answer" },
    ],
  ];
  it.each(table)("%s", (_, overrides, stop, update) => {
    expect(stopped(runContext(overrides), stop)).toStrictEqual(update);
  });
});

describe("outcomes", () => {
  it("a cancel is the user's", () => {
    expect(CANCELLED).toStrictEqual({ state: "cancelled", reason: "cancelled_by_user", detail: null });
  });

  const table: ReadonlyArray<readonly [string, Outcome | null, string | null]> = [
    ["no outcome yet: no detail", null, null],
    [
      "while ending otherwise: says how",
      { state: "completed", reason: "answered", detail: null },
      "while ending as completed/answered",
    ],
  ];
  it.each(table)("a refused ledger write fails the run — %s", (_, outcome, detail) => {
    expect(ledgerFailed(runContext({ outcome }))).toStrictEqual({
      state: "failed",
      reason: "ledger_write_failed",
      detail,
    });
  });
});
