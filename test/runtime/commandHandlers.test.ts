import { describe, expect, it } from "@effect/vitest";
import { Effect, FiberMap, Layer } from "effect";
import { z } from "zod";
import { NONE_CONTRACT, type PlannedCall, type ToolSettlement } from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { ApprovalDesk } from "../../src/runtime/approvalDesk.js";
import { type CommandHandlers, type CommandIO, commandHandlers } from "../../src/runtime/commandHandlers.js";
import { makeTranscriptStore } from "../../src/runtime/stores.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";
import { defineTool } from "../../src/services/tools/Tool.js";

/**
 * A run's command handlers are Effects that never fail — an expected failure is the answer the
 * machine decides on — and number their rows after the sequence the command carries.
 */

const lookup = defineTool({
  name: "lookup",
  description: "d",
  kind: "observe",
  input: z.object({ id: z.string() }),
  execute: async ({ id }) => ({ status: "ok", output: { id }, evidence: { order_id: id } }),
});

const planned: PlannedCall = {
  call: { id: "c1", name: "lookup", arguments: { id: "7" } },
  disposition: "run",
  inputFingerprint: inputFingerprint("lookup", { id: "7" }),
  timeoutMs: 1_000,
};

const settled: ToolSettlement = {
  callId: "c1",
  toolName: "lookup",
  inputFingerprint: planned.inputFingerprint,
  status: "ok",
  output: { id: "7" },
  evidence: { order_id: "7" },
  startedAt: "2026-12-01T00:00:00.000Z",
  finishedAt: "2026-12-01T00:00:01.000Z",
};

function handlersOf(runId: string, provider = scriptedProvider([{ text: "hi" }]), tool = lookup): CommandHandlers {
  const tools = new Map([[tool.name, tool]]);
  const now = () => "2026-12-01T00:00:02.000Z";
  return commandHandlers({
    runId,
    provider,
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

/** A run's share of a fiber map, as the bridge gives it to handlers. */
const fiberIO = Effect.map(FiberMap.make<string>(), (fibers) => ({
  fork: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => FiberMap.run(fibers, key, effect),
  interrupt: (key: string) => FiberMap.remove(fibers, key),
}));

/** What the handlers told besides their answers, and the run's fibers. */
const recordingIO = Effect.gen(function* () {
  const told: unknown[] = [];
  const io: CommandIO = {
    tellRun: (event) => told.push(event),
    tell: (_sink, event) => told.push(event),
    ...(yield* fiberIO),
  };
  return { io, told };
});

const open = (runId: string, ops: CommandHandlers, io: CommandIO) =>
  ops.OPEN({ type: "OPEN", runId, sessionId: "s", traceId: "t", contract: NONE_CONTRACT, input: "go", after: 0 }, io);

const finishInput = {
  events: [],
  detail: null,
  transcript: [],
} as const;

const ledger = Layer.fresh(Ledger.layer({ filename: ":memory:" }));

describe("command handlers", () => {
  it.scoped("numbers a run's rows after the sequence each command carries and answers the new last one", () =>
    Effect.gen(function* () {
      const ops = handlersOf("run-a");
      const { io } = yield* recordingIO;
      expect(yield* open("run-a", ops, io)).toEqual({ type: "OPENED", lastSequence: 1 });
      const callRow = { type: "tool_call" as const, payload: { step: 1, callId: "c1", toolName: "lookup" } };
      expect(
        yield* ops.RECORD_CALLS(
          { type: "RECORD_CALLS", runId: "run-a", after: 1, events: [callRow], transcript: [] },
          io,
        ),
      ).toEqual({ type: "CALLS_RECORDED", lastSequence: 2 });
      const recorded = yield* ops.RECORD_RESULTS(
        { type: "RECORD_RESULTS", runId: "run-a", after: 2, step: 1, settlements: [settled] },
        io,
      );
      expect(recorded).toMatchObject({
        type: "RESULTS_RECORDED",
        lastSequence: 3,
        receipts: [{ callId: "c1", status: "ok" }],
      });
      const finished = yield* ops.FINISH(
        {
          type: "FINISH",
          runId: "run-a",
          after: 3,
          unsettled: [],
          terminal: { terminalState: "completed", reason: "answered", finalText: "done", steps: 1, correctionTurns: 0 },
          ...finishInput,
        },
        io,
      );
      expect(finished).toEqual({ type: "FINISHED", receipts: [] });
      const events = yield* Effect.flatMap(AgentRunStore, (store) => store.listRunEvents("run-a"));
      expect(events.map((event) => [event.sequence, event.type])).toEqual([
        [1, "user_input"],
        [2, "tool_call"],
        [3, "tool_result"],
        [4, "terminal"],
      ]);
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("answers a write the ledger refuses with LEDGER_FAILED, as a value", () =>
    Effect.gen(function* () {
      const ops = handlersOf("run-never-opened");
      const { io } = yield* recordingIO;
      const reply = yield* ops.RECORD_CALLS(
        {
          type: "RECORD_CALLS",
          runId: "run-never-opened",
          after: 1,
          events: [{ type: "assistant_output", payload: { step: 1 } }],
          transcript: [],
        },
        io,
      );
      expect(reply.type).toBe("LEDGER_FAILED");
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("gives a call the run ended before it reported a cancelled receipt when the run closes", () =>
    Effect.gen(function* () {
      const ops = handlersOf("run-b");
      const { io } = yield* recordingIO;
      yield* open("run-b", ops, io);
      yield* ops.RECORD_CALLS(
        {
          type: "RECORD_CALLS",
          runId: "run-b",
          after: 1,
          events: [{ type: "tool_call", payload: { step: 1, callId: "c1", toolName: "lookup" } }],
          transcript: [],
        },
        io,
      );
      const finished = yield* ops.FINISH(
        {
          type: "FINISH",
          runId: "run-b",
          after: 2,
          unsettled: [planned],
          terminal: {
            terminalState: "cancelled",
            reason: "cancelled_by_user",
            finalText: "stopped",
            steps: 1,
            correctionTurns: 0,
          },
          ...finishInput,
        },
        io,
      );
      expect(finished).toMatchObject({
        type: "FINISHED",
        receipts: [{ callId: "c1", status: "cancelled", reason: "cancelled_by_user" }],
      });
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("answers a provider failure with a SAMPLED failure outcome, not a failed Effect", () =>
    Effect.gen(function* () {
      const ops = handlersOf("run-c", scriptedProvider([{ error: { status: 400, message: "bad request" } }]));
      const { io } = yield* recordingIO;
      const reply = yield* ops.SAMPLE({ type: "SAMPLE", step: 1, toolChoice: { mode: "auto" } }, io);
      expect(reply).toEqual({
        type: "SAMPLED",
        outcome: { type: "failure", reason: "provider_error", message: "bad request" },
      });
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("plans the model's calls with the run's tools while sampling", () =>
    Effect.gen(function* () {
      const ops = handlersOf(
        "run-d",
        scriptedProvider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { id: 7 } }] }]),
      );
      const { io } = yield* recordingIO;
      const reply = yield* ops.SAMPLE({ type: "SAMPLE", step: 1, toolChoice: { mode: "auto" } }, io);
      expect(reply.outcome).toMatchObject({
        type: "response",
        calls: [{ disposition: "invalid_arguments", problem: "id: Invalid input: expected string, received number" }],
      });
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("runs an async executor once its start is recorded and reports its start and result to whoever asked", () =>
    Effect.gen(function* () {
      const ops = handlersOf("run-e");
      const { io, told } = yield* recordingIO;
      yield* open("run-e", ops, io);
      const callRow = { type: "tool_call" as const, payload: { step: 1, callId: "c1", toolName: "lookup" } };
      yield* ops.RECORD_CALLS(
        { type: "RECORD_CALLS", runId: "run-e", after: 1, events: [callRow], transcript: [] },
        io,
      );
      const reply = yield* ops.EXECUTE(
        { type: "EXECUTE", runId: "run-e", step: 1, index: 0, planned, replyTo: { send: () => undefined } },
        io,
      );
      expect(reply).toMatchObject({
        type: "CALL_SETTLED",
        index: 0,
        result: { status: "ok", output: { id: "7" }, evidence: { order_id: "7" } },
      });
      // The start goes to the one that asked (a batch tells the run; a run that asked shows it): nothing else hears it.
      expect(told.map((event) => (event as { type: string }).type)).toEqual(["CALL_STARTED"]);
      const starts = yield* Effect.flatMap(AgentRunStore, (store) => store.listStarts("run-e"));
      expect(starts.map((start) => [start.callId, start.attempt])).toEqual([["c1", 1]]);
    }).pipe(Effect.provide(ledger)),
  );

  it.scoped("never invokes the executor when the ledger refuses the call's start", () =>
    Effect.gen(function* () {
      let invoked = 0;
      const counted = defineTool({
        name: "lookup",
        description: "d",
        kind: "observe",
        input: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          invoked += 1;
          return { status: "ok", output: { id }, evidence: {} };
        },
      });
      const ops = handlersOf("run-f", scriptedProvider([{ text: "hi" }]), counted);
      const { io, told } = yield* recordingIO;
      yield* open("run-f", ops, io);
      // No tool_call row: the database refuses the start (start_without_call).
      const reply = yield* ops.EXECUTE(
        { type: "EXECUTE", runId: "run-f", step: 1, index: 0, planned, replyTo: { send: () => undefined } },
        io,
      );
      expect(reply?.result).toMatchObject({
        status: "cancelled",
        reason: "start_refused",
        evidence: { started: false, refusal: "start_without_call" },
      });
      expect(invoked).toBe(0);
      expect(told).toEqual([]);
    }).pipe(Effect.provide(ledger)),
  );
});
