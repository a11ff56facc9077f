import { describe, expect, it } from "@effect/vitest";
import { Effect, Layer } from "effect";
import { z } from "zod";
import { NONE_CONTRACT, type PlannedCall, type ToolSettlement } from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { runOperations } from "../../src/runtime/runOperations.js";
import { makeTranscriptStore } from "../../src/runtime/stores.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";
import { defineTool } from "../../src/services/tools/Tool.js";

/**
 * Issue M: a run's operations are Effects that never fail — an expected failure is the answer the
 * machine decides on — and the ledger's sequence numbers are assigned where the rows are written.
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

function operations(runId: string, provider = scriptedProvider([{ text: "hi" }])) {
  return runOperations({
    runId,
    provider,
    tools: new Map([[lookup.name, lookup]]),
    allowedTools: new Set([lookup.name]),
    transcript: makeTranscriptStore([]),
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    defaultToolTimeoutMs: 1_000,
    now: () => "2026-12-01T00:00:02.000Z",
    receiptVerification: "enforce",
  });
}

const open = (runId: string, ops: ReturnType<typeof operations>) =>
  ops.open({ runId, sessionId: "s", traceId: "t", contract: NONE_CONTRACT, input: "go" });

const ledger = Layer.fresh(Ledger.layer({ filename: ":memory:" }));

describe("run operations", () => {
  it.effect("numbers a run's rows 1..n across its writes and closes it", () =>
    Effect.gen(function* () {
      const ops = operations("run-a");
      expect(yield* open("run-a", ops)).toEqual({ type: "OPENED" });
      const callRow = { type: "tool_call" as const, payload: { step: 1, callId: "c1", toolName: "lookup" } };
      expect(yield* ops.recordCalls({ runId: "run-a", events: [callRow], transcript: [] })).toEqual({
        type: "CALLS_RECORDED",
      });
      const recorded = yield* ops.recordResults({ runId: "run-a", step: 1, settlements: [settled] });
      expect(recorded).toMatchObject({ type: "RESULTS_RECORDED", receipts: [{ callId: "c1", status: "ok" }] });
      const finished = yield* ops.finish({
        runId: "run-a",
        events: [],
        unsettled: [],
        terminal: { terminalState: "completed", reason: "answered", finalText: "done", steps: 1, correctionTurns: 0 },
        detail: null,
        transcript: [],
      });
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

  it.effect("answers a write the ledger refuses with LEDGER_FAILED, as a value", () =>
    Effect.gen(function* () {
      const ops = operations("run-never-opened");
      const reply = yield* ops.recordCalls({
        runId: "run-never-opened",
        events: [{ type: "assistant_output", payload: { step: 1 } }],
        transcript: [],
      });
      expect(reply.type).toBe("LEDGER_FAILED");
    }).pipe(Effect.provide(ledger)),
  );

  it.effect("gives a call the run ended before it reported a cancelled receipt when the run closes", () =>
    Effect.gen(function* () {
      const ops = operations("run-b");
      yield* open("run-b", ops);
      yield* ops.recordCalls({
        runId: "run-b",
        events: [{ type: "tool_call", payload: { step: 1, callId: "c1", toolName: "lookup" } }],
        transcript: [],
      });
      const finished = yield* ops.finish({
        runId: "run-b",
        events: [],
        unsettled: [planned],
        terminal: {
          terminalState: "cancelled",
          reason: "cancelled_by_user",
          finalText: "stopped",
          steps: 1,
          correctionTurns: 0,
        },
        detail: null,
        transcript: [],
      });
      expect(finished).toMatchObject({
        type: "FINISHED",
        receipts: [{ callId: "c1", status: "cancelled", reason: "cancelled_by_user" }],
      });
    }).pipe(Effect.provide(ledger)),
  );

  it.effect("answers a provider failure with a SAMPLED failure outcome, not a failed Effect", () =>
    Effect.gen(function* () {
      const ops = operations("run-c", scriptedProvider([{ error: { status: 400, message: "bad request" } }]));
      const reply = yield* ops.sample({ type: "SAMPLE", step: 1, toolChoice: { mode: "auto" } });
      expect(reply).toEqual({
        type: "SAMPLED",
        outcome: { type: "failure", reason: "provider_error", message: "bad request" },
      });
    }),
  );

  it.effect("plans the model's calls with the run's tools while sampling", () =>
    Effect.gen(function* () {
      const ops = operations(
        "run-d",
        scriptedProvider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { id: 7 } }] }]),
      );
      const reply = yield* ops.sample({ type: "SAMPLE", step: 1, toolChoice: { mode: "auto" } });
      expect(reply.outcome).toMatchObject({
        type: "response",
        calls: [{ disposition: "invalid_arguments", problem: "id: Invalid input: expected string, received number" }],
      });
    }),
  );

  it.effect("runs an async executor and reports its result with the times it ran", () =>
    Effect.gen(function* () {
      const ops = operations("run-e");
      const { effect } = ops.execute(
        { type: "EXECUTE", runId: "run-e", step: 1, index: 0, planned, replyTo: { send: () => undefined } },
        new AbortController().signal,
      );
      // The executor's effect reads the store: a tool that starts processes records them there.
      expect(yield* Effect.provide(effect, ledger)).toMatchObject({
        status: "ok",
        output: { id: "7" },
        evidence: { order_id: "7" },
      });
    }),
  );
});
