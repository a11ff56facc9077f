import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import {
  closure,
  dumpTable,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

/**
 * The writer compiles each statement shape once and writes later rows of that shape with the same
 * text and their own values: the rows written that way are the ones the insert helper writes.
 */

const tmp = useTempDir();
const file = () => tmp.path("ledger.db");
const pick = (rows: unknown[], columns: ReadonlyArray<string>) =>
  rows.map((row) => columns.map((column) => (row as Record<string, unknown>)[column]));

describe("statements written again with their compiled text", () => {
  it.effect("store every later row of a shape column for column, as the first", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      for (const runId of ["r1", "r2", "r3"]) {
        yield* store.createRun(newRun(runId), [userInput(1, `hello ${runId}`)]);
        // One row and two rows: two shapes of the events insert, each written three times.
        yield* store.appendEvents(runId, [toolCall(2, `${runId}-a`)]);
        yield* store.appendEvents(runId, [toolCall(3, `${runId}-b`), toolCall(4, `${runId}-c`)]);
        yield* store.startCalls(runId, [
          { callId: `${runId}-a`, toolName: "read_file", mayRepeat: false, startedAt: `start ${runId}` },
        ]);
        yield* store.appendEvents(
          runId,
          [toolResult(5, `${runId}-a`, `out ${runId}`)],
          [receipt(runId, `${runId}-a`, { evidence: { bytes: runId.length }, finishedAt: `end ${runId}` })],
        );
        yield* store.appendEvents(
          runId,
          [toolResult(6, `${runId}-b`), toolResult(7, `${runId}-c`)],
          [receipt(runId, `${runId}-b`, { status: "error", reason: "tool_error" }), receipt(runId, `${runId}-c`)],
        );
        yield* store.finishRun(runId, closure(8));
      }
      const events = dumpTable(file(), "agent_run_events", "event_id");
      expect(pick(events, ["run_id", "sequence", "event_type"])).toEqual(
        ["r1", "r2", "r3"].flatMap((runId) => [
          [runId, 1, "user_input"],
          [runId, 2, "tool_call"],
          [runId, 3, "tool_call"],
          [runId, 4, "tool_call"],
          [runId, 5, "tool_result"],
          [runId, 6, "tool_result"],
          [runId, 7, "tool_result"],
          [runId, 8, "terminal"],
        ]),
      );
      const payloads = events.map((row) => JSON.parse((row as { payload_json: string }).payload_json));
      expect(payloads.filter((payload) => payload.callId === "r3-c").map((payload) => payload.toolName)).toEqual([
        "read_file",
        "read_file",
      ]);
      expect(payloads.filter((payload) => payload.output === "out r2")).toHaveLength(1);
      const receipts = dumpTable(file(), "agent_execution_receipts", "receipt_id");
      expect(pick(receipts, ["receipt_id", "run_id", "call_id", "status", "finished_at", "evidence_json"])).toEqual(
        ["r1", "r2", "r3"].flatMap((runId) => [
          [`${runId}:${runId}-a`, runId, `${runId}-a`, "ok", `end ${runId}`, JSON.stringify({ bytes: runId.length })],
          [
            `${runId}:${runId}-b`,
            runId,
            `${runId}-b`,
            "error",
            "2024-01-01T00:00:01.000Z",
            JSON.stringify({ bytes: 42, reason: "tool_error" }),
          ],
          [`${runId}:${runId}-c`, runId, `${runId}-c`, "ok", "2024-01-01T00:00:01.000Z", JSON.stringify({ bytes: 42 })],
        ]),
      );
      const starts = dumpTable(file(), "agent_tool_starts", "rowid");
      expect(pick(starts, ["run_id", "call_id", "attempt", "tool_name", "may_repeat", "started_at"])).toEqual(
        ["r1", "r2", "r3"].map((runId) => [runId, `${runId}-a`, 1, "read_file", 0, `start ${runId}`]),
      );
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("are still refused by the database as the first of their shape is", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [userInput(1)]);
      yield* store.appendEvents("r1", [toolCall(2, "a")]);
      // The same shape again, now a duplicate call: the trigger's refusal comes back typed.
      const duplicate = yield* Effect.flip(store.appendEvents("r1", [toolCall(3, "a")]));
      expect(duplicate.reason).toBe("duplicate_tool_call");
      const orphan = yield* Effect.flip(store.appendEvents("r1", [toolResult(3, "nope")], [receipt("r1", "nope")]));
      expect(orphan.reason).toBe("orphan_tool_result");
      expect(dumpTable(file(), "agent_run_events", "event_id")).toHaveLength(2);
    }).pipe(withLedger({ filename: file() })),
  );
});
