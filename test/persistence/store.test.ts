import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { AgentRunStore, type AgentRunStoreShape, LedgerError } from "../../src/persistence/AgentRunStore.js";
import { runMigrations } from "../../src/persistence/database.js";
import * as Sqlite from "../../src/persistence/engine/sqlite/client.js";
import { MEMORY_DB } from "../../src/persistence/engine/sqlite/file.js";
import * as SqlAgentRunStore from "../../src/persistence/SqlAgentRunStore.js";
import { BACKENDS, dumpLedger, ledgerOn, noticePostgresSkipped } from "../support/backends.js";
import {
  closure,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir();
const NOW = "2024-02-02T10:00:00.000Z";
noticePostgresSkipped();

/**
 * r1: user_input, tool_call c1, tool_result c1 (+ receipt c1) — next sequence 4
 * r2: tool_call c2
 * done: user_input, terminal completed — closed
 */
const seed = Effect.gen(function* () {
  const store = yield* AgentRunStore;
  yield* store.createRun(newRun("r1"));
  yield* store.appendEvents("r1", [userInput(1), toolCall(2, "c1"), toolResult(3, "c1")], [receipt("r1", "c1")]);
  yield* store.createRun(newRun("r2"));
  yield* store.appendEvents("r2", [toolCall(1, "c2")]);
  yield* store.createRun(newRun("done"));
  yield* store.appendEvents("done", [userInput(1)]);
  yield* store.finishRun("done", closure(2));
  return store;
});

const eventCount = (runId: string) =>
  Effect.map(
    dumpLedger,
    (dump) => dump.agent_run_events!.filter((row) => (row as { run_id: string }).run_id === runId).length,
  );

interface RefusalCase {
  readonly name: string;
  readonly reason: LedgerError["reason"];
  readonly attempt: (store: AgentRunStoreShape) => Effect.Effect<unknown, LedgerError>;
}

const REFUSALS: ReadonlyArray<RefusalCase> = [
  { name: "a duplicate sequence", reason: "duplicate_sequence", attempt: (s) => s.appendEvents("r1", [userInput(3)]) },
  { name: "a sequence gap", reason: "sequence_gap", attempt: (s) => s.appendEvents("r1", [userInput(5)]) },
  {
    name: "a tool_result with no tool_call",
    reason: "orphan_tool_result",
    attempt: (s) => s.appendEvents("r1", [toolResult(4, "c9")]),
  },
  {
    name: "a tool_result whose tool_call is in another run",
    reason: "orphan_tool_result",
    attempt: (s) => s.appendEvents("r1", [toolResult(4, "c2")]),
  },
  {
    name: "a terminal event outside finishRun (the run row would stay open)",
    reason: "invalid_payload",
    attempt: (s) =>
      s.appendEvents("r1", [{ sequence: 4, type: "terminal", payload: closure(4).terminal }, userInput(5)]),
  },
  {
    name: "an event for a finished run",
    reason: "run_not_running",
    attempt: (s) => s.appendEvents("done", [userInput(3)]),
  },
  {
    name: "an event for an unknown run",
    reason: "unknown_run",
    attempt: (s) => s.appendEvents("nope", [userInput(1)]),
  },
  {
    name: "a receipt for a call with no tool_call",
    reason: "receipt_without_call",
    attempt: (s) => s.recordReceipt(receipt("r1", "c9")),
  },
  {
    name: "a receipt for another run's call",
    reason: "receipt_without_call",
    attempt: (s) => s.recordReceipt(receipt("r1", "c2")),
  },
  {
    name: "a second receipt for a call",
    reason: "duplicate_receipt",
    attempt: (s) => s.recordReceipt(receipt("r1", "c1", { receiptId: "again" })),
  },
  {
    name: "the same receipt recorded twice",
    reason: "duplicate_receipt",
    attempt: (s) => s.recordReceipt(receipt("r1", "c1")),
  },
  {
    name: "a receipt of an unknown run",
    reason: "unknown_run",
    attempt: (s) => s.recordReceipt(receipt("nope", "c1")),
  },
  {
    name: "a receipt for a finished run",
    reason: "run_not_running",
    attempt: (s) => s.recordReceipt(receipt("done", "c1")),
  },
  { name: "a second run with the same id", reason: "duplicate_run", attempt: (s) => s.createRun(newRun("r1")) },
  {
    name: "finishing a finished run",
    reason: "run_not_running",
    attempt: (s) => s.finishRun("done", closure(3, "failed", "interrupted")),
  },
  { name: "finishing an unknown run", reason: "unknown_run", attempt: (s) => s.finishRun("nope", closure(1)) },
];

describe.each(BACKENDS)("AgentRunStore refusals on %s", (backend) => {
  const ledger = () => ledgerOn(backend, () => tmp.path("ledger.db"), { now: () => NOW });

  it.effect.each(REFUSALS)("refuses $name with LedgerError $reason and writes nothing", ({ reason, attempt }) =>
    Effect.gen(function* () {
      const store = yield* seed;
      const before = yield* dumpLedger;
      const error = yield* Effect.flip(attempt(store));
      expect(error).toBeInstanceOf(LedgerError);
      expect(error.reason).toBe(reason);
      expect(yield* dumpLedger).toEqual(before);
    }).pipe(ledger()),
  );

  it.effect("rolls back a whole batch whose last event is an orphan tool_result", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      const error = yield* Effect.flip(
        store.appendEvents("r1", [userInput(4), toolCall(5, "c4"), toolResult(6, "c9")]),
      );
      expect(error.reason).toBe("orphan_tool_result");
      expect(yield* eventCount("r1")).toBe(3);
      expect((yield* store.listRunEvents("r1")).map((event) => event.sequence)).toEqual([1, 2, 3]);
    }).pipe(ledger()),
  );

  it.effect("rolls back the events of a batch whose receipt is refused", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      const error = yield* Effect.flip(
        store.appendEvents("r1", [toolCall(4, "c4"), toolResult(5, "c4")], [receipt("r1", "c9")]),
      );
      expect(error.reason).toBe("receipt_without_call");
      expect(yield* eventCount("r1")).toBe(3);
      expect(yield* store.listReceipts("r1")).toHaveLength(1);
    }).pipe(ledger()),
  );

  it.effect("rolls back a batch's valid receipts when a later one is a duplicate", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      const error = yield* Effect.flip(
        store.appendEvents("r1", [toolCall(4, "c4")], [receipt("r1", "c4"), receipt("r1", "c1", { receiptId: "x" })]),
      );
      expect(error.reason).toBe("duplicate_receipt");
      expect(yield* eventCount("r1")).toBe(3);
      expect((yield* store.listReceipts("r1")).map((r) => r.callId)).toEqual(["c1"]);
    }).pipe(ledger()),
  );

  it.effect("rolls back the terminal event when a closing receipt is refused, leaving the run open", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      const error = yield* Effect.flip(store.finishRun("r1", { ...closure(4), receipts: [receipt("r1", "c9")] }));
      expect(error.reason).toBe("receipt_without_call");
      expect(yield* eventCount("r1")).toBe(3);
      expect((yield* store.getRun("r1"))?.terminalState).toBe("running");
    }).pipe(ledger()),
  );
});

/** createRun → user_input + tool_calls → results + receipts (c2 failed) → finishRun. */
const happyPath = Effect.gen(function* () {
  const store = yield* AgentRunStore;
  yield* store.createRun(newRun("run-1", { model: "m", providerId: "p", startedAt: "2024-01-01T00:00:00.000Z" }));
  yield* store.appendEvents("run-1", [userInput(1, "read two files"), toolCall(2, "c1"), toolCall(3, "c2")]);
  const failed = receipt("run-1", "c2", { status: "error", reason: "tool_error", verificationStatus: "unverified" });
  yield* store.appendEvents("run-1", [toolResult(4, "c2", "ENOENT")], [failed]);
  yield* store.appendEvents("run-1", [toolResult(5, "c1", "# README")]);
  yield* store.recordReceipt(receipt("run-1", "c1"));
  yield* store.finishRun("run-1", closure(6, "incomplete", "receipt_missing", "only one file"));
  return {
    run: yield* store.getRun("run-1"),
    events: yield* store.listRunEvents("run-1"),
    receipts: yield* store.listReceipts("run-1"),
  };
});

describe.each(BACKENDS)("AgentRunStore happy path on %s", (backend) => {
  const ledger = () => ledgerOn(backend, () => tmp.path("ledger.db"), { now: () => NOW });

  it.effect("closes the run row with the terminal state, ended_at and the reason as failureCode", () =>
    Effect.gen(function* () {
      const { run } = yield* happyPath;
      expect(run).toMatchObject({
        runId: "run-1",
        terminalState: "incomplete",
        endedAt: NOW,
        failureCode: "receipt_missing",
        model: "m",
        providerId: "p",
        traceId: "trace-run-1",
      });
    }).pipe(ledger()),
  );

  it.effect("lists events in sequence order with their payloads parsed", () =>
    Effect.gen(function* () {
      const { events } = yield* happyPath;
      expect(events.map((e) => [e.sequence, e.type])).toEqual([
        [1, "user_input"],
        [2, "tool_call"],
        [3, "tool_call"],
        [4, "tool_result"],
        [5, "tool_result"],
        [6, "terminal"],
      ]);
      expect(events[0]).toEqual({
        runId: "run-1",
        sequence: 1,
        type: "user_input",
        payload: userInput(1, "read two files").payload,
        createdAt: NOW,
      });
      expect(events[5]?.payload).toEqual(closure(6, "incomplete", "receipt_missing", "only one file").terminal);
    }).pipe(ledger()),
  );

  it.effect("lists receipts in call order and round-trips a non-ok receipt's reason", () =>
    Effect.gen(function* () {
      const { receipts } = yield* happyPath;
      expect(receipts).toEqual([
        receipt("run-1", "c1"),
        receipt("run-1", "c2", { status: "error", reason: "tool_error", verificationStatus: "unverified" }),
      ]);
    }).pipe(ledger()),
  );

  it.effect("lists a session's runs in start order and no other session's", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("b", { startedAt: "2024-01-02T00:00:00Z" }));
      yield* store.createRun(newRun("a", { startedAt: "2024-01-01T00:00:00Z" }));
      yield* store.createRun(newRun("x", { sessionId: "session-2" }));
      expect((yield* store.listSessionRuns("session-1")).map((r) => r.runId)).toEqual(["a", "b"]);
      expect((yield* store.listSessionRuns("session-3")).length).toBe(0);
    }).pipe(ledger()),
  );

  it.effect("filters listRuns by terminal state and limit", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      expect((yield* store.listRuns()).map((r) => r.runId)).toEqual(["r1", "r2", "done"]);
      expect((yield* store.listRuns({ terminalState: "completed" })).map((r) => r.runId)).toEqual(["done"]);
      expect((yield* store.listRuns({ terminalState: "running", limit: 1 })).map((r) => r.runId)).toEqual(["r1"]);
    }).pipe(ledger()),
  );

  it.effect("finds a run by its trace id and nothing for an unknown trace", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      expect((yield* store.findRunByTrace("trace-r2"))?.runId).toBe("r2");
      expect(yield* store.findRunByTrace("trace-nope")).toBeUndefined();
      expect(yield* store.getRun("nope")).toBeUndefined();
    }).pipe(ledger()),
  );

  it.effect("finds exactly the open runs", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      expect((yield* store.findOpenRuns()).map((r) => r.runId)).toEqual(["r1", "r2"]);
    }).pipe(ledger()),
  );
});

describe.each(BACKENDS)("the ledger on :memory: beside %s", (backend) => {
  const onFile = () => happyPath.pipe(ledgerOn(backend, () => tmp.path("ledger.db"), { now: () => NOW }));

  it.effect(`records the same run through the ledger layer on :memory: as on ${backend}`, () =>
    Effect.gen(function* () {
      const fromFile = yield* onFile();
      const inMemory = yield* happyPath.pipe(withLedger({ filename: MEMORY_DB, now: () => NOW }));
      expect(inMemory).toEqual(fromFile);
    }),
  );

  it.effect("records the same run through Sqlite.layer(:memory:) + runMigrations + SqlAgentRunStore.make", () =>
    Effect.gen(function* () {
      const fromFile = yield* onFile();
      const inMemory = yield* Effect.gen(function* () {
        yield* runMigrations();
        const store = yield* SqlAgentRunStore.make({ now: () => NOW });
        return yield* Effect.provideService(happyPath, AgentRunStore, store);
      }).pipe(Effect.provide(Sqlite.layer({ filename: MEMORY_DB })));
      expect(inMemory).toEqual(fromFile);
    }),
  );

  it.effect("refuses an orphan tool_result on :memory: too", () =>
    Effect.gen(function* () {
      const store = yield* seed;
      const error = yield* Effect.flip(store.appendEvents("r1", [toolResult(4, "c9")]));
      expect(error.reason).toBe("orphan_tool_result");
    }).pipe(withLedger({ filename: MEMORY_DB })),
  );
});
