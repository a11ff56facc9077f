import { describe, expect, it } from "@effect/vitest";
import { Effect, FiberMap, Layer } from "effect";
import { afterEach } from "vitest";
import { z } from "zod";
import { NONE_CONTRACT, type PlannedCall, type ToolSettlement } from "../../src/domain/index.js";
import { AgentRuntime, defineTool } from "../../src/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { ApprovalDesk } from "../../src/runtime/approvalDesk.js";
import { type CommandHandlers, type CommandIO, commandHandlers } from "../../src/runtime/commandHandlers.js";
import { makeTranscriptStore } from "../../src/runtime/stores.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";
import { ledgerViolations, readLedger } from "../support/runtimeHarness.js";
import { useTempDir } from "../support/tempDir.js";

/**
 * A step whose one call runs alone does not commit its tool_call rows on their own: they wait
 * and land in the transaction of the call's start record (one commit fewer a step), or — when
 * the call never starts — with the step's results or the run's end. Nothing is durable until
 * then, so a process that dies in between leaves a ledger that resumes by sampling again.
 */

const tmp = useTempDir("agentloop-held-rows-");

function countingLookup() {
  const ran: string[] = [];
  const tool = defineTool({
    name: "lookup",
    description: "Looks an order up.",
    kind: "observe",
    input: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      ran.push(id);
      return { status: "ok", output: { id }, evidence: { order_id: id } };
    },
  });
  return { ran, tool };
}

const planned = (callId: string): PlannedCall => ({
  call: { id: callId, name: "lookup", arguments: { id: "7" } },
  disposition: "run",
  inputFingerprint: inputFingerprint("lookup", { id: "7" }),
  timeoutMs: 1_000,
});

const cancelled = (callId: string): ToolSettlement => ({
  callId,
  toolName: "lookup",
  inputFingerprint: inputFingerprint("lookup", { id: "7" }),
  status: "cancelled",
  reason: "cancelled_by_user",
  output: { error: "cancelled" },
  evidence: {},
  startedAt: null,
  finishedAt: null,
});

const callRow = (callId: string) => ({
  type: "tool_call" as const,
  payload: {
    step: 1,
    callId,
    toolName: "lookup",
    arguments: { id: "7" },
    inputFingerprint: inputFingerprint("lookup", { id: "7" }),
  },
});

function handlersOf(runId: string, tool = countingLookup().tool): CommandHandlers {
  const tools = new Map([[tool.name, tool]]);
  const now = () => new Date().toISOString();
  return commandHandlers({
    runId,
    provider: scriptedProvider([{ text: "hi" }]),
    tools,
    allowedTools: new Set([tool.name]),
    transcript: makeTranscriptStore([]),
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    defaultToolTimeoutMs: 1_000,
    now,
    receiptVerification: "enforce",
    approvals: new ApprovalDesk({ runId, now, tools }),
  });
}

const ioOf = Effect.map(
  FiberMap.make<string>(),
  (fibers): CommandIO => ({
    tellRun: () => undefined,
    tell: () => undefined,
    fork: (key, effect) => FiberMap.run(fibers, key, effect),
    interrupt: (key) => FiberMap.remove(fibers, key),
  }),
);

const open = (runId: string, ops: CommandHandlers, io: CommandIO) =>
  ops.OPEN({ type: "OPEN", runId, sessionId: "s", traceId: "t", contract: NONE_CONTRACT, input: "go", after: 0 }, io);

const recordCallsWithStart = (runId: string, ops: CommandHandlers, io: CommandIO, callId = "c1") =>
  ops.RECORD_CALLS(
    { type: "RECORD_CALLS", runId, after: 1, events: [callRow(callId)], transcript: [], withStart: true },
    io,
  );

const rowsOf = (runId: string) =>
  Effect.flatMap(AgentRunStore, (store) =>
    Effect.map(store.listRunEvents(runId), (events) => events.map((event) => [event.sequence, event.type])),
  );

const startsOf = (runId: string) =>
  Effect.flatMap(AgentRunStore, (store) =>
    Effect.map(store.listStarts(runId), (starts) => starts.map((start) => start.callId)),
  );

const ledger = Layer.fresh(Ledger.layer({ filename: ":memory:" }));

describe("a step's rows held for its one call's start", () => {
  it.scoped("are answered at once, written by nothing, and committed with the call's start record", () =>
    Effect.gen(function* () {
      const { ran, tool } = countingLookup();
      const ops = handlersOf("held-a", tool);
      const io = yield* ioOf;
      yield* open("held-a", ops, io);
      expect(yield* recordCallsWithStart("held-a", ops, io)).toEqual({ type: "CALLS_RECORDED", lastSequence: 2 });
      expect(yield* rowsOf("held-a")).toEqual([[1, "user_input"]]);
      const settled = yield* ops.EXECUTE(
        {
          type: "EXECUTE",
          runId: "held-a",
          step: 1,
          index: 0,
          planned: planned("c1"),
          replyTo: { send: () => undefined },
        },
        io,
      );
      expect(settled?.result.status).toBe("ok");
      expect(ran).toEqual(["7"]);
      expect(yield* rowsOf("held-a")).toEqual([
        [1, "user_input"],
        [2, "tool_call"],
      ]);
      expect(yield* startsOf("held-a")).toEqual(["c1"]);
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("land with the step's results when the call never starts (a cancel before it did)", () =>
    Effect.gen(function* () {
      const ops = handlersOf("held-b");
      const io = yield* ioOf;
      yield* open("held-b", ops, io);
      yield* recordCallsWithStart("held-b", ops, io);
      const recorded = yield* ops.RECORD_RESULTS(
        { type: "RECORD_RESULTS", runId: "held-b", after: 2, step: 1, settlements: [cancelled("c1")] },
        io,
      );
      expect(recorded).toMatchObject({ type: "RESULTS_RECORDED", lastSequence: 3 });
      expect(yield* rowsOf("held-b")).toEqual([
        [1, "user_input"],
        [2, "tool_call"],
        [3, "tool_result"],
      ]);
      expect(yield* startsOf("held-b")).toEqual([]);
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("land with the run's end, before the closing receipts' rows, when the run ends first", () =>
    Effect.gen(function* () {
      const ops = handlersOf("held-c");
      const io = yield* ioOf;
      yield* open("held-c", ops, io);
      yield* recordCallsWithStart("held-c", ops, io);
      const finished = yield* ops.FINISH(
        {
          type: "FINISH",
          runId: "held-c",
          after: 2,
          events: [],
          unsettled: [planned("c1")],
          terminal: {
            terminalState: "cancelled",
            reason: "cancelled_by_user",
            finalText: "stopped",
            steps: 1,
            correctionTurns: 0,
          },
          detail: null,
          transcript: [],
        },
        io,
      );
      expect(finished).toMatchObject({ type: "FINISHED", receipts: [{ callId: "c1", status: "cancelled" }] });
      expect(yield* rowsOf("held-c")).toEqual([
        [1, "user_input"],
        [2, "tool_call"],
        [3, "tool_result"],
        [4, "terminal"],
      ]);
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("stay held when the start's transaction is refused, and land with the results after it", () =>
    Effect.gen(function* () {
      const { ran, tool } = countingLookup();
      const ops = handlersOf("held-d", tool);
      const io = yield* ioOf;
      yield* open("held-d", ops, io);
      // The held row is c2's: c1's start has no tool_call row, so the whole transaction is refused.
      yield* recordCallsWithStart("held-d", ops, io, "c2");
      const settled = yield* ops.EXECUTE(
        {
          type: "EXECUTE",
          runId: "held-d",
          step: 1,
          index: 0,
          planned: planned("c1"),
          replyTo: { send: () => undefined },
        },
        io,
      );
      expect(settled?.result).toMatchObject({
        status: "cancelled",
        reason: "start_refused",
        evidence: { refusal: "start_without_call" },
      });
      expect(ran).toEqual([]);
      expect(yield* rowsOf("held-d")).toEqual([[1, "user_input"]]);
      yield* ops.RECORD_RESULTS(
        { type: "RECORD_RESULTS", runId: "held-d", after: 2, step: 1, settlements: [cancelled("c2")] },
        io,
      );
      expect(yield* rowsOf("held-d")).toEqual([
        [1, "user_input"],
        [2, "tool_call"],
        [3, "tool_result"],
      ]);
    }).pipe(Effect.provide(ledger)),
  );
});

/** The ledger, with each start record's transaction begun only after a pause (a slow engine). */
const slowStarts = Layer.effect(
  AgentRunStore,
  Effect.map(AgentRunStore, (store) => ({
    ...store,
    startCalls: (...args: Parameters<typeof store.startCalls>) =>
      Effect.zipRight(Effect.sleep("30 millis"), store.startCalls(...args)),
  })),
).pipe(Layer.provideMerge(Layer.fresh(Ledger.layer({ filename: ":memory:" }))));

describe("a step's held rows while the call's start is in flight", () => {
  it.live("are written once: the results wait for the start and then write only their own rows", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ops = handlersOf("held-e");
        const io = yield* ioOf;
        yield* open("held-e", ops, io);
        yield* recordCallsWithStart("held-e", ops, io);
        const execution = yield* Effect.fork(
          ops.EXECUTE(
            {
              type: "EXECUTE",
              runId: "held-e",
              step: 1,
              index: 0,
              planned: planned("c1"),
              replyTo: { send: () => undefined },
            },
            io,
          ),
        );
        yield* Effect.sleep("5 millis");
        const recorded = yield* ops.RECORD_RESULTS(
          { type: "RECORD_RESULTS", runId: "held-e", after: 2, step: 1, settlements: [cancelled("c1")] },
          io,
        );
        expect(recorded).toMatchObject({ type: "RESULTS_RECORDED", lastSequence: 3 });
        yield* execution.await;
        expect(yield* rowsOf("held-e")).toEqual([
          [1, "user_input"],
          [2, "tool_call"],
          [3, "tool_result"],
        ]);
        expect(yield* startsOf("held-e")).toEqual(["c1"]);
      }),
    ).pipe(Effect.provide(slowStarts)),
  );

  it.live("are written by the results when the start they waited for is refused", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const ops = handlersOf("held-f");
        const io = yield* ioOf;
        yield* open("held-f", ops, io);
        // c2's row is held; c1's start is refused for want of its tool_call row.
        yield* recordCallsWithStart("held-f", ops, io, "c2");
        const execution = yield* Effect.fork(
          ops.EXECUTE(
            {
              type: "EXECUTE",
              runId: "held-f",
              step: 1,
              index: 0,
              planned: planned("c1"),
              replyTo: { send: () => undefined },
            },
            io,
          ),
        );
        yield* Effect.sleep("5 millis");
        yield* ops.RECORD_RESULTS(
          { type: "RECORD_RESULTS", runId: "held-f", after: 2, step: 1, settlements: [cancelled("c2")] },
          io,
        );
        expect((yield* execution.await)._tag).toBe("Success");
        expect(yield* rowsOf("held-f")).toEqual([
          [1, "user_input"],
          [2, "tool_call"],
          [3, "tool_result"],
        ]);
        expect(yield* startsOf("held-f")).toEqual([]);
      }),
    ).pipe(Effect.provide(slowStarts)),
  );
});

describe("a process that dies while a step's rows are held", () => {
  const runtimes: AgentRuntime[] = [];
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.dispose();
  });

  it("leaves a ledger whose resumed run samples again and runs the call once", async () => {
    const database = tmp.path("ledger.db");
    // The first process opens the run, samples a call and holds its rows — then dies before the start.
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const ops = handlersOf("died");
          const io = yield* ioOf;
          yield* open("died", ops, io);
          expect(yield* recordCallsWithStart("died", ops, io)).toMatchObject({ type: "CALLS_RECORDED" });
          expect(yield* rowsOf("died")).toEqual([[1, "user_input"]]);
        }),
      ).pipe(Effect.provide(Ledger.layer({ filename: database, owner: false }))),
    );
    const { ran, tool } = countingLookup();
    const runtime = await AgentRuntime.make({
      database,
      recoverOnStart: false,
      tools: [tool],
      provider: scriptedProvider([
        { toolCalls: [{ id: "c1", name: "lookup", arguments: { id: "7" } }] },
        { text: "Order 7 was looked up.", expectContext: ["7"] },
      ]),
    });
    runtimes.push(runtime);
    const result = await (await runtime.resumeRun("died")).result;
    expect(result).toMatchObject({ terminalState: "completed", steps: 2 });
    expect(ran).toEqual(["7"]);
    const written = await readLedger(runtime, "died");
    expect(ledgerViolations(written)).toEqual([]);
    expect(written.events.map((event) => event.type)).toEqual([
      "user_input",
      "tool_call",
      "tool_result",
      "assistant_output",
      "terminal",
    ]);
    expect(written.receipts).toMatchObject([{ callId: "c1", status: "ok" }]);
  });
});
