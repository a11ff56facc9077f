/**
 * The ledger invariants as SQLite itself enforces them: raw better-sqlite3 statements against a
 * migrated file, bypassing the store entirely.
 */
import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { migrateDatabase } from "../../src/persistence/database.js";
import { MIGRATIONS } from "../../src/persistence/migrations/index.js";
import { dumpAll, FINGERPRINT, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir();

type Db = Sqlite.Database;

const insertRun = (db: Db, runId: string, state = "running") =>
  db
    .prepare(
      `INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
       VALUES (?, 'session-1', ?, '{"evidenceMode":"none"}', ?, '2024-01-01T00:00:00Z')`,
    )
    .run(runId, state, `trace-${runId}`);

const insertEvent = (db: Db, runId: string, sequence: number, type: string, payload: object = {}) =>
  db
    .prepare(
      `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at)
       VALUES (?, ?, ?, ?, '2024-01-01T00:00:00Z')`,
    )
    .run(runId, sequence, type, JSON.stringify(payload));

const insertReceipt = (db: Db, runId: string, callId: string, receiptId = `${runId}:${callId}`) =>
  db
    .prepare(
      `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
         input_fingerprint, evidence_json, started_at, finished_at)
       VALUES (?, ?, ?, 'read_file', 'ok', 'verified', ?, '{}', '2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z')`,
    )
    .run(receiptId, runId, callId, FINGERPRINT);

const terminal = (terminalState: string) => ({ terminalState, reason: "answered", finalText: "", steps: 1 });

/**
 * Seeds five runs:
 * - open:    user_input, tool_call c1, tool_result c1 (+ receipt c1)
 * - other:   tool_call c2
 * - closed:  user_input, terminal completed; row closed as completed
 * - closing: user_input, terminal completed; row still `running` (as inside finishRun's transaction)
 * - empty:   no events
 */
function seed(db: Db) {
  insertRun(db, "open");
  insertEvent(db, "open", 1, "user_input", { text: "hi" });
  insertEvent(db, "open", 2, "tool_call", { callId: "c1", toolName: "read_file" });
  insertEvent(db, "open", 3, "tool_result", { callId: "c1", toolName: "read_file" });
  insertReceipt(db, "open", "c1");
  insertRun(db, "other");
  insertEvent(db, "other", 1, "tool_call", { callId: "c2", toolName: "read_file" });
  insertRun(db, "closed");
  insertEvent(db, "closed", 1, "user_input", { text: "hi" });
  insertEvent(db, "closed", 2, "terminal", terminal("completed"));
  db.prepare("UPDATE agent_runs SET terminal_state = 'completed', ended_at = 'now' WHERE run_id = 'closed'").run();
  insertRun(db, "closing");
  insertEvent(db, "closing", 1, "user_input", { text: "hi" });
  insertEvent(db, "closing", 2, "terminal", terminal("completed"));
  insertRun(db, "empty");
}

/** A migrated, seeded ledger file and a raw connection to it, closed when the test ends. */
const seededLedger = Effect.acquireRelease(
  Effect.gen(function* () {
    const file = tmp.path("ledger.db");
    yield* migrateDatabase(file);
    const db = new Sqlite(file);
    seed(db);
    return { file, db };
  }),
  ({ db }) => Effect.sync(() => db.close()),
);

interface RefusalCase {
  readonly name: string;
  readonly refused: string;
  readonly run: (db: Db) => unknown;
}

const CASES: ReadonlyArray<RefusalCase> = [
  // Events: order and pairing.
  // Since 0005 the schema's own constraints refuse these (the store maps them onto the same
  // LedgerError reasons: duplicate_sequence, unknown_run, duplicate_receipt).
  {
    name: "a duplicate (run_id, sequence)",
    refused: "UNIQUE constraint failed: agent_run_events.run_id, agent_run_events.sequence",
    run: (db) => insertEvent(db, "open", 3, "user_input"),
  },
  { name: "a sequence gap", refused: "ledger:sequence_gap", run: (db) => insertEvent(db, "open", 5, "user_input") },
  {
    name: "a first event with sequence 2",
    refused: "ledger:sequence_gap",
    run: (db) => insertEvent(db, "empty", 2, "user_input"),
  },
  {
    name: "an event of an unknown run",
    refused: "FOREIGN KEY constraint failed",
    run: (db) => insertEvent(db, "nope", 1, "user_input"),
  },
  {
    name: "a tool_result with no earlier tool_call",
    refused: "ledger:orphan_tool_result",
    run: (db) => insertEvent(db, "open", 4, "tool_result", { callId: "c9" }),
  },
  {
    name: "a tool_result whose tool_call is in another run",
    refused: "ledger:orphan_tool_result",
    run: (db) => insertEvent(db, "open", 4, "tool_result", { callId: "c2" }),
  },
  {
    name: "a second tool_result for a call",
    refused: "ledger:duplicate_tool_result",
    run: (db) => insertEvent(db, "open", 4, "tool_result", { callId: "c1" }),
  },
  {
    name: "a second tool_call with the same callId",
    refused: "ledger:duplicate_tool_call",
    run: (db) => insertEvent(db, "open", 4, "tool_call", { callId: "c1" }),
  },
  {
    name: "a tool_call without a callId",
    refused: "ledger:missing_call_id",
    run: (db) => insertEvent(db, "open", 4, "tool_call", { toolName: "x" }),
  },
  // Events: closure.
  {
    name: "an event after the terminal event of a closed run",
    refused: "ledger:run_not_running",
    run: (db) => insertEvent(db, "closed", 3, "user_input"),
  },
  {
    name: "an event after a terminal event (run row not yet closed)",
    refused: "ledger:event_after_terminal",
    run: (db) => insertEvent(db, "closing", 3, "user_input"),
  },
  {
    name: "a second terminal event",
    refused: "ledger:event_after_terminal",
    run: (db) => insertEvent(db, "closing", 3, "terminal", terminal("failed")),
  },
  // Events are append-only.
  {
    name: "an UPDATE of an event row",
    refused: "ledger:append_only",
    run: (db) => db.prepare("UPDATE agent_run_events SET payload_json = '{}' WHERE run_id = 'open'").run(),
  },
  {
    name: "a DELETE of an event row",
    refused: "ledger:append_only",
    run: (db) => db.prepare("DELETE FROM agent_run_events WHERE run_id = 'open' AND sequence = 3").run(),
  },
  // Receipts.
  {
    name: "an UPDATE of a receipt row",
    refused: "ledger:append_only",
    run: (db) => db.prepare("UPDATE agent_execution_receipts SET status = 'error'").run(),
  },
  {
    name: "a DELETE of a receipt row",
    refused: "ledger:append_only",
    run: (db) => db.prepare("DELETE FROM agent_execution_receipts").run(),
  },
  {
    name: "a receipt for a call with no tool_call",
    refused: "ledger:receipt_without_call",
    run: (db) => insertReceipt(db, "open", "c9"),
  },
  {
    name: "a receipt for a call recorded in another run",
    refused: "ledger:receipt_without_call",
    run: (db) => insertReceipt(db, "open", "c2"),
  },
  { name: "a receipt of an unknown run", refused: "ledger:unknown_run", run: (db) => insertReceipt(db, "nope", "c1") },
  {
    name: "a receipt of a closed run",
    refused: "ledger:run_not_running",
    run: (db) => insertReceipt(db, "closed", "c1"),
  },
  {
    name: "a second receipt for the same call",
    refused: "UNIQUE constraint failed: agent_execution_receipts.run_id, agent_execution_receipts.call_id",
    run: (db) => insertReceipt(db, "open", "c1", "another-id"),
  },
  // Runs.
  {
    name: "an agent_runs row inserted as completed",
    refused: "ledger:run_must_start_running",
    run: (db) => insertRun(db, "new", "completed"),
  },
  {
    name: "an agent_runs row inserted as failed",
    refused: "ledger:run_must_start_running",
    run: (db) => insertRun(db, "new", "failed"),
  },
  {
    name: "an UPDATE of a closed run back to running",
    refused: "ledger:run_already_terminal",
    run: (db) => db.prepare("UPDATE agent_runs SET terminal_state = 'running' WHERE run_id = 'closed'").run(),
  },
  {
    name: "an UPDATE of a closed run to another terminal state",
    refused: "ledger:run_already_terminal",
    run: (db) => db.prepare("UPDATE agent_runs SET terminal_state = 'failed' WHERE run_id = 'closed'").run(),
  },
  {
    name: "an UPDATE of a closed run's details",
    refused: "ledger:run_already_terminal",
    run: (db) => db.prepare("UPDATE agent_runs SET failure_detail = 'x' WHERE run_id = 'closed'").run(),
  },
  {
    name: "an UPDATE to a terminal state with no terminal event",
    refused: "ledger:run_closed_without_terminal_event",
    run: (db) => db.prepare("UPDATE agent_runs SET terminal_state = 'completed' WHERE run_id = 'open'").run(),
  },
  {
    name: "an UPDATE to a state other than the terminal event's",
    refused: "ledger:run_closed_without_terminal_event",
    run: (db) => db.prepare("UPDATE agent_runs SET terminal_state = 'failed' WHERE run_id = 'closing'").run(),
  },
  {
    name: "an UPDATE of an open run that keeps it running",
    refused: "ledger:run_update_not_terminal",
    run: (db) => db.prepare("UPDATE agent_runs SET model = 'x' WHERE run_id = 'open'").run(),
  },
  {
    name: "an UPDATE that changes a run's identity",
    refused: "ledger:run_identity_immutable",
    run: (db) =>
      db.prepare("UPDATE agent_runs SET terminal_state = 'completed', session_id = 'x' WHERE run_id = 'closing'").run(),
  },
  {
    name: "a DELETE of an open run",
    refused: "ledger:append_only",
    run: (db) => db.prepare("DELETE FROM agent_runs WHERE run_id = 'open'").run(),
  },
  {
    name: "a DELETE of a closed run",
    refused: "ledger:append_only",
    run: (db) => db.prepare("DELETE FROM agent_runs WHERE run_id = 'closed'").run(),
  },
];

describe("ledger invariants at the SQL level", () => {
  it.scoped("accept the seeded, well-formed ledger and its closing UPDATE", () =>
    Effect.gen(function* () {
      const { db } = yield* seededLedger;
      db.prepare("UPDATE agent_runs SET terminal_state = 'completed', ended_at = 'now' WHERE run_id = 'closing'").run();
      const states = db.prepare("SELECT run_id, terminal_state FROM agent_runs ORDER BY run_id").all();
      expect(states).toEqual([
        { run_id: "closed", terminal_state: "completed" },
        { run_id: "closing", terminal_state: "completed" },
        { run_id: "empty", terminal_state: "running" },
        { run_id: "open", terminal_state: "running" },
        { run_id: "other", terminal_state: "running" },
      ]);
    }),
  );

  it.scoped.each(CASES)("refuse $name with $refused and change nothing", ({ refused, run }) =>
    Effect.gen(function* () {
      const { file, db } = yield* seededLedger;
      const before = dumpAll(file);
      expect(() => run(db)).toThrow(refused);
      expect(dumpAll(file)).toEqual(before);
    }),
  );

  it.scoped("refuse a second terminal event through the unique terminal index when the trigger is bypassed", () =>
    Effect.gen(function* () {
      const { db } = yield* seededLedger;
      db.exec("DROP TRIGGER agent_run_events_guard");
      expect(() => insertEvent(db, "closing", 3, "terminal", terminal("failed"))).toThrow(
        "UNIQUE constraint failed: agent_run_events.run_id",
      );
    }),
  );

  it.scoped("refuse a duplicate (run_id, sequence) through the UNIQUE constraint when the trigger is bypassed", () =>
    Effect.gen(function* () {
      const { db } = yield* seededLedger;
      db.exec("DROP TRIGGER agent_run_events_guard");
      expect(() => insertEvent(db, "open", 3, "user_input")).toThrow(
        "UNIQUE constraint failed: agent_run_events.run_id, agent_run_events.sequence",
      );
    }),
  );
});

/**
 * The terminal-event check of `agent_runs_close_once` as SQLite runs it: which b-tree it opens for
 * agent_run_events (from the UPDATE's own bytecode, trigger program included) and the plan of the
 * check's query as stored in the trigger. A lookup in the unique partial index of terminal events
 * visits at most one entry, whatever the length of the run; the (run_id, sequence) index that 0002
 * used visits every event of the run.
 */
function closeCheck(db: Db) {
  const roots = new Map(
    (
      db
        .prepare("SELECT rootpage, name FROM sqlite_master WHERE tbl_name = 'agent_run_events' AND rootpage > 0")
        .all() as Array<{ rootpage: number; name: string }>
    ).map((row) => [row.rootpage, row.name]),
  );
  const opened = (
    db.prepare("EXPLAIN UPDATE agent_runs SET terminal_state = 'completed' WHERE run_id = ?").all("x") as Array<{
      opcode: string;
      p2: number;
    }>
  )
    .filter((op) => op.opcode === "OpenRead" && roots.has(op.p2))
    .map((op) => roots.get(op.p2));
  const trigger = (
    db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'agent_runs_close_once'").get() as {
      sql: string;
    }
  ).sql;
  const query = /SELECT json_extract\(payload_json, '\$\.terminalState'\) FROM agent_run_events\s+WHERE [^)]*/
    .exec(trigger)?.[0]
    .replaceAll("NEW.run_id", "?");
  if (!query) throw new Error(`no terminal-event lookup in ${trigger}`);
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all("x") as Array<{ detail: string }>).map(
    (row) => row.detail,
  );
  return { opened, plan };
}

const { "0005_ledger_exact_checks": _exactChecks, ...UP_TO_0004 } = MIGRATIONS;

describe("the close check (agent_runs_close_once)", () => {
  it.scoped("looks the terminal event up in the unique partial index of terminal events", () =>
    Effect.gen(function* () {
      const { db } = yield* seededLedger;
      const indexSql = db
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'idx_agent_run_events_terminal'")
        .pluck()
        .get() as string;
      expect(indexSql).toMatch(/CREATE UNIQUE INDEX .* ON agent_run_events\(run_id\) WHERE event_type = 'terminal'/);
      expect(closeCheck(db)).toEqual({
        opened: ["agent_run_events", "idx_agent_run_events_terminal"],
        plan: ["SEARCH agent_run_events USING INDEX idx_agent_run_events_terminal (run_id=?)"],
      });
    }),
  );

  it.effect("walked every event of the run through the (run_id, sequence) index before 0005", () =>
    Effect.gen(function* () {
      const file = tmp.path("v4.db");
      yield* migrateDatabase(file, { migrations: UP_TO_0004 });
      const db = new Sqlite(file);
      try {
        expect(closeCheck(db)).toEqual({
          opened: ["agent_run_events", "sqlite_autoindex_agent_run_events_1"],
          plan: ["SEARCH agent_run_events USING INDEX sqlite_autoindex_agent_run_events_1 (run_id=?)"],
        });
      } finally {
        db.close();
      }
    }),
  );

  it.scoped("still closes a long run only as its terminal event says", () =>
    Effect.gen(function* () {
      const { db } = yield* seededLedger;
      insertRun(db, "long");
      db.transaction(() => {
        for (let sequence = 1; sequence <= 2_000; sequence++) insertEvent(db, "long", sequence, "user_input");
        insertEvent(db, "long", 2_001, "terminal", terminal("failed"));
      })();
      const close = (state: string) =>
        db.prepare("UPDATE agent_runs SET terminal_state = ?, ended_at = 'now' WHERE run_id = 'long'").run(state);
      expect(() => close("completed")).toThrow("ledger:run_closed_without_terminal_event");
      close("failed");
      expect(db.prepare("SELECT terminal_state FROM agent_runs WHERE run_id = 'long'").pluck().get()).toBe("failed");
    }),
  );
});
