import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Ledger checks that cost the same whatever the length of the run (forward-only; 0002 stays as it
 * was written).
 *
 * - `agent_runs_close_once` looked the run's terminal event up by `run_id` and `event_type`
 *   through the (run_id, sequence) index: a range over every event of the run, so closing a run of
 *   9,100 events took ~35× longer than one of a single event. A unique partial index of terminal
 *   events makes it one index lookup (and states in the schema that a run has at most one
 *   terminal event). The trigger's text is unchanged: the planner takes the new index for it.
 * - The insert guards no longer repeat what the schema enforces itself: an event or a receipt of
 *   an unknown run is refused by the FOREIGN KEY (`run_id REFERENCES agent_runs`), a duplicate
 *   (run_id, sequence) by the events' UNIQUE constraint, a second receipt of a call by the
 *   receipts' UNIQUE (run_id, call_id). The writer maps those constraint errors onto the same
 *   LedgerError reasons (`unknown_run`, `duplicate_sequence`, `duplicate_receipt`). So that a
 *   duplicate sequence still reaches its constraint, `sequence_gap` now refuses only a sequence
 *   beyond the next one (a smaller one already exists: sequences start at 1 and have no gaps).
 *   The receipts' `unknown_run` check stays: every receipt of an unknown run also lacks its
 *   tool_call, and the trigger's `receipt_without_call` would otherwise answer first.
 *
 * The foreign keys are enforced on connections with `PRAGMA foreign_keys = ON` — every agentloop
 * connection (see engine/sqlite/client.ts) and better-sqlite3's default; the sqlite3 shell needs the pragma.
 */
export const LEDGER_EXACT_CHECKS_DDL: ReadonlyArray<string> = [
  `CREATE UNIQUE INDEX idx_agent_run_events_terminal ON agent_run_events(run_id) WHERE event_type = 'terminal'`,
  "DROP TRIGGER agent_runs_close_once",
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
  "DROP TRIGGER agent_run_events_guard",
  `CREATE TRIGGER agent_run_events_guard BEFORE INSERT ON agent_run_events
  BEGIN
    SELECT RAISE(ABORT, 'ledger:run_not_running')
      WHERE (SELECT terminal_state FROM agent_runs WHERE run_id = NEW.run_id) <> 'running';
    SELECT RAISE(ABORT, 'ledger:sequence_gap')
      WHERE NEW.sequence > 1 + COALESCE((SELECT MAX(sequence) FROM agent_run_events WHERE run_id = NEW.run_id), 0);
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
  "DROP TRIGGER agent_execution_receipts_guard",
  `CREATE TRIGGER agent_execution_receipts_guard BEFORE INSERT ON agent_execution_receipts
  BEGIN
    SELECT RAISE(ABORT, 'ledger:unknown_run')
      WHERE NOT EXISTS (SELECT 1 FROM agent_runs WHERE run_id = NEW.run_id);
    SELECT RAISE(ABORT, 'ledger:run_not_running')
      WHERE (SELECT terminal_state FROM agent_runs WHERE run_id = NEW.run_id) <> 'running';
    SELECT RAISE(ABORT, 'ledger:receipt_without_call')
      WHERE NOT EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND json_extract(payload_json, '$.callId') = NEW.call_id);
  END`,
];

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of LEDGER_EXACT_CHECKS_DDL) yield* sql.unsafe(statement);
});
