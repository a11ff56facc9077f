import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * The canonical run ledger, with its invariants enforced by SQLite itself.
 * Every RAISE message is `ledger:<reason>`; the store maps them onto LedgerError reasons.
 */
export const LEDGER_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_runs (
    run_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    workspace_id TEXT,
    provider_id TEXT,
    model TEXT,
    api_family TEXT,
    terminal_state TEXT NOT NULL CHECK (terminal_state IN
      ('running', 'completed', 'unverified', 'incomplete', 'failed', 'cancelled')),
    completion_contract_json TEXT NOT NULL CHECK (json_valid(completion_contract_json)),
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
    event_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    event_type TEXT NOT NULL CHECK (event_type IN
      ('user_input', 'assistant_output', 'tool_call', 'tool_result', 'provider_anomaly', 'terminal')),
    payload_json TEXT NOT NULL CHECK (json_valid(payload_json)),
    created_at TEXT NOT NULL,
    UNIQUE(run_id, sequence)
  )`,
  `CREATE INDEX idx_agent_run_events_call ON agent_run_events(run_id, event_type, json_extract(payload_json, '$.callId'))
    WHERE event_type IN ('tool_call', 'tool_result')`,
  `CREATE TABLE agent_execution_receipts (
    receipt_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error', 'cancelled', 'timed_out')),
    verification_status TEXT NOT NULL CHECK (verification_status IN ('verified', 'partial', 'unverified')),
    input_fingerprint TEXT NOT NULL,
    evidence_json TEXT NOT NULL CHECK (json_valid(evidence_json)),
    started_at TEXT NOT NULL,
    finished_at TEXT,
    UNIQUE(run_id, call_id)
  )`,
  // Events: order, pairing and closure.
  `CREATE TRIGGER agent_run_events_guard BEFORE INSERT ON agent_run_events
  BEGIN
    SELECT RAISE(ABORT, 'ledger:unknown_run')
      WHERE NOT EXISTS (SELECT 1 FROM agent_runs WHERE run_id = NEW.run_id);
    SELECT RAISE(ABORT, 'ledger:run_not_running')
      WHERE (SELECT terminal_state FROM agent_runs WHERE run_id = NEW.run_id) <> 'running';
    SELECT RAISE(ABORT, 'ledger:duplicate_sequence')
      WHERE EXISTS (SELECT 1 FROM agent_run_events WHERE run_id = NEW.run_id AND sequence = NEW.sequence);
    SELECT RAISE(ABORT, 'ledger:sequence_gap')
      WHERE NEW.sequence <> 1 + COALESCE((SELECT MAX(sequence) FROM agent_run_events WHERE run_id = NEW.run_id), 0);
    SELECT RAISE(ABORT, 'ledger:event_after_terminal')
      WHERE EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND sequence = NEW.sequence - 1 AND event_type = 'terminal');
    SELECT RAISE(ABORT, 'ledger:missing_call_id')
      WHERE NEW.event_type IN ('tool_call', 'tool_result')
        AND COALESCE(json_extract(NEW.payload_json, '$.callId'), '') = '';
    SELECT RAISE(ABORT, 'ledger:duplicate_tool_call')
      WHERE NEW.event_type = 'tool_call' AND EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND json_extract(payload_json, '$.callId') = json_extract(NEW.payload_json, '$.callId'));
    SELECT RAISE(ABORT, 'ledger:orphan_tool_result')
      WHERE NEW.event_type = 'tool_result' AND NOT EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND json_extract(payload_json, '$.callId') = json_extract(NEW.payload_json, '$.callId'));
    SELECT RAISE(ABORT, 'ledger:duplicate_tool_result')
      WHERE NEW.event_type = 'tool_result' AND EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_result'
          AND json_extract(payload_json, '$.callId') = json_extract(NEW.payload_json, '$.callId'));
  END`,
  `CREATE TRIGGER agent_run_events_no_update BEFORE UPDATE ON agent_run_events
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  `CREATE TRIGGER agent_run_events_no_delete BEFORE DELETE ON agent_run_events
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  // Receipts: one per recorded call, while the run is open, never changed.
  `CREATE TRIGGER agent_execution_receipts_guard BEFORE INSERT ON agent_execution_receipts
  BEGIN
    SELECT RAISE(ABORT, 'ledger:unknown_run')
      WHERE NOT EXISTS (SELECT 1 FROM agent_runs WHERE run_id = NEW.run_id);
    SELECT RAISE(ABORT, 'ledger:run_not_running')
      WHERE (SELECT terminal_state FROM agent_runs WHERE run_id = NEW.run_id) <> 'running';
    SELECT RAISE(ABORT, 'ledger:duplicate_receipt')
      WHERE EXISTS (SELECT 1 FROM agent_execution_receipts WHERE run_id = NEW.run_id AND call_id = NEW.call_id);
    SELECT RAISE(ABORT, 'ledger:receipt_without_call')
      WHERE NOT EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND json_extract(payload_json, '$.callId') = NEW.call_id);
  END`,
  `CREATE TRIGGER agent_execution_receipts_no_update BEFORE UPDATE ON agent_execution_receipts
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  `CREATE TRIGGER agent_execution_receipts_no_delete BEFORE DELETE ON agent_execution_receipts
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  // Runs: created `running`, changed exactly once to the state its terminal event names.
  `CREATE TRIGGER agent_runs_created_running BEFORE INSERT ON agent_runs
  BEGIN
    SELECT RAISE(ABORT, 'ledger:run_must_start_running') WHERE NEW.terminal_state <> 'running';
  END`,
  `CREATE TRIGGER agent_runs_close_once BEFORE UPDATE ON agent_runs
  BEGIN
    SELECT RAISE(ABORT, 'ledger:run_already_terminal') WHERE OLD.terminal_state <> 'running';
    SELECT RAISE(ABORT, 'ledger:run_update_not_terminal') WHERE NEW.terminal_state = 'running';
    SELECT RAISE(ABORT, 'ledger:run_identity_immutable')
      WHERE NEW.run_id IS NOT OLD.run_id OR NEW.session_id IS NOT OLD.session_id
        OR NEW.started_at IS NOT OLD.started_at OR NEW.trace_id IS NOT OLD.trace_id
        OR NEW.completion_contract_json IS NOT OLD.completion_contract_json;
    SELECT RAISE(ABORT, 'ledger:run_closed_without_terminal_event')
      WHERE COALESCE((SELECT json_extract(payload_json, '$.terminalState') FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type = 'terminal'), '') <> NEW.terminal_state;
  END`,
  `CREATE TRIGGER agent_runs_no_delete BEFORE DELETE ON agent_runs
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
];

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of LEDGER_DDL) yield* sql.unsafe(statement);
});
