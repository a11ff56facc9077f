import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Approval of tool calls, for SQLite and PostgreSQL. Forward-only: one table, and the
 * receipts' status check widened to the two new statuses (`denied`, `expired`).
 *
 * - `agent_approvals`: a call's approval request (`requested`, written by the run before the host
 *   hears of it) and at most one decision (`approved` / `denied`, with who decided, when, the scope
 *   and edited arguments or the message). Decisions may come from another process on the same
 *   file (`agentloop approve`): the run that waits polls this table. The database refuses a
 *   request without its tool_call, a decision without its request or after the call's receipt, a
 *   second decision, any row of a run that ended, and every update or delete.
 * - Receipts: PostgreSQL swaps the CHECK constraint. SQLite cannot alter a CHECK; its receipts
 *   table is rebuilt in the migration's transaction — rows copied as they are (rowids too), then
 *   the table's own triggers and indexes recreated from their stored text — so no receipt changes.
 *   The file is backed up before any migration runs.
 */

const OLD_STATUS_CHECK = "CHECK (status IN ('ok', 'error', 'cancelled', 'timed_out'))";
const NEW_STATUS_CHECK = "CHECK (status IN ('ok', 'error', 'cancelled', 'timed_out', 'denied', 'expired'))";

const SQLITE_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_approvals (
    approval_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('requested', 'approved', 'denied')),
    tool_name TEXT NOT NULL,
    scope TEXT CHECK (scope IN ('once', 'run', 'session')),
    decided_by TEXT,
    payload_json TEXT NOT NULL CHECK (json_valid(payload_json)),
    created_at TEXT NOT NULL
  )`,
  "CREATE UNIQUE INDEX idx_agent_approvals_request ON agent_approvals(run_id, call_id) WHERE kind = 'requested'",
  "CREATE UNIQUE INDEX idx_agent_approvals_decision ON agent_approvals(run_id, call_id) WHERE kind <> 'requested'",
  `CREATE TRIGGER agent_approvals_guard BEFORE INSERT ON agent_approvals
  BEGIN
    SELECT RAISE(ABORT, 'ledger:run_not_running')
      WHERE (SELECT terminal_state FROM agent_runs WHERE run_id = NEW.run_id) <> 'running';
    SELECT RAISE(ABORT, 'ledger:approval_without_call')
      WHERE NEW.kind = 'requested' AND NOT EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND json_extract(payload_json, '$.callId') = NEW.call_id);
    SELECT RAISE(ABORT, 'ledger:decision_without_request')
      WHERE NEW.kind <> 'requested' AND NOT EXISTS (SELECT 1 FROM agent_approvals
        WHERE run_id = NEW.run_id AND call_id = NEW.call_id AND kind = 'requested');
    SELECT RAISE(ABORT, 'ledger:already_decided')
      WHERE NEW.kind <> 'requested' AND EXISTS (SELECT 1 FROM agent_approvals
        WHERE run_id = NEW.run_id AND call_id = NEW.call_id AND kind <> 'requested');
    SELECT RAISE(ABORT, 'ledger:call_already_settled')
      WHERE NEW.kind <> 'requested' AND EXISTS (SELECT 1 FROM agent_execution_receipts
        WHERE run_id = NEW.run_id AND call_id = NEW.call_id);
  END`,
  `CREATE TRIGGER agent_approvals_no_update BEFORE UPDATE ON agent_approvals
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  `CREATE TRIGGER agent_approvals_no_delete BEFORE DELETE ON agent_approvals
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
];

const PG_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_approvals (
    approval_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('requested', 'approved', 'denied')),
    tool_name TEXT NOT NULL,
    scope TEXT CHECK (scope IN ('once', 'run', 'session')),
    decided_by TEXT,
    payload_json TEXT NOT NULL CHECK (payload_json::jsonb IS NOT NULL),
    created_at TEXT NOT NULL
  )`,
  "CREATE UNIQUE INDEX idx_agent_approvals_request ON agent_approvals(run_id, call_id) WHERE kind = 'requested'",
  "CREATE UNIQUE INDEX idx_agent_approvals_decision ON agent_approvals(run_id, call_id) WHERE kind <> 'requested'",
  `CREATE FUNCTION agentloop_approvals_guard() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    run_state TEXT;
  BEGIN
    SELECT terminal_state INTO run_state FROM agent_runs WHERE run_id = NEW.run_id FOR UPDATE;
    IF FOUND AND run_state <> 'running' THEN RAISE EXCEPTION 'ledger:run_not_running'; END IF;
    IF NEW.kind = 'requested' THEN
      IF NOT EXISTS (SELECT 1 FROM agent_run_events WHERE run_id = NEW.run_id
          AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND (payload_json::jsonb ->> 'callId') = NEW.call_id) THEN
        RAISE EXCEPTION 'ledger:approval_without_call';
      END IF;
    ELSE
      IF NOT EXISTS (SELECT 1 FROM agent_approvals
          WHERE run_id = NEW.run_id AND call_id = NEW.call_id AND kind = 'requested') THEN
        RAISE EXCEPTION 'ledger:decision_without_request';
      END IF;
      IF EXISTS (SELECT 1 FROM agent_approvals
          WHERE run_id = NEW.run_id AND call_id = NEW.call_id AND kind <> 'requested') THEN
        RAISE EXCEPTION 'ledger:already_decided';
      END IF;
      IF EXISTS (SELECT 1 FROM agent_execution_receipts WHERE run_id = NEW.run_id AND call_id = NEW.call_id) THEN
        RAISE EXCEPTION 'ledger:call_already_settled';
      END IF;
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_approvals_guard BEFORE INSERT ON agent_approvals
    FOR EACH ROW EXECUTE FUNCTION agentloop_approvals_guard()`,
  `CREATE TRIGGER agent_approvals_append_only BEFORE UPDATE OR DELETE ON agent_approvals
    FOR EACH ROW EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE TRIGGER agent_approvals_no_truncate BEFORE TRUNCATE ON agent_approvals
    FOR EACH STATEMENT EXECUTE FUNCTION agentloop_append_only()`,
  "ALTER TABLE agent_execution_receipts DROP CONSTRAINT agent_execution_receipts_status_check",
  `ALTER TABLE agent_execution_receipts ADD CONSTRAINT agent_execution_receipts_status_check ${NEW_STATUS_CHECK}`,
];

export const TOOL_APPROVALS_DDL = { sqlite: SQLITE_DDL, pg: PG_DDL } as const;

/** SQLite: the receipts table again under its own name, with the wider status check and the same rows. */
const widenSqliteReceipts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  const [table] = yield* sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'agent_execution_receipts'`;
  if (!table?.sql.includes(OLD_STATUS_CHECK)) {
    return yield* Effect.dieMessage("0008: agent_execution_receipts does not have the status check of 0002");
  }
  const dependents = yield* sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE tbl_name = 'agent_execution_receipts'
      AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid`;
  const columns = (yield* sql<{ name: string }>`SELECT name FROM pragma_table_info('agent_execution_receipts')`)
    .map((column) => `"${column.name}"`)
    .join(", ");
  const widened = table.sql
    .replace(OLD_STATUS_CHECK, NEW_STATUS_CHECK)
    .replace(/^CREATE TABLE "?agent_execution_receipts"?/, "CREATE TABLE agent_execution_receipts_0008");
  yield* sql.unsafe(widened);
  yield* sql.unsafe(
    `INSERT INTO agent_execution_receipts_0008 (rowid, ${columns}) SELECT rowid, ${columns} FROM agent_execution_receipts`,
  );
  // No other table's trigger or view names the receipts table, so renaming over it is safe.
  yield* sql.unsafe("DROP TABLE agent_execution_receipts");
  yield* sql.unsafe("ALTER TABLE agent_execution_receipts_0008 RENAME TO agent_execution_receipts");
  for (const dependent of dependents) yield* sql.unsafe(dependent.sql);
});

const run = (statements: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    for (const statement of statements) yield* sql.unsafe(statement);
  });

/** The migration of each engine (migrations/index.ts and migrations/pg/index.ts pick theirs). */
export default { sqlite: Effect.zipRight(widenSqliteReceipts, run(SQLITE_DDL)), pg: run(PG_DDL) } as const;
