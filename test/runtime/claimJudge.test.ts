/**
 * Issue O item 4: the optional model judge. Asked only about a `completed` answer's unsure
 * sentences; it can add a claim (the run is corrected, then `unverified`), never take one away;
 * a failed or unreadable judgement leaves the rule-based verdict.
 */
import { describe, expect, it } from "vitest";
import type { TerminalPayload } from "../../src/domain/index.js";
import { parseJudgement } from "../../src/services/claimJudge.js";
import { uncertainSentences } from "../../src/services/claims.js";
import { countingProvider, finish, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-judge-");

/** A claim the rules miss (a bare plural after a subjectless verb reads as an adjective's noun). */
const MISSED = "Pulled comps for 42 Alder Ave: six sales within half a mile, median $612k.";
const JUDGED = '{"claims":[{"index":1,"kind":"observe"}]}';

async function run(steps: Parameters<typeof countingProvider>[0], claimJudge: boolean) {
  const runtime = await harness.makeRuntime({ claimJudge });
  const provider = countingProvider(steps);
  const handle = runtime.startRun({ sessionId: "s", input: "Find comparable sales.", provider });
  const { result, ...ledger } = await finish(runtime, handle);
  return { result, ledger, calls: provider.calls() };
}

describe("uncertainSentences", () => {
  it("holds the sentences with a completed action verb that the rules did not take as claims", () => {
    expect(uncertainSentences(MISSED)).toEqual([MISSED]);
    expect(uncertainSentences("I've pushed the fix. The weather is nice.")).toEqual([]);
  });
});

describe("parseJudgement", () => {
  const sentences = ["A.", "B."];
  it("reads the JSON object inside the judge's text and maps indexes to sentences", () => {
    expect(parseJudgement(`Sure: {"claims":[{"index":2,"kind":"deliver"}]}`, sentences)).toEqual([
      { sentence: "B.", kind: "deliver" },
    ]);
  });

  it("drops entries with an index out of range or an unknown kind", () => {
    expect(
      parseJudgement('{"claims":[{"index":3,"kind":"observe"},{"index":1,"kind":"sent"},{"index":0}]}', sentences),
    ).toEqual([]);
  });

  it("cannot read prose or a JSON without a claims list", () => {
    expect(parseJudgement("Yes, the first one.", sentences)).toBeUndefined();
    expect(parseJudgement('{"answer":"yes"}', sentences)).toBeUndefined();
  });
});

describe("AgentRuntime with claimJudge", () => {
  it("turns a claim the rules missed into a correction, then unverified, with the sentence on record", async () => {
    const { result, ledger, calls } = await run(
      [textStep(MISSED), textStep(JUDGED), textStep(MISSED), textStep(JUDGED)],
      true,
    );
    expect([result.terminalState, result.terminalReason, result.correctionTurns]).toEqual([
      "unverified",
      "claim_without_receipt",
      1,
    ]);
    expect(calls).toBe(4);
    const terminal = ledger.events.at(-1)!.payload as TerminalPayload;
    expect(terminal.verification?.claims).toEqual([
      { sentence: MISSED, kind: "observe" },
      { sentence: MISSED, kind: "observe" },
    ]);
  });

  it("leaves the run completed when the judge finds no claim", async () => {
    const { result, calls } = await run([textStep(MISSED), textStep('{"claims":[]}')], true);
    expect([result.terminalState, result.terminalReason, calls]).toEqual(["completed", "answered", 2]);
  });

  it("leaves the run completed when the judge's answer cannot be read", async () => {
    const { result } = await run([textStep(MISSED), textStep("I think the first sentence is a claim.")], true);
    expect([result.terminalState, result.terminalReason]).toEqual(["completed", "answered"]);
  });

  it("leaves the run completed when the judge's call fails", async () => {
    const { result } = await run([textStep(MISSED), { error: { status: 400, message: "bad request" } }], true);
    expect([result.terminalState, result.terminalReason]).toEqual(["completed", "answered"]);
  });

  it("is not asked when it is off (the default)", async () => {
    const { result, calls } = await run([textStep(MISSED)], false);
    expect([result.terminalState, calls]).toEqual(["completed", 1]);
  });

  it("is not asked about an answer the rules already judged: it can only take a completed away", async () => {
    const { result, calls } = await run(
      [textStep("I've pushed the fix to main."), textStep("I've pushed the fix to main.")],
      true,
    );
    expect([result.terminalState, result.terminalReason, calls]).toEqual(["unverified", "claim_without_receipt", 2]);
  });
});
