import * as Effect from "effect/Effect";
import { MUTATION_EVIDENCE_KEYS } from "../../domain/evidence.js";
import * as SqlClient from "../sqlClient.js";

/**
 * Fenced tool starts and evidence checked by the database, for SQLite and PostgreSQL alike.
 * Forward-only.
 *
 * - `agent_tool_starts`: one row for each time an executor is about to be invoked, written before
 *   it is. A row is accepted only from the holder of the run's current lease epoch while the lease
 *   has not expired, only for a recorded tool_call without a receipt, only once for a call that
 *   may not repeat (a later attempt is refused whatever the writer believes), and only after an
 *   approval when the call asked for one (its own, or one of scope `run` for the tool in this run,
 *   or of scope `session` in this session). A call without a row never started; a call with a row
 *   and no receipt is the one case whose outcome is unknown.
 *   Open runs at the time of this migration get a row for each call that has no receipt: nobody
 *   recorded whether those started, so they are treated as started.
 * - Receipts carry what the evidence check needs, taken from the whole evidence before any payload
 *   cap: the tool's kind, the stable external id (if any) and the evidence keys with a value.
 * - `agent_runs.verification_mode`: the rollout mode the run was driven with. Under `enforce`,
 *   the database refuses a `completed` terminal event and a `completed` run row whose stored
 *   contract the run's receipts do not meet — the same rules as the runtime's verifier
 *   (src/domain/evidence.ts). The mode and the contract cannot change once written.
 */

const MUTATION_KEYS_SQL = MUTATION_EVIDENCE_KEYS.map((key) => `'${key}'`).join(", ");

/** Whether a run meets its stored contract, as an SQLite boolean expression over the run row `r`. */
export const SQLITE_EVIDENCE_MET = `(
  (CASE json_extract(r.completion_contract_json, '$.evidenceMode')
    WHEN 'observe' THEN EXISTS (SELECT 1 FROM agent_execution_receipts x
      WHERE x.run_id = r.run_id AND x.status = 'ok')
    WHEN 'mutate' THEN EXISTS (SELECT 1 FROM agent_execution_receipts x, json_each(x.evidence_keys_json) k
      WHERE x.run_id = r.run_id AND x.status = 'ok' AND x.tool_kind = 'mutate' AND k.value IN (${MUTATION_KEYS_SQL}))
    WHEN 'deliver' THEN EXISTS (SELECT 1 FROM agent_execution_receipts x
      WHERE x.run_id = r.run_id AND x.status = 'ok' AND x.tool_kind = 'deliver' AND x.external_id IS NOT NULL)
    ELSE 1 END)
  AND NOT EXISTS (SELECT 1 FROM json_each(r.completion_contract_json, '$.requiredToolNames') t
    WHERE NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
      WHERE x.run_id = r.run_id AND x.status = 'ok' AND x.tool_name = t.value))
  AND NOT EXISTS (SELECT 1 FROM json_each(r.completion_contract_json, '$.requiredReceiptKinds') w
    WHERE NOT EXISTS (SELECT 1 FROM agent_execution_receipts x, json_each(x.evidence_keys_json) k
      WHERE x.run_id = r.run_id AND x.status = 'ok' AND k.value = w.value))
)`;

/** The same table in both engines. */
const STARTS_TABLE = `CREATE TABLE agent_tool_starts (
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    call_id TEXT NOT NULL,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    tool_name TEXT NOT NULL,
    may_repeat INTEGER NOT NULL CHECK (may_repeat IN (0, 1)),
    lease_epoch INTEGER,
    started_at TEXT NOT NULL,
    PRIMARY KEY (run_id, call_id, attempt)
  )`;

const SQLITE_DDL: ReadonlyArray<string> = [
  STARTS_TABLE,
  // Calls in flight in runs left open by an earlier version: assumed started.
  `INSERT INTO agent_tool_starts (run_id, call_id, attempt, tool_name, may_repeat, lease_epoch, started_at)
    SELECT e.run_id, json_extract(e.payload_json, '$.callId'), 1, COALESCE(json_extract(e.payload_json, '$.toolName'), ''),
      0, (SELECT epoch FROM run_leases l WHERE l.run_id = e.run_id), e.created_at
    FROM agent_run_events e JOIN agent_runs r ON r.run_id = e.run_id
    WHERE r.terminal_state = 'running' AND e.event_type = 'tool_call'
      AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
        WHERE x.run_id = e.run_id AND x.call_id = json_extract(e.payload_json, '$.callId'))`,
  `CREATE TRIGGER agent_tool_starts_guard BEFORE INSERT ON agent_tool_starts
  BEGIN
    SELECT RAISE(ABORT, 'ledger:run_not_running')
      WHERE COALESCE((SELECT terminal_state FROM agent_runs WHERE run_id = NEW.run_id), '') <> 'running';
    SELECT RAISE(ABORT, 'ledger:stale_lease')
      WHERE EXISTS (SELECT 1 FROM run_leases WHERE run_id = NEW.run_id AND epoch IS NOT NEW.lease_epoch);
    SELECT RAISE(ABORT, 'ledger:lease_expired')
      WHERE EXISTS (SELECT 1 FROM run_leases WHERE run_id = NEW.run_id
        AND expires_at < CAST(unixepoch('subsec') * 1000 AS INTEGER));
    SELECT RAISE(ABORT, 'ledger:start_without_call')
      WHERE NOT EXISTS (SELECT 1 FROM agent_run_events
        WHERE run_id = NEW.run_id AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
          AND json_extract(payload_json, '$.callId') = NEW.call_id);
    SELECT RAISE(ABORT, 'ledger:call_already_settled')
      WHERE EXISTS (SELECT 1 FROM agent_execution_receipts WHERE run_id = NEW.run_id AND call_id = NEW.call_id);
    SELECT RAISE(ABORT, 'ledger:already_started')
      WHERE EXISTS (SELECT 1 FROM agent_tool_starts WHERE run_id = NEW.run_id AND call_id = NEW.call_id
        AND (may_repeat = 0 OR NEW.may_repeat = 0 OR attempt >= NEW.attempt));
    SELECT RAISE(ABORT, 'ledger:start_without_approval')
      WHERE EXISTS (SELECT 1 FROM agent_approvals WHERE run_id = NEW.run_id AND call_id = NEW.call_id
        AND kind = 'requested')
        AND NOT EXISTS (SELECT 1 FROM agent_approvals a WHERE a.kind = 'approved' AND (
          (a.run_id = NEW.run_id AND a.call_id = NEW.call_id)
          OR (a.run_id = NEW.run_id AND a.scope = 'run' AND a.tool_name = NEW.tool_name)
          OR (a.scope = 'session' AND a.tool_name = NEW.tool_name AND a.run_id IN (SELECT o.run_id FROM agent_runs o
            WHERE o.session_id = (SELECT session_id FROM agent_runs WHERE run_id = NEW.run_id)))));
  END`,
  `CREATE TRIGGER agent_tool_starts_no_update BEFORE UPDATE ON agent_tool_starts
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  `CREATE TRIGGER agent_tool_starts_no_delete BEFORE DELETE ON agent_tool_starts
  BEGIN SELECT RAISE(ABORT, 'ledger:append_only'); END`,
  "ALTER TABLE agent_execution_receipts ADD COLUMN tool_kind TEXT",
  "ALTER TABLE agent_execution_receipts ADD COLUMN external_id TEXT",
  `ALTER TABLE agent_execution_receipts ADD COLUMN evidence_keys_json TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(evidence_keys_json))`,
  "ALTER TABLE agent_runs ADD COLUMN verification_mode TEXT CHECK (verification_mode IN ('off', 'observe', 'enforce'))",
  `CREATE TRIGGER agent_runs_mode_immutable BEFORE UPDATE OF verification_mode ON agent_runs
  BEGIN
    SELECT RAISE(ABORT, 'ledger:run_identity_immutable') WHERE NEW.verification_mode IS NOT OLD.verification_mode;
  END`,
  `CREATE TRIGGER agent_run_events_evidence BEFORE INSERT ON agent_run_events
  WHEN NEW.event_type = 'terminal' AND json_extract(NEW.payload_json, '$.terminalState') = 'completed'
  BEGIN
    SELECT RAISE(ABORT, 'ledger:completed_without_evidence')
      FROM agent_runs r WHERE r.run_id = NEW.run_id AND r.verification_mode = 'enforce'
        AND NOT ${SQLITE_EVIDENCE_MET};
  END`,
  `CREATE TRIGGER agent_runs_evidence BEFORE UPDATE OF terminal_state ON agent_runs
  WHEN NEW.terminal_state = 'completed'
  BEGIN
    SELECT RAISE(ABORT, 'ledger:completed_without_evidence')
      FROM agent_runs r WHERE r.run_id = NEW.run_id AND NEW.verification_mode = 'enforce'
        AND NOT ${SQLITE_EVIDENCE_MET};
  END`,
];

const PG_DDL: ReadonlyArray<string> = [
  STARTS_TABLE,
  // Calls in flight in runs left open by an earlier version: assumed started.
  `INSERT INTO agent_tool_starts (run_id, call_id, attempt, tool_name, may_repeat, lease_epoch, started_at)
    SELECT e.run_id, e.payload_json::jsonb ->> 'callId', 1, COALESCE(e.payload_json::jsonb ->> 'toolName', ''),
      0, (SELECT epoch FROM run_leases l WHERE l.run_id = e.run_id), e.created_at
    FROM agent_run_events e JOIN agent_runs r ON r.run_id = e.run_id
    WHERE r.terminal_state = 'running' AND e.event_type = 'tool_call'
      AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
        WHERE x.run_id = e.run_id AND x.call_id = e.payload_json::jsonb ->> 'callId')`,
  `CREATE FUNCTION agentloop_tool_starts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    run_state TEXT;
    lease RECORD;
  BEGIN
    SELECT terminal_state INTO run_state FROM agent_runs WHERE run_id = NEW.run_id;
    IF COALESCE(run_state, '') <> 'running' THEN RAISE EXCEPTION 'ledger:run_not_running'; END IF;
    -- Shares the lease row's lock with the appends: a takeover waits for this start to commit,
    -- and a start after a takeover sees the new epoch.
    SELECT epoch, expires_at INTO lease FROM run_leases WHERE run_id = NEW.run_id FOR SHARE;
    IF FOUND THEN
      IF lease.epoch IS DISTINCT FROM NEW.lease_epoch THEN RAISE EXCEPTION 'ledger:stale_lease'; END IF;
      IF lease.expires_at < floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint THEN
        RAISE EXCEPTION 'ledger:lease_expired';
      END IF;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM agent_run_events WHERE run_id = NEW.run_id
        AND event_type IN ('tool_call', 'tool_result') AND event_type = 'tool_call'
        AND (payload_json::jsonb ->> 'callId') = NEW.call_id) THEN
      RAISE EXCEPTION 'ledger:start_without_call';
    END IF;
    IF EXISTS (SELECT 1 FROM agent_execution_receipts WHERE run_id = NEW.run_id AND call_id = NEW.call_id) THEN
      RAISE EXCEPTION 'ledger:call_already_settled';
    END IF;
    IF EXISTS (SELECT 1 FROM agent_tool_starts WHERE run_id = NEW.run_id AND call_id = NEW.call_id
        AND (may_repeat = 0 OR NEW.may_repeat = 0 OR attempt >= NEW.attempt)) THEN
      RAISE EXCEPTION 'ledger:already_started';
    END IF;
    IF EXISTS (SELECT 1 FROM agent_approvals WHERE run_id = NEW.run_id AND call_id = NEW.call_id AND kind = 'requested')
        AND NOT EXISTS (SELECT 1 FROM agent_approvals a WHERE a.kind = 'approved' AND (
          (a.run_id = NEW.run_id AND a.call_id = NEW.call_id)
          OR (a.run_id = NEW.run_id AND a.scope = 'run' AND a.tool_name = NEW.tool_name)
          OR (a.scope = 'session' AND a.tool_name = NEW.tool_name AND a.run_id IN (SELECT o.run_id FROM agent_runs o
            WHERE o.session_id = (SELECT session_id FROM agent_runs WHERE run_id = NEW.run_id))))) THEN
      RAISE EXCEPTION 'ledger:start_without_approval';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_tool_starts_guard BEFORE INSERT ON agent_tool_starts
    FOR EACH ROW EXECUTE FUNCTION agentloop_tool_starts_guard()`,
  `CREATE TRIGGER agent_tool_starts_append_only BEFORE UPDATE OR DELETE ON agent_tool_starts
    FOR EACH ROW EXECUTE FUNCTION agentloop_append_only()`,
  `CREATE TRIGGER agent_tool_starts_no_truncate BEFORE TRUNCATE ON agent_tool_starts
    FOR EACH STATEMENT EXECUTE FUNCTION agentloop_append_only()`,
  "ALTER TABLE agent_execution_receipts ADD COLUMN tool_kind TEXT",
  "ALTER TABLE agent_execution_receipts ADD COLUMN external_id TEXT",
  `ALTER TABLE agent_execution_receipts ADD COLUMN evidence_keys_json TEXT NOT NULL DEFAULT '[]'
    CHECK (evidence_keys_json::jsonb IS NOT NULL)`,
  "ALTER TABLE agent_runs ADD COLUMN verification_mode TEXT CHECK (verification_mode IN ('off', 'observe', 'enforce'))",
  `CREATE FUNCTION agentloop_evidence_met(target TEXT) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
  DECLARE
    contract jsonb;
  BEGIN
    SELECT completion_contract_json::jsonb INTO contract FROM agent_runs WHERE run_id = target;
    IF contract ->> 'evidenceMode' = 'observe' AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
        WHERE x.run_id = target AND x.status = 'ok') THEN
      RETURN false;
    END IF;
    IF contract ->> 'evidenceMode' = 'mutate' AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
        WHERE x.run_id = target AND x.status = 'ok' AND x.tool_kind = 'mutate'
          AND x.evidence_keys_json::jsonb ?| ARRAY[${MUTATION_KEYS_SQL}]) THEN
      RETURN false;
    END IF;
    IF contract ->> 'evidenceMode' = 'deliver' AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
        WHERE x.run_id = target AND x.status = 'ok' AND x.tool_kind = 'deliver' AND x.external_id IS NOT NULL) THEN
      RETURN false;
    END IF;
    IF EXISTS (SELECT 1 FROM jsonb_array_elements_text(COALESCE(contract -> 'requiredToolNames', '[]'::jsonb)) t(name)
        WHERE NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
          WHERE x.run_id = target AND x.status = 'ok' AND x.tool_name = t.name)) THEN
      RETURN false;
    END IF;
    IF EXISTS (SELECT 1 FROM jsonb_array_elements_text(COALESCE(contract -> 'requiredReceiptKinds', '[]'::jsonb)) w(key)
        WHERE NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
          WHERE x.run_id = target AND x.status = 'ok' AND x.evidence_keys_json::jsonb ? w.key)) THEN
      RETURN false;
    END IF;
    RETURN true;
  END $$`,
  `CREATE FUNCTION agentloop_terminal_evidence() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.event_type = 'terminal' AND (NEW.payload_json::jsonb ->> 'terminalState') = 'completed'
        AND EXISTS (SELECT 1 FROM agent_runs WHERE run_id = NEW.run_id AND verification_mode = 'enforce')
        AND NOT agentloop_evidence_met(NEW.run_id) THEN
      RAISE EXCEPTION 'ledger:completed_without_evidence';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_run_events_evidence BEFORE INSERT ON agent_run_events
    FOR EACH ROW EXECUTE FUNCTION agentloop_terminal_evidence()`,
  `CREATE FUNCTION agentloop_run_evidence() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.verification_mode IS DISTINCT FROM OLD.verification_mode THEN
      RAISE EXCEPTION 'ledger:run_identity_immutable';
    END IF;
    IF NEW.terminal_state = 'completed' AND NEW.verification_mode = 'enforce'
        AND NOT agentloop_evidence_met(NEW.run_id) THEN
      RAISE EXCEPTION 'ledger:completed_without_evidence';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER agent_runs_evidence BEFORE UPDATE ON agent_runs
    FOR EACH ROW EXECUTE FUNCTION agentloop_run_evidence()`,
];

export const TOOL_STARTS_DDL = { sqlite: SQLITE_DDL, pg: PG_DDL } as const;

const run = (statements: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    for (const statement of statements) yield* sql.unsafe(statement);
  });

/** The migration of each engine (migrations/index.ts and migrations/pg/index.ts pick theirs). */
export default { sqlite: run(SQLITE_DDL), pg: run(PG_DDL) } as const;
