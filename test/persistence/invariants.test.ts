/**
 * The ledger invariants as the database itself enforces them: raw statements against a migrated
 * ledger, bypassing the store entirely — on SQLite (triggers, constraints) and on PostgreSQL
 * (constraints, PL/pgSQL triggers) alike. Each refusal is checked by the LedgerError
 * reason the store maps it onto, so both engines must refuse the same rows for the same reason.
 */
import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import Pg from "pg";
import { afterEach } from "vitest";
import * as Ledger from "../../src/persistence/ledger.js";
import { toLedgerError } from "../../src/persistence/ledgerWriter.js";
import { MIGRATIONS } from "../../src/persistence/migrations/index.js";
import { BACKENDS, type BackendName, freshPostgresDatabase, noticePostgresSkipped } from "../support/backends.js";
import { FINGERPRINT, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir();
noticePostgresSkipped();

type Db = Sqlite.Database;

/** A migrated ledger behind raw SQL (`?` placeholders), the same for both engines. */
interface RawLedger {
  readonly backend: BackendName;
  run(statement: string, ...params: unknown[]): Promise<void>;
  dump(): Promise<Record<string, unknown[]>>;
  close(): Promise<void>;
}

const TABLES = ["agent_runs", "agent_run_events", "agent_execution_receipts", "run_leases"] as const;

async function openSqlite(): Promise<RawLedger> {
  const file = tmp.path("ledger.db");
  await Effect.runPromise(Ledger.migrate(file));
  const db = new Sqlite(file);
  return {
    backend: "sqlite",
    run: async (statement, ...params) => void db.prepare(statement).run(...params),
    dump: async () =>
      Object.fromEntries(TABLES.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()])),
    close: async () => {
      db.close();
    },
  };
}

async function openPostgres(): Promise<RawLedger> {
  const url = await freshPostgresDatabase();
  await Effect.runPromise(Ledger.migrate(url));
  const client = new Pg.Client({ connectionString: url });
  await client.connect();
  const numbered = (statement: string) => {
    let n = 0;
    return statement.replace(/\?/g, () => `$${++n}`);
  };
  const order: Record<(typeof TABLES)[number], string> = {
    agent_runs: "insert_order",
    agent_run_events: "event_id",
    agent_execution_receipts: "run_id, call_id",
    run_leases: "run_id",
  };
  return {
    backend: "postgres",
    run: async (statement, ...params) => void (await client.query(numbered(statement), params)),
    dump: async () =>
      Object.fromEntries(
        await Promise.all(
          TABLES.map(
            async (table) =>
              [table, (await client.query(`SELECT * FROM ${table} ORDER BY ${order[table]}`)).rows] as const,
          ),
        ),
      ),
    close: () => client.end(),
  };
}

let open: RawLedger | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const insertRun = (db: RawLedger, runId: string, state = "running") =>
  db.run(
    `INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
     VALUES (?, 'session-1', ?, '{"evidenceMode":"none"}', ?, '2024-01-01T00:00:00Z')`,
    runId,
    state,
    `trace-${runId}`,
  );

const insertEvent = (
  db: RawLedger,
  runId: string,
  sequence: number,
  type: string,
  payload: object = {},
  leaseEpoch: number | null = null,
) =>
  db.run(
    `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at, lease_epoch)
     VALUES (?, ?, ?, ?, '2024-01-01T00:00:00Z', ?)`,
    runId,
    sequence,
    type,
    JSON.stringify(payload),
    leaseEpoch,
  );

const insertReceipt = (
  db: RawLedger,
  runId: string,
  callId: string,
  receiptId = `${runId}:${callId}`,
  leaseEpoch: number | null = null,
) =>
  db.run(
    `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
       input_fingerprint, evidence_json, started_at, finished_at, lease_epoch)
     VALUES (?, ?, ?, 'read_file', 'ok', 'verified', ?, '{}', '2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z', ?)`,
    receiptId,
    runId,
    callId,
    FINGERPRINT,
    leaseEpoch,
  );

const terminal = (terminalState: string) => ({ terminalState, reason: "answered", finalText: "", steps: 1 });

/**
 * Seeds six runs:
 * - open:    user_input, tool_call c1, tool_result c1 (+ receipt c1)
 * - other:   tool_call c2
 * - closed:  user_input, terminal completed; row closed as completed
 * - closing: user_input, terminal completed; row still `running` (as inside finishRun's transaction)
 * - empty:   no events
 * - leased:  user_input under lease epoch 2 (taken over once)
 */
async function seed(db: RawLedger) {
  await insertRun(db, "open");
  await insertEvent(db, "open", 1, "user_input", { text: "hi" });
  await insertEvent(db, "open", 2, "tool_call", { callId: "c1", toolName: "read_file" });
  await insertEvent(db, "open", 3, "tool_result", { callId: "c1", toolName: "read_file" });
  await insertReceipt(db, "open", "c1");
  await insertRun(db, "other");
  await insertEvent(db, "other", 1, "tool_call", { callId: "c2", toolName: "read_file" });
  await insertRun(db, "closed");
  await insertEvent(db, "closed", 1, "user_input", { text: "hi" });
  await insertEvent(db, "closed", 2, "terminal", terminal("completed"));
  await db.run("UPDATE agent_runs SET terminal_state = 'completed', ended_at = 'now' WHERE run_id = 'closed'");
  await insertRun(db, "closing");
  await insertEvent(db, "closing", 1, "user_input", { text: "hi" });
  await insertEvent(db, "closing", 2, "terminal", terminal("completed"));
  await insertRun(db, "empty");
  await insertRun(db, "leased");
  await db.run("INSERT INTO run_leases (run_id, owner_id, epoch, expires_at) VALUES ('leased', 'owner-b', 2, 0)");
  await insertEvent(db, "leased", 1, "tool_call", { callId: "c3", toolName: "read_file" }, 2);
}

/** A migrated, seeded ledger of the backend, closed when the test ends. */
async function seededLedger(backend: BackendName): Promise<RawLedger> {
  open = backend === "sqlite" ? await openSqlite() : await openPostgres();
  await seed(open);
  return open;
}

interface RefusalCase {
  readonly name: string;
  /** The LedgerError reason the store reports for the database's refusal. */
  readonly refused: string;
  readonly run: (db: RawLedger) => Promise<unknown>;
}

const CASES: ReadonlyArray<RefusalCase> = [
  // Events: order and pairing.
  {
    name: "a duplicate (run_id, sequence)",
    refused: "duplicate_sequence",
    run: (db) => insertEvent(db, "open", 3, "user_input"),
  },
  { name: "a sequence gap", refused: "sequence_gap", run: (db) => insertEvent(db, "open", 5, "user_input") },
  {
    name: "a first event with sequence 2",
    refused: "sequence_gap",
    run: (db) => insertEvent(db, "empty", 2, "user_input"),
  },
  { name: "a sequence below 1", refused: "invalid_payload", run: (db) => insertEvent(db, "empty", 0, "user_input") },
  { name: "an event of an unknown run", refused: "unknown_run", run: (db) => insertEvent(db, "nope", 1, "user_input") },
  {
    name: "a tool_result with no earlier tool_call",
    refused: "orphan_tool_result",
    run: (db) => insertEvent(db, "open", 4, "tool_result", { callId: "c9" }),
  },
  {
    name: "a tool_result whose tool_call is in another run",
    refused: "orphan_tool_result",
    run: (db) => insertEvent(db, "open", 4, "tool_result", { callId: "c2" }),
  },
  {
    name: "a second tool_result for a call",
    refused: "duplicate_tool_result",
    run: (db) => insertEvent(db, "open", 4, "tool_result", { callId: "c1" }),
  },
  {
    name: "a second tool_call with the same callId",
    refused: "duplicate_tool_call",
    run: (db) => insertEvent(db, "open", 4, "tool_call", { callId: "c1" }),
  },
  {
    name: "a tool_call without a callId",
    refused: "missing_call_id",
    run: (db) => insertEvent(db, "open", 4, "tool_call", { toolName: "x" }),
  },
  {
    name: "an event whose payload is not JSON",
    refused: "invalid_payload",
    run: (db) =>
      db.run(
        `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at)
         VALUES ('open', 4, 'user_input', '{not json', 'now')`,
      ),
  },
  { name: "an unknown event type", refused: "invalid_payload", run: (db) => insertEvent(db, "open", 4, "narration") },
  // Events: closure.
  {
    name: "an event after the terminal event of a closed run",
    refused: "run_not_running",
    run: (db) => insertEvent(db, "closed", 3, "user_input"),
  },
  {
    name: "an event after a terminal event (run row not yet closed)",
    refused: "event_after_terminal",
    run: (db) => insertEvent(db, "closing", 3, "user_input"),
  },
  {
    name: "a second terminal event",
    refused: "event_after_terminal",
    run: (db) => insertEvent(db, "closing", 3, "terminal", terminal("failed")),
  },
  // Events are append-only.
  {
    name: "an UPDATE of an event row",
    refused: "append_only",
    run: (db) => db.run("UPDATE agent_run_events SET payload_json = '{}' WHERE run_id = 'open'"),
  },
  {
    name: "a DELETE of an event row",
    refused: "append_only",
    run: (db) => db.run("DELETE FROM agent_run_events WHERE run_id = 'open' AND sequence = 3"),
  },
  // Receipts.
  {
    name: "an UPDATE of a receipt row",
    refused: "append_only",
    run: (db) => db.run("UPDATE agent_execution_receipts SET status = 'error'"),
  },
  {
    name: "a DELETE of a receipt row",
    refused: "append_only",
    run: (db) => db.run("DELETE FROM agent_execution_receipts"),
  },
  {
    name: "a receipt for a call with no tool_call",
    refused: "receipt_without_call",
    run: (db) => insertReceipt(db, "open", "c9"),
  },
  {
    name: "a receipt for a call recorded in another run",
    refused: "receipt_without_call",
    run: (db) => insertReceipt(db, "open", "c2"),
  },
  { name: "a receipt of an unknown run", refused: "unknown_run", run: (db) => insertReceipt(db, "nope", "c1") },
  { name: "a receipt of a closed run", refused: "run_not_running", run: (db) => insertReceipt(db, "closed", "c1") },
  {
    name: "a second receipt for the same call",
    refused: "duplicate_receipt",
    run: (db) => insertReceipt(db, "open", "c1", "another-id"),
  },
  // Fencing (migration 0007): rows of a leased run carry its current epoch.
  {
    name: "an event of a leased run without the lease's epoch",
    refused: "stale_lease",
    run: (db) => insertEvent(db, "leased", 2, "user_input"),
  },
  {
    name: "an event of a leased run with a stale epoch",
    refused: "stale_lease",
    run: (db) => insertEvent(db, "leased", 2, "user_input", {}, 1),
  },
  {
    name: "a receipt of a leased run with a stale epoch",
    refused: "stale_lease",
    run: (db) => insertReceipt(db, "leased", "c3", "leased:c3", 1),
  },
  // Runs.
  {
    name: "an agent_runs row inserted as completed",
    refused: "run_must_start_running",
    run: (db) => insertRun(db, "new", "completed"),
  },
  {
    name: "an agent_runs row inserted as failed",
    refused: "run_must_start_running",
    run: (db) => insertRun(db, "new", "failed"),
  },
  { name: "a second run with the same id", refused: "duplicate_run", run: (db) => insertRun(db, "open") },
  {
    name: "an UPDATE of a closed run back to running",
    refused: "run_already_terminal",
    run: (db) => db.run("UPDATE agent_runs SET terminal_state = 'running' WHERE run_id = 'closed'"),
  },
  {
    name: "an UPDATE of a closed run to another terminal state",
    refused: "run_already_terminal",
    run: (db) => db.run("UPDATE agent_runs SET terminal_state = 'failed' WHERE run_id = 'closed'"),
  },
  {
    name: "an UPDATE of a closed run's details",
    refused: "run_already_terminal",
    run: (db) => db.run("UPDATE agent_runs SET failure_detail = 'x' WHERE run_id = 'closed'"),
  },
  {
    name: "an UPDATE to a terminal state with no terminal event",
    refused: "run_closed_without_terminal_event",
    run: (db) => db.run("UPDATE agent_runs SET terminal_state = 'completed' WHERE run_id = 'open'"),
  },
  {
    name: "an UPDATE to a state other than the terminal event's",
    refused: "run_closed_without_terminal_event",
    run: (db) => db.run("UPDATE agent_runs SET terminal_state = 'failed' WHERE run_id = 'closing'"),
  },
  {
    name: "an UPDATE of an open run that keeps it running",
    refused: "run_update_not_terminal",
    run: (db) => db.run("UPDATE agent_runs SET model = 'x' WHERE run_id = 'open'"),
  },
  {
    name: "an UPDATE that changes a run's identity",
    refused: "run_identity_immutable",
    run: (db) =>
      db.run("UPDATE agent_runs SET terminal_state = 'completed', session_id = 'x' WHERE run_id = 'closing'"),
  },
  {
    name: "a DELETE of an open run",
    refused: "append_only",
    run: (db) => db.run("DELETE FROM agent_runs WHERE run_id = 'open'"),
  },
  {
    name: "a DELETE of a closed run",
    refused: "append_only",
    run: (db) => db.run("DELETE FROM agent_runs WHERE run_id = 'closed'"),
  },
];

/** The reason the store would report for what the database threw. */
async function refusalOf(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
  } catch (error) {
    return toLedgerError(error, "raw").reason;
  }
  return "accepted";
}

const dropGuard = (db: RawLedger) =>
  db.run(
    db.backend === "sqlite"
      ? "DROP TRIGGER agent_run_events_guard"
      : "DROP TRIGGER agent_run_events_guard ON agent_run_events",
  );

describe.each(BACKENDS)("ledger invariants at the SQL level on %s", (backend) => {
  it("accept the seeded, well-formed ledger, its current-epoch rows and its closing UPDATE", async () => {
    const db = await seededLedger(backend);
    await db.run("UPDATE agent_runs SET terminal_state = 'completed', ended_at = 'now' WHERE run_id = 'closing'");
    await insertEvent(db, "leased", 2, "tool_result", { callId: "c3" }, 2);
    await insertReceipt(db, "leased", "c3", "leased:c3", 2);
    const { agent_runs } = await db.dump();
    const states = (agent_runs as Array<{ run_id: string; terminal_state: string }>)
      .map(({ run_id, terminal_state }) => ({ run_id, terminal_state }))
      .sort((a, b) => a.run_id.localeCompare(b.run_id));
    expect(states).toEqual([
      { run_id: "closed", terminal_state: "completed" },
      { run_id: "closing", terminal_state: "completed" },
      { run_id: "empty", terminal_state: "running" },
      { run_id: "leased", terminal_state: "running" },
      { run_id: "open", terminal_state: "running" },
      { run_id: "other", terminal_state: "running" },
    ]);
  });

  it.each(CASES)("refuse $name as $refused and change nothing", async ({ refused, run }) => {
    const db = await seededLedger(backend);
    const before = await db.dump();
    expect(await refusalOf(run(db))).toBe(refused);
    expect(await db.dump()).toEqual(before);
  });

  it("refuse a second terminal event through the unique terminal index when the trigger is bypassed", async () => {
    const db = await seededLedger(backend);
    await dropGuard(db);
    expect(await refusalOf(insertEvent(db, "closing", 3, "terminal", terminal("failed")))).toBe("event_after_terminal");
  });

  it("refuse a duplicate (run_id, sequence) through the UNIQUE constraint when the trigger is bypassed", async () => {
    const db = await seededLedger(backend);
    await dropGuard(db);
    expect(await refusalOf(insertEvent(db, "open", 3, "user_input"))).toBe("duplicate_sequence");
  });
});

/** The SQLite ledger with its raw connection, for the query-plan checks below. */
const seededSqliteFile = Effect.acquireRelease(
  Effect.gen(function* () {
    const file = tmp.path("plan.db");
    yield* Ledger.migrate(file);
    return new Sqlite(file);
  }),
  (db) => Effect.sync(() => db.close()),
);

const insertRawRun = (db: Db, runId: string) =>
  db
    .prepare(
      `INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
       VALUES (?, 'session-1', 'running', '{"evidenceMode":"none"}', ?, '2024-01-01T00:00:00Z')`,
    )
    .run(runId, `trace-${runId}`);

const insertRawEvent = (db: Db, runId: string, sequence: number, type: string, payload: object = {}) =>
  db
    .prepare(
      `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at)
       VALUES (?, ?, ?, ?, '2024-01-01T00:00:00Z')`,
    )
    .run(runId, sequence, type, JSON.stringify(payload));

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
      const db = yield* seededSqliteFile;
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
      yield* Ledger.migrate(file, { migrations: UP_TO_0004 });
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
      const db = yield* seededSqliteFile;
      insertRawRun(db, "long");
      db.transaction(() => {
        for (let sequence = 1; sequence <= 2_000; sequence++) insertRawEvent(db, "long", sequence, "user_input");
        insertRawEvent(db, "long", 2_001, "terminal", terminal("failed"));
      })();
      const close = (state: string) =>
        db.prepare("UPDATE agent_runs SET terminal_state = ?, ended_at = 'now' WHERE run_id = 'long'").run(state);
      expect(() => close("completed")).toThrow("ledger:run_closed_without_terminal_event");
      close("failed");
      expect(db.prepare("SELECT terminal_state FROM agent_runs WHERE run_id = 'long'").pluck().get()).toBe("failed");
    }),
  );
});
