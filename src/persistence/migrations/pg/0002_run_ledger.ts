import * as Effect from "effect/Effect";
import * as SqlClient from "../../sqlClient.js";

/**
 * PostgreSQL: the run ledger with the invariants SQLite's triggers enforce (SQLite migrations
 * 0002 and 0005), enforced by PostgreSQL itself — constraints and PL/pgSQL triggers that raise
 * the same `ledger:<reason>` messages, so the store maps both engines' refusals the same way.
 *
 * - `rowid` is an identity column: the insertion order SQLite's rowid gives. Migration 0011
 *   renames it `insert_order` on runs and drops it on receipts.
 * - The events guard locks the run row (FOR UPDATE): appends to one run are serialized, so the
 *   sequence and pairing checks see every committed row before them.
 */
const CALL_ID = "(payload_json::jsonb ->> 'callId')";

export const PG_LEDGER_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_runs (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    run_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    workspace_id TEXT,
    provider_id TEXT,
    model TEXT,
    api_family TEXT,
    terminal_state TEXT NOT NULL CHECK (terminal_state IN
      ('running', 'completed', 'unverified', 'incomplete', 'failed', 'cancelled')),
    completion_contract_json TEXT NOT NULL CHECK (completion_contract_json::jsonb IS NOT NULL),
    trace_id TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    failure_code TEXT,
    failure_detail TEXT
  )`,
  "CREATE INDEX idx_agent_runs_session ON agent_runs(session_id, started_at)",
  "CREATE INDEX idx_agent_runs_trace ON agent_runs(trace_id)",
  "CREATE INDEX idx_agent_runs_open ON agent_runs(terminal_state) WHERE terminal_state = 'running'",
  `CREATE TABLE agent_run_events (
    event_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    event_type TEXT NOT NULL CHECK (event_type IN
      ('user_input', 'assistant_output', 'tool_call', 'tool_result', 'provider_anomaly', 'terminal')),
    payload_json TEXT NOT NULL CHECK (payload_json::jsonb IS NOT NULL),
    created_at TEXT NOT NULL,
    UNIQUE(run_id, sequence)
  )`,
  `CREATE INDEX idx_agent_run_events_call ON agent_run_events(run_id, event_type, ${CALL_ID})
    WHERE event_type IN ('tool_call', 'tool_result')`,
  "CREATE UNIQUE INDEX idx_agent_run_events_terminal ON agent_run_events(run_id) WHERE event_type = 'terminal'",
  `CREATE TABLE agent_execution_receipts (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    receipt_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error', 'cancelled', 'timed_out')),
    verification_status TEXT NOT NULL CHECK (verification_status IN ('verified', 'partial', 'unverified')),
    input_fingerprint TEXT NOT NULL,
    evidence_json TEXT NOT NULL CHECK (evidence_json::jsonb IS NOT NULL),
    started_at TEXT NOT NULL,
    finished_at TEXT,
    UNIQUE(run_id, call_id)
  )`,
  `CREATE FUNCTION agentloop_events_guard() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    run_state TEXT;
    new_call_id TEXT;
  BEGIN
    SELECT terminal_state INTO run_state FROM agent_runs WHERE run_id = NEW.run_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'ledger:unknown_run'; END IF;
    IF run_state <> 'running' THEN RAISE EXCEPTION 'ledger:run_not_running'; END IF;
    IF NEW.sequence > 1 + COALESCE((SELECT MAX(sequence) FROM agent_run_events WHERE run_id = NEW.run_id), 0) THEN
      RAISE EXCEPTION 'ledger:sequence_gap';
    END IF;
    IF EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND sequence = NEW.sequence - 1 AND event_type = 'terminal') THEN
      RAISE EXCEPTION 'ledger:event_after_terminal';
    END IF;
    IF NEW.event_type IN ('tool_call', 'tool_result') THEN
      new_call_id := NEW.payload_json::jsonb ->> 'callId';
      IF COALESCE(new_call_id, '') = '' THEN RAISE EXCEPTION 'ledger:missing_call_id'; END IF;
      IF NEW.event_type = 'tool_call' AND EXISTS (SELECT 1 FROM agent_run_events
          WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
            AND ${CALL_ID} = new_call_id) THEN
        RAISE EXCEPTION 'ledger:duplicate_tool_call';
      END IF;
      IF NEW.event_type = 'tool_result' AND NOT EXISTS (SELECT 1 FROM agent_run_events
          WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
            AND ${CALL_ID} = new_call_id) THEN
        RAISE EXCEPTION 'ledger:orphan_tool_result';
      END IF;
      IF NEW.event_type = 'tool_result' AND EXISTS (SELECT 1 FROM agent_run_events
          WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_result'
            AND ${CALL_ID} = new_call_id) THEN
        RAISE EXCEPTION 'ledger:duplicate_tool_result';
      END IF;
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_run_events_guard BEFORE INSERT ON agent_run_events
    FOR EACH ROW EXECUTE FUNCTION agentloop_events_guard()`,
  `CREATE FUNCTION agentloop_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'ledger:append_only';
  END $$`,
  `CREATE TRIGGER agent_run_events_append_only BEFORE UPDATE OR DELETE ON agent_run_events
    FOR EACH ROW EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE TRIGGER agent_run_events_no_truncate BEFORE TRUNCATE ON agent_run_events
    FOR EACH STATEMENT EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE FUNCTION agentloop_receipts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    run_state TEXT;
  BEGIN
    SELECT terminal_state INTO run_state FROM agent_runs WHERE run_id = NEW.run_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'ledger:unknown_run'; END IF;
    IF run_state <> 'running' THEN RAISE EXCEPTION 'ledger:run_not_running'; END IF;
    IF NOT EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND ${CALL_ID} = NEW.call_id) THEN
      RAISE EXCEPTION 'ledger:receipt_without_call';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_execution_receipts_guard BEFORE INSERT ON agent_execution_receipts
    FOR EACH ROW EXECUTE FUNCTION agentloop_receipts_guard()`,
  `CREATE TRIGGER agent_execution_receipts_append_only BEFORE UPDATE OR DELETE ON agent_execution_receipts
    FOR EACH ROW EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE TRIGGER agent_execution_receipts_no_truncate BEFORE TRUNCATE ON agent_execution_receipts
    FOR EACH STATEMENT EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE FUNCTION agentloop_runs_created_running() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.terminal_state <> 'running' THEN RAISE EXCEPTION 'ledger:run_must_start_running'; END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_runs_created_running BEFORE INSERT ON agent_runs
    FOR EACH ROW EXECUTE FUNCTION agentloop_runs_created_running()`,
  `CREATE FUNCTION agentloop_runs_close_once() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF OLD.terminal_state <> 'running' THEN RAISE EXCEPTION 'ledger:run_already_terminal'; END IF;
    IF NEW.terminal_state = 'running' THEN RAISE EXCEPTION 'ledger:run_update_not_terminal'; END IF;
    IF NEW.run_id IS DISTINCT FROM OLD.run_id OR NEW.session_id IS DISTINCT FROM OLD.session_id
        OR NEW.started_at IS DISTINCT FROM OLD.started_at OR NEW.trace_id IS DISTINCT FROM OLD.trace_id
        OR NEW.completion_contract_json IS DISTINCT FROM OLD.completion_contract_json THEN
      RAISE EXCEPTION 'ledger:run_identity_immutable';
    END IF;
    IF COALESCE((SELECT payload_json::jsonb ->> 'terminalState' FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type = 'terminal'), '') <> NEW.terminal_state THEN
      RAISE EXCEPTION 'ledger:run_closed_without_terminal_event';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_runs_close_once BEFORE UPDATE ON agent_runs
    FOR EACH ROW EXECUTE FUNCTION agentloop_runs_close_once()`,
  `CREATE TRIGGER agent_runs_no_delete BEFORE DELETE ON agent_runs
    FOR EACH ROW EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE TRIGGER agent_runs_no_truncate BEFORE TRUNCATE ON agent_runs
    FOR EACH STATEMENT EXECUTE FUNCTION agentloop_append_only()`,
];

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of PG_LEDGER_DDL) yield* sql.unsafe(statement);
});
