import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type {
  CanonicalEventType,
  CassetteModelStep,
  CompletionContractInput,
  LoopEvent,
  ReasonCode,
  ReceiptReason,
  ReceiptStatus,
  TerminalState,
} from "../../src/domain/index.js";
import type { AgentRuntimeConfig, StartRunOptions } from "../../src/runtime/AgentRuntime.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { type AnyToolDefinition, defineTool } from "../../src/services/tools/Tool.js";
import {
  callStep,
  countingProvider,
  eventTypes,
  fixture,
  ledgerViolations,
  lookupTool,
  readLedger,
  receiptSummary,
  textStep,
  useRuntimeHarness,
} from "../support/runtimeHarness.js";

const harness = useRuntimeHarness();

interface RunSpec {
  readonly steps?: ReadonlyArray<CassetteModelStep>;
  readonly provider?: Provider;
  readonly tools?: ReadonlyArray<AnyToolDefinition>;
  readonly contract?: CompletionContractInput;
  readonly options?: Partial<StartRunOptions>;
  readonly config?: Partial<AgentRuntimeConfig>;
}

/** Starts one run on a fresh runtime, drains its events and returns result, events and ledger. */
async function runToEnd(spec: RunSpec) {
  const runtime = await harness.makeRuntime(spec.config);
  const handle = runtime.startRun({
    sessionId: "exit-paths",
    input: "Do the task.",
    provider: spec.provider ?? scriptedProvider(spec.steps ?? []),
    tools: spec.tools ?? [],
    ...(spec.contract ? { contract: spec.contract } : {}),
    ...spec.options,
  });
  const loopEvents: LoopEvent[] = [];
  for await (const event of handle.events) loopEvents.push(event);
  const result = await handle.result;
  const ledger = await readLedger(runtime, result.runId);
  return { runtime, handle, result, loopEvents, ledger };
}

type Rows = ReadonlyArray<CanonicalEventType>;
type ReceiptRow = { toolName: string; status: ReceiptStatus; reason?: ReceiptReason };

const pair = (times: number): Rows => Array.from({ length: times }, () => ["tool_call", "tool_result"] as const).flat();
const ok = (toolName: string, times = 1): ReceiptRow[] =>
  Array.from({ length: times }, () => ({ toolName, status: "ok" }));

/** The outcome every exit-path test checks: terminal state, reason, ledger rows, receipts, invariants. */
function expectOutcome(
  outcome: Awaited<ReturnType<typeof runToEnd>>,
  expected: { state: TerminalState; reason: ReasonCode; rows: Rows; receipts: ReadonlyArray<ReceiptRow> },
) {
  const { result, ledger } = outcome;
  expect({ state: result.terminalState, reason: result.terminalReason }).toEqual({
    state: expected.state,
    reason: expected.reason,
  });
  expect(eventTypes(ledger)).toEqual(expected.rows);
  expect(receiptSummary(ledger)).toEqual(expected.receipts);
  expect(ledger.run).toMatchObject({ terminalState: expected.state, failureCode: expected.reason });
  expect(ledger.events.at(-1)!.payload).toMatchObject({ terminalState: expected.state, reason: expected.reason });
  expect(ledgerViolations(ledger)).toEqual([]);
}

/** A tool with a zod schema whose executor counts how often it ran. */
function countingTool(name = "strict_lookup") {
  let runs = 0;
  const tool = defineTool({
    name,
    description: "looks up item i",
    kind: "observe",
    input: z.object({ i: z.number() }),
    execute: () =>
      Effect.sync(() => {
        runs += 1;
        return { status: "ok" as const, output: "item" };
      }),
  });
  return { tool, runs: () => runs };
}

describe("step budget", () => {
  const fiveCommentedLookups = () =>
    Array.from({ length: 5 }, (_, index) =>
      callStep(`c${index + 1}`, "lookup", { i: index + 1 }, `Looking up item ${index + 1}.`),
    );

  it("ends incomplete/max_steps_reached after maxSteps tool steps", async () => {
    const outcome = await runToEnd({
      steps: fiveCommentedLookups(),
      tools: [lookupTool()],
      options: { maxSteps: 3 },
    });
    expectOutcome(outcome, {
      state: "incomplete",
      reason: "max_steps_reached",
      rows: [
        "user_input",
        ...Array.from({ length: 3 }, () => ["assistant_output", "tool_call", "tool_result"] as const).flat(),
        "terminal",
      ],
      receipts: ok("lookup", 3),
    });
    expect(outcome.result.steps).toBe(3);
  });

  it("gives the runtime's honest statement as final text, never the pre-tool commentary as an answer", async () => {
    const { result, loopEvents, ledger } = await runToEnd({
      steps: fiveCommentedLookups(),
      tools: [lookupTool()],
      options: { maxSteps: 3 },
    });
    expect(result.finalText).toMatch(/^This is not finished: .*\(max_steps_reached\)/);
    expect(result.finalText).not.toContain("Looking up item");
    expect(result.finalText).toContain(`ref: ${result.traceId}`);
    expect(loopEvents.find((event) => event.type === "final")).toMatchObject({ text: result.finalText });
    expect(ledger.events.at(-1)!.payload).toMatchObject({ finalText: result.finalText });
    const commentary = ledger.events.filter((event) => event.type === "assistant_output").map((event) => event.payload);
    expect(commentary.every((payload) => (payload as { role: string }).role === "commentary")).toBe(true);
  });
});

describe("provider tool protocol", () => {
  it("repairs a tool finish without a parseable call once, then fails with provider_tool_protocol_invalid", async () => {
    const outcome = await runToEnd({
      steps: [{ finishReason: "tool_calls" }, { finishReason: "tool_calls" }],
      tools: [lookupTool()],
    });
    expectOutcome(outcome, {
      state: "failed",
      reason: "provider_tool_protocol_invalid",
      rows: ["user_input", "provider_anomaly", "provider_anomaly", "terminal"],
      receipts: [],
    });
    expect(outcome.ledger.events[1]!.payload).toMatchObject({ step: 1, code: "tool_finish_without_parsed_calls" });
  });

  it("continues after one repaired tool finish and completes with the receipts", async () => {
    const outcome = await runToEnd({
      steps: [{ finishReason: "tool_calls" }, callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")],
      tools: [lookupTool()],
      contract: { evidenceMode: "observe" },
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "receipts_satisfied",
      rows: ["user_input", "provider_anomaly", ...pair(1), "assistant_output", "terminal"],
      receipts: ok("lookup"),
    });
  });

  it("shows the model the repair message after a tool finish without calls", async () => {
    const { handle } = await runToEnd({
      steps: [{ finishReason: "tool_calls" }, textStep("Answer.")],
      tools: [lookupTool()],
    });
    const messages = handle.transcript.getSnapshot().context.messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(messages[3]).toMatchObject({ role: "tool", toolName: "invalid", isError: true });
  });
});

describe("refused calls", () => {
  it.each([
    {
      name: "unparseable JSON arguments",
      call: () => callStep("c1", "strict_lookup", '{"i": 1'),
      allowed: undefined,
      reason: "invalid_arguments",
    },
    {
      name: "arguments that fail the zod schema",
      call: () => callStep("c1", "strict_lookup", { i: "x" }),
      allowed: undefined,
      reason: "invalid_arguments",
    },
    {
      name: "a tool the run may not call",
      call: () => callStep("c1", "strict_lookup", { i: 1 }),
      allowed: ["other_tool"],
      reason: "tool_not_allowed",
    },
  ] as const)(
    "gives $name an error receipt ($reason) without running the tool, and the loop continues",
    async ({ call, allowed, reason }) => {
      const counting = countingTool();
      const outcome = await runToEnd({
        steps: [call(), textStep("I could not look it up.")],
        tools: [counting.tool],
        ...(allowed ? { options: { allowedTools: allowed } } : {}),
      });
      expectOutcome(outcome, {
        state: "completed",
        reason: "answered",
        rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
        receipts: [{ toolName: "strict_lookup", status: "error", reason }],
      });
      expect(counting.runs()).toBe(0);
      expect(outcome.loopEvents.some((event) => event.type === "tool_started")).toBe(false);
    },
  );

  it("keeps raw unparseable arguments in the tool_call row", async () => {
    const { ledger } = await runToEnd({
      steps: [callStep("c1", "strict_lookup", '{"i": 1'), textStep("Sorry.")],
      tools: [countingTool().tool],
    });
    expect(ledger.events[1]!.payload).toMatchObject({ callId: "c1", arguments: '{"i": 1' });
  });

  it("gives a call to an undeclared tool an unknown_tool receipt", async () => {
    const outcome = await runToEnd({
      steps: [callStep("c1", "lookup_v2", { i: 1 }), textStep("That tool does not exist.")],
      tools: [lookupTool()],
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
      receipts: [{ toolName: "lookup_v2", status: "error", reason: "unknown_tool" }],
    });
  });

  it("gives a call to a tool without an executor a tool_executor_missing receipt and starts nothing", async () => {
    const outcome = await runToEnd({
      steps: [callStep("c1", "ghost_tool", {}), textStep("Could not run it.")],
      tools: [fixture({ name: "ghost_tool", kind: "mutate", executor: false })],
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
      receipts: [{ toolName: "ghost_tool", status: "error", reason: "tool_executor_missing" }],
    });
    expect(outcome.loopEvents.map((event) => event.type)).toEqual(["tool_call", "tool_result", "final", "done"]);
  });
});

describe("tool failures", () => {
  it.each([
    { name: "fails its effect", execute: () => Effect.fail(new Error("disk on fire")) },
    {
      name: "throws synchronously",
      execute: () => {
        throw new Error("disk on fire");
      },
    },
    { name: "dies", execute: () => Effect.die(new Error("disk on fire")) },
  ])("records error/tool_threw when the executor $name, and the loop continues", async ({ execute }) => {
    const outcome = await runToEnd({
      steps: [callStep("c1", "writer", {}), textStep("The write failed.")],
      tools: [defineTool({ name: "writer", description: "w", kind: "mutate", input: z.object({}), execute })],
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
      receipts: [{ toolName: "writer", status: "error", reason: "tool_threw" }],
    });
    expect(outcome.ledger.events[2]!.payload).toMatchObject({ status: "error", output: { error: "disk on fire" } });
  });

  it("records error/tool_error for an executor that reports an error result", async () => {
    const outcome = await runToEnd({
      steps: [callStep("c1", "read_file", { path: "a" }), textStep("The file is missing.")],
      tools: [fixture({ name: "read_file", kind: "observe", outcomes: [{ status: "error", output: "ENOENT" }] })],
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
      receipts: [{ toolName: "read_file", status: "error", reason: "tool_error" }],
    });
  });

  it("records timed_out for a call that outlives its timeout, interrupting the executor", async () => {
    let interrupted = false;
    const slow = defineTool({
      name: "slow_probe",
      description: "slow",
      kind: "observe",
      input: z.object({}),
      timeoutMs: 20,
      execute: () =>
        Effect.sleep("5 seconds").pipe(
          Effect.as({ status: "ok" as const, output: "late" }),
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              interrupted = true;
            }),
          ),
        ),
    });
    const outcome = await runToEnd({
      steps: [callStep("c1", "slow_probe", {}), textStep("The probe did not answer in time.")],
      tools: [slow],
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
      receipts: [{ toolName: "slow_probe", status: "timed_out", reason: "timed_out" }],
    });
    expect(outcome.ledger.receipts[0]!.evidence.timeout_ms).toBe(20);
    expect(interrupted).toBe(true);
  });
});

describe("incomplete-turn guard", () => {
  it.each([
    { finishReason: "stop", state: "incomplete" },
    { finishReason: "length", state: "incomplete" },
    { finishReason: "content_filter", state: "incomplete" },
    { finishReason: "error", state: "failed" },
  ] as const)(
    "ends an empty turn with finish $finishReason as $state/incomplete_turn",
    async ({ finishReason, state }) => {
      const outcome = await runToEnd({ steps: [{ finishReason }] });
      expectOutcome(outcome, {
        state,
        reason: "incomplete_turn",
        rows: ["user_input", "provider_anomaly", "terminal"],
        receipts: [],
      });
      expect(outcome.ledger.events[1]!.payload).toMatchObject({ code: "empty_turn" });
    },
  );

  it.each([
    { finishReason: "length", state: "incomplete" },
    { finishReason: "content_filter", state: "incomplete" },
    { finishReason: "error", state: "failed" },
  ] as const)(
    "never completes an answer cut by finish $finishReason: $state/incomplete_turn",
    async ({ finishReason, state }) => {
      const outcome = await runToEnd({ steps: [{ text: "The log shows three phases: first", finishReason }] });
      expectOutcome(outcome, {
        state,
        reason: "incomplete_turn",
        rows: ["user_input", "assistant_output", "terminal"],
        receipts: [],
      });
      expect(outcome.result.finalText).not.toBe("The log shows three phases: first");
      expect(outcome.result.finalText).toContain("(unverified context)");
    },
  );
});

describe("doom loops", () => {
  const sameCall = (times: number, name: string, args: Record<string, string | number>) =>
    Array.from({ length: times }, (_, index) => callStep(`c${index + 1}`, name, args));

  it("ends incomplete/doom_loop after the same succeeding call three times in a row", async () => {
    const outcome = await runToEnd({ steps: sameCall(5, "lookup", { i: 1 }), tools: [lookupTool()] });
    expectOutcome(outcome, {
      state: "incomplete",
      reason: "doom_loop",
      rows: ["user_input", ...pair(3), "terminal"],
      receipts: ok("lookup", 3),
    });
  });

  it("ends incomplete/doom_loop after the same failing call three times in a row", async () => {
    const outcome = await runToEnd({
      steps: sameCall(5, "read_file", { path: "a.txt" }),
      tools: [fixture({ name: "read_file", kind: "observe", outcomes: [{ status: "error", output: "ENOENT" }] })],
    });
    expectOutcome(outcome, {
      state: "incomplete",
      reason: "doom_loop",
      rows: ["user_input", ...pair(3), "terminal"],
      receipts: Array.from({ length: 3 }, () => ({ toolName: "read_file", status: "error", reason: "tool_error" })),
    });
  });

  const cycle = (rounds: number) =>
    Array.from({ length: rounds }, (_, round) => [
      callStep(`a${round + 1}`, "read_a", {}),
      callStep(`b${round + 1}`, "read_b", {}),
    ]).flat();

  it("ends incomplete/doom_loop on an A,B,A,B,A,B cycle whose results never change", async () => {
    const outcome = await runToEnd({
      steps: cycle(4),
      tools: [
        fixture({ name: "read_a", kind: "observe", outcomes: [{ status: "ok", output: "a" }] }),
        fixture({ name: "read_b", kind: "observe", outcomes: [{ status: "ok", output: "b" }] }),
      ],
    });
    expectOutcome(outcome, {
      state: "incomplete",
      reason: "doom_loop",
      rows: ["user_input", ...pair(6), "terminal"],
      receipts: [1, 2, 3].flatMap(() => [...ok("read_a"), ...ok("read_b")]),
    });
  });

  it("does not treat an A,B,A,B,A,B cycle with different results each time as a doom loop", async () => {
    const changing = (name: string) =>
      fixture({
        name,
        kind: "observe",
        outcomes: [1, 2, 3].map((version) => ({ status: "ok" as const, output: `${name} v${version}` })),
      });
    const outcome = await runToEnd({
      steps: [...cycle(3), textStep("A and B are reconciled.")],
      tools: [changing("read_a"), changing("read_b")],
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", ...pair(6), "assistant_output", "terminal"],
      receipts: [1, 2, 3].flatMap(() => [...ok("read_a"), ...ok("read_b")]),
    });
  });
});

describe("provider failures", () => {
  it("fails with provider_error when a 500 persists past the retries", async () => {
    const provider = countingProvider([500, 500, 500, 500].map((status) => ({ error: { status } })));
    const outcome = await runToEnd({ provider });
    expectOutcome(outcome, {
      state: "failed",
      reason: "provider_error",
      rows: ["user_input", "terminal"],
      receipts: [],
    });
    expect(provider.calls()).toBe(3);
  });

  it("completes after a 429 when the retry succeeds", async () => {
    const provider = countingProvider([{ error: { status: 429, message: "slow down" } }, textStep("Hello!")]);
    const outcome = await runToEnd({ provider });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", "assistant_output", "terminal"],
      receipts: [],
    });
    expect(provider.calls()).toBe(2);
  });

  it("fails with provider_error at once on a 400, without retrying", async () => {
    const provider = countingProvider([{ error: { status: 400 } }, textStep("never reached")]);
    const outcome = await runToEnd({ provider });
    expectOutcome(outcome, {
      state: "failed",
      reason: "provider_error",
      rows: ["user_input", "terminal"],
      receipts: [],
    });
    expect(provider.calls()).toBe(1);
  });

  it("fails with script_exhausted when the model script runs out", async () => {
    const outcome = await runToEnd({ steps: [callStep("c1", "lookup", { i: 1 })], tools: [lookupTool()] });
    expectOutcome(outcome, {
      state: "failed",
      reason: "script_exhausted",
      rows: ["user_input", ...pair(1), "terminal"],
      receipts: ok("lookup"),
    });
  });
});

describe("cancellation", () => {
  it("ends cancelled with no receipts when the host cancels while the model is sampling", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Think slowly.",
      provider: scriptedProvider([{ text: "Done thinking.", delayMs: 5_000 }]),
    });
    await new Promise<void>((resolve) => {
      const subscription = handle.actor.subscribe((snapshot) => {
        if (snapshot.matches({ active: { work: "sampling" } })) {
          subscription.unsubscribe();
          resolve();
        }
      });
    });
    handle.cancel();
    const result = await handle.result;
    const ledger = await readLedger(runtime, result.runId);
    expect([result.terminalState, result.terminalReason]).toEqual(["cancelled", "cancelled_by_user"]);
    expect(eventTypes(ledger)).toEqual(["user_input", "terminal"]);
    expect(ledger.receipts).toEqual([]);
    expect(ledgerViolations(ledger)).toEqual([]);
  });
});

describe("cancellation before the run opened", () => {
  it("ends cancelled with only user_input and terminal when the host cancels right after startRun", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({ sessionId: "s", input: "Hi", provider: scriptedProvider([textStep("Hello.")]) });
    handle.cancel();
    const result = await handle.result;
    const ledger = await readLedger(runtime, result.runId);
    expect([result.terminalState, result.terminalReason]).toEqual(["cancelled", "cancelled_by_user"]);
    expect(eventTypes(ledger)).toEqual(["user_input", "terminal"]);
    expect(result.steps).toBe(0);
    expect(ledgerViolations(ledger)).toEqual([]);
  });
});

describe("ledger write failure", () => {
  /** Migrates the test's file, then adds a trigger that makes SQLite refuse `eventType` rows. */
  async function failingLedger(eventType: CanonicalEventType) {
    const migrate = await harness.makeRuntime();
    await migrate.dispose();
    const db = new Sqlite(harness.dbFile());
    try {
      db.exec(`CREATE TRIGGER fail_${eventType} BEFORE INSERT ON agent_run_events
        WHEN NEW.event_type = '${eventType}' BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END`);
    } finally {
      db.close();
    }
  }

  it("ends failed/ledger_write_failed and still writes the terminal row when a tool_result cannot be written", async () => {
    await failingLedger("tool_result");
    const outcome = await runToEnd({
      steps: [callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")],
      tools: [lookupTool()],
      contract: { evidenceMode: "observe" },
    });
    expectOutcome(outcome, {
      state: "failed",
      reason: "ledger_write_failed",
      rows: ["user_input", "tool_call", "terminal"],
      // The call ran but its result never became durable: its side effects are unknown.
      receipts: [{ toolName: "lookup", status: "cancelled", reason: "interrupted" }],
    });
    expect(outcome.loopEvents.at(-1)).toMatchObject({ type: "done", terminalState: "failed" });
  });

  it("ends failed/ledger_write_failed and still writes the terminal row when the answer row cannot be written", async () => {
    await failingLedger("assistant_output");
    const outcome = await runToEnd({
      steps: [callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")],
      tools: [lookupTool()],
      contract: { evidenceMode: "observe" },
    });
    expectOutcome(outcome, {
      state: "failed",
      reason: "ledger_write_failed",
      rows: ["user_input", ...pair(1), "terminal"],
      receipts: ok("lookup"),
    });
    expect(outcome.result.finalText).toMatch(/^This did not complete/);
    expect(outcome.ledger.events.at(-1)!.payload).toMatchObject({ finalText: outcome.result.finalText });
  });
});

describe("verification", () => {
  it("completes a text answer under evidence mode none as answered", async () => {
    const outcome = await runToEnd({ steps: [textStep("A WAL logs changes first.")] });
    expectOutcome(outcome, {
      state: "completed",
      reason: "answered",
      rows: ["user_input", "assistant_output", "terminal"],
      receipts: [],
    });
    expect(outcome.result.finalText).toBe("A WAL logs changes first.");
  });

  it("completes an observe run with an ok receipt as receipts_satisfied", async () => {
    const outcome = await runToEnd({
      steps: [callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")],
      tools: [lookupTool()],
      contract: { evidenceMode: "observe", requiredToolNames: ["lookup"] },
    });
    expectOutcome(outcome, {
      state: "completed",
      reason: "receipts_satisfied",
      rows: ["user_input", ...pair(1), "assistant_output", "terminal"],
      receipts: ok("lookup"),
    });
  });

  it("ends an observe run without receipts unverified/receipt_missing after one correction turn", async () => {
    const outcome = await runToEnd({
      steps: [textStep("Item 1 is 'item'."), textStep("Item 1 is still 'item'.")],
      tools: [lookupTool()],
      contract: { evidenceMode: "observe", requiredToolNames: ["lookup"] },
    });
    expectOutcome(outcome, {
      state: "unverified",
      reason: "receipt_missing",
      rows: ["user_input", "assistant_output", "user_input", "assistant_output", "terminal"],
      receipts: [],
    });
    expect(outcome.result.correctionTurns).toBe(1);
    expect(outcome.result.finalText).toMatch(/^This was not verified/);
    expect(outcome.ledger.run?.failureDetail).toContain("a successful lookup result");
  });

  it("ends an observe run whose only receipt is an error unverified/receipt_missing", async () => {
    const outcome = await runToEnd({
      steps: [callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'."), textStep("The lookup failed.")],
      tools: [lookupTool({ outcomes: [{ status: "error", output: "down" }] })],
      contract: { evidenceMode: "observe" },
    });
    expectOutcome(outcome, {
      state: "unverified",
      reason: "receipt_missing",
      rows: ["user_input", ...pair(1), "assistant_output", "user_input", "assistant_output", "terminal"],
      receipts: [{ toolName: "lookup", status: "error", reason: "tool_error" }],
    });
  });
});
