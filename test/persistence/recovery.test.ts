import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { BACKENDS, dumpLedger, ledgerOn, noticePostgresSkipped } from "../support/backends.js";
import {
  closure,
  FINGERPRINT,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
} from "../support/tempDir.js";

const tmp = useTempDir();
noticePostgresSkipped();
const NOW = "2024-03-03T12:00:00.000Z";
const file = () => tmp.path("ledger.db");

/**
 * dangling: user_input, tool_call c1 + tool_result c1 + receipt, tool_call c2 (nothing after it)
 * idle:     user_input only
 * finished: user_input, tool_call c9 + result + receipt, terminal completed
 */
const seed = Effect.gen(function* () {
  const store = yield* AgentRunStore;
  yield* store.createRun(newRun("dangling", { startedAt: "2024-01-01T00:00:01Z" }));
  yield* store.appendEvents(
    "dangling",
    [userInput(1), toolCall(2, "c1"), toolResult(3, "c1")],
    [receipt("dangling", "c1")],
  );
  yield* store.appendEvents("dangling", [toolCall(4, "c2", "write_file")]);
  yield* store.createRun(newRun("idle", { sessionId: "session-2", startedAt: "2024-01-01T00:00:02Z" }));
  yield* store.appendEvents("idle", [userInput(1)]);
  yield* store.createRun(newRun("finished", { startedAt: "2024-01-01T00:00:00Z" }));
  yield* store.appendEvents(
    "finished",
    [userInput(1), toolCall(2, "c9"), toolResult(3, "c9")],
    [receipt("finished", "c9")],
  );
  yield* store.finishRun("finished", closure(4));
  return store;
});

const rowsOf = (dump: Record<string, unknown[]>, runId: string) =>
  Object.fromEntries(
    Object.entries(dump).map(([table, rows]) => [
      table,
      rows.filter((row) => (row as { run_id?: string }).run_id === runId),
    ]),
  );

describe.each(BACKENDS)("recoverInterrupted on %s", (backend) => {
  const ledger = () => ledgerOn(backend, file, { now: () => NOW });

  it.effect("reports exactly the two open runs, with the dangling call of the first", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      expect(yield* store.recoverInterrupted()).toEqual([
        { runId: "dangling", sessionId: "session-1", cancelledCallIds: ["c2"] },
        { runId: "idle", sessionId: "session-2", cancelledCallIds: [] },
      ]);
    }).pipe(ledger()),
  );

  it.effect("closes each open run as failed/interrupted with ended_at and a failure detail", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      yield* store.recoverInterrupted();
      for (const runId of ["dangling", "idle"]) {
        const run = yield* store.getRun(runId);
        expect(run).toMatchObject({ terminalState: "failed", failureCode: "interrupted", endedAt: NOW });
        expect(run?.failureDetail).toEqual(expect.any(String));
      }
      expect(yield* store.findOpenRuns()).toEqual([]);
    }).pipe(ledger()),
  );

  it.effect("appends the failed/interrupted terminal event as each run's last event", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      yield* store.recoverInterrupted();
      const dangling = yield* store.listRunEvents("dangling");
      const idle = yield* store.listRunEvents("idle");
      expect(dangling.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5]);
      expect(idle.map((event) => event.sequence)).toEqual([1, 2]);
      for (const last of [dangling.at(-1), idle.at(-1)]) {
        expect(last?.type).toBe("terminal");
        expect(last?.payload).toMatchObject({ terminalState: "failed", reason: "interrupted" });
      }
    }).pipe(ledger()),
  );

  it.effect("writes a cancelled receipt with reason interrupted only for the dangling call", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      yield* store.recoverInterrupted();
      const receipts = yield* store.listReceipts("dangling");
      expect(receipts.map((r) => [r.callId, r.status, r.reason])).toEqual([
        ["c1", "ok", undefined],
        ["c2", "cancelled", "interrupted"],
      ]);
      expect(receipts[1]).toMatchObject({
        runId: "dangling",
        toolName: "write_file",
        inputFingerprint: FINGERPRINT,
        verificationStatus: "unverified",
        finishedAt: NOW,
      });
      expect(yield* store.listReceipts("idle")).toEqual([]);
    }).pipe(ledger()),
  );

  it.effect("leaves the finished run's row, events and receipts untouched", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      const before = rowsOf(yield* dumpLedger, "finished");
      yield* store.recoverInterrupted();
      expect(rowsOf(yield* dumpLedger, "finished")).toEqual(before);
    }).pipe(ledger()),
  );

  it.effect("returns [] and changes nothing when run a second time", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      yield* store.recoverInterrupted();
      const before = yield* dumpLedger;
      expect(yield* store.recoverInterrupted()).toEqual([]);
      expect(yield* dumpLedger).toEqual(before);
    }).pipe(ledger()),
  );

  it.effect("returns [] and changes nothing on a ledger with no open run", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("only"));
      yield* store.finishRun("only", closure(1));
      const before = yield* dumpLedger;
      expect(yield* store.recoverInterrupted()).toEqual([]);
      expect(yield* dumpLedger).toEqual(before);
    }).pipe(ledger()),
  );

  it.effect("closes an open run that has no events with a terminal event at sequence 1", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("empty"));
      expect(yield* store.recoverInterrupted()).toEqual([
        { runId: "empty", sessionId: "session-1", cancelledCallIds: [] },
      ]);
      const events = yield* store.listRunEvents("empty");
      expect(events.map((event) => [event.sequence, event.type])).toEqual([[1, "terminal"]]);
    }).pipe(ledger()),
  );
});
