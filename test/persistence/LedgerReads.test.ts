import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { LedgerReads } from "../../src/persistence/LedgerReads.js";
import { BACKENDS, ledgerOn, noticePostgresSkipped } from "../support/backends.js";
import { closure, newRun, receipt, toolCall, toolResult, userInput, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir();
noticePostgresSkipped();

const ENDED = "2024-05-05T12:00:00.000Z";

describe.each(BACKENDS)("LedgerReads on %s", (backend) => {
  const ledger = () => ledgerOn(backend, () => tmp.path("ledger.db"), { now: () => ENDED });

  it.effect("changes the signature when a run starts, a row is appended and a run closes — and only then", () =>
    Effect.gen(function* () {
      const reads = yield* LedgerReads;
      const store = yield* AgentRunStore;
      const empty = yield* reads.signature();
      expect(empty).toBe("0/0/0");
      yield* store.createRun(newRun("r1"));
      const started = yield* reads.signature();
      yield* store.appendEvents("r1", [userInput(1)]);
      const appended = yield* reads.signature();
      yield* store.finishRun("r1", closure(2));
      const closed = yield* reads.signature();
      expect(new Set([empty, started, appended, closed]).size).toBe(4);
      expect(yield* reads.signature()).toBe(closed);
    }).pipe(ledger()),
  );

  it.effect("gives closed runs with their tool calls and the anomalies of the code asked about", () =>
    Effect.gen(function* () {
      const reads = yield* LedgerReads;
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("open"), [userInput(1)]);
      yield* store.createRun(newRun("done"), [
        userInput(1),
        { sequence: 2, type: "provider_anomaly", payload: { step: 1, code: "odd" } },
        { sequence: 3, type: "provider_anomaly", payload: { step: 1, code: "other" } },
        toolCall(4, "c1"),
        toolResult(5, "c1"),
      ]);
      yield* store.recordReceipt(receipt("done", "c1"));
      yield* store.finishRun("done", closure(6));
      const [run, ...rest] = yield* reads.closedRuns({}, "odd");
      expect(rest).toEqual([]);
      expect(run).toMatchObject({
        runId: "done",
        terminalState: "completed",
        toolCalls: 1,
        anomalies: 1,
        endedAt: ENDED,
      });
      expect(JSON.parse(run!.terminalJson!)).toMatchObject({ terminalState: "completed", reason: "answered" });
      expect(yield* reads.closedRuns({ endedAfter: ENDED }, "odd")).toEqual([]);
      expect(yield* reads.closedRuns({ endedAtOrBefore: ENDED }, "odd")).toHaveLength(1);
      expect((yield* reads.okReceipts({})).map((row) => [row.runId, row.callId, row.toolName])).toEqual([
        ["done", "c1", "read_file"],
      ]);
    }).pipe(ledger()),
  );

  it.effect("finds the pairings a replay needs that a closed run lacks", () =>
    Effect.gen(function* () {
      const reads = yield* LedgerReads;
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1")]);
      yield* store.finishRun("r1", closure(3, "failed", "interrupted"));
      const orphans = yield* reads.replayOrphans({});
      expect(orphans.map((row) => `${row.runId}/${row.callId}: ${row.kind}`).sort()).toEqual([
        "r1/c1: tool_call without receipt",
        "r1/c1: tool_call without tool_result",
      ]);
    }).pipe(ledger()),
  );

  it.effect("reads the tables a newer schema added, empty on a fresh ledger", () =>
    Effect.gen(function* () {
      const reads = yield* LedgerReads;
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const tables = yield* reads.tableNames();
      expect(
        ["agent_runs", "memory_items", "memory_turns", "agent_channel_deliveries"].filter((name) => tables.has(name)),
      ).toHaveLength(4);
      expect(yield* reads.memoryItemCounts()).toEqual({ candidates: [], rejectedOrPending: [], wouldBlock: 0 });
      expect(yield* reads.deliveryCounts()).toEqual({ attempts: [], undeliverableFinals: [] });
      expect(yield* reads.visibleTurns("r1")).toBe(0);
      expect(yield* reads.runDeliveries("r1")).toEqual([]);
    }).pipe(ledger()),
  );
});
