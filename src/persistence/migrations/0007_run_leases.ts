import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Run leases with fencing, for SQLite and PostgreSQL alike. Forward-only: one table,
 * one nullable column on the events and the receipts, and a fencing check on their inserts.
 *
 * - `run_leases`: who drives each open run (`owner_id`, a row of `agent_ledger_owners`), until
 *   when (`expires_at`, milliseconds on the database's clock, pushed forward by the owner's
 *   heartbeat) and the lease's `epoch`, raised by one at every takeover.
 * - Every event and receipt a lease holder writes carries its `lease_epoch`; the database refuses
 *   one whose epoch is not the run's current one (`ledger:stale_lease`), so a replica that lost
 *   its lease can never write into a run another replica took over. Runs without a lease row (a
 *   writer without an owner, runs from before this migration) are not fenced.
 * - PostgreSQL locks the lease row while it checks (FOR SHARE): a takeover waits for appends in
 *   flight to commit, and every append after it sees the new epoch.
 */
const SQLITE_DDL: ReadonlyArray<string> = [
  `CREATE TABLE run_leases (
    run_id TEXT PRIMARY KEY REFERENCES agent_runs(run_id),
    owner_id TEXT NOT NULL,
    epoch INTEGER NOT NULL CHECK (epoch >= 1),
    expires_at INTEGER NOT NULL
  )`,
  "CREATE INDEX idx_run_leases_owner ON run_leases(owner_id)",
  "ALTER TABLE agent_run_events ADD COLUMN lease_epoch INTEGER",
  "ALTER TABLE agent_execution_receipts ADD COLUMN lease_epoch INTEGER",
  `CREATE TRIGGER agent_run_events_fenced BEFORE INSERT ON agent_run_events
  BEGIN
    SELECT RAISE(ABORT, 'ledger:stale_lease')
      WHERE EXISTS (SELECT 1 FROM run_leases WHERE run_id = NEW.run_id AND epoch IS NOT NEW.lease_epoch);
  END`,
  `CREATE TRIGGER agent_execution_receipts_fenced BEFORE INSERT ON agent_execution_receipts
  BEGIN
    SELECT RAISE(ABORT, 'ledger:stale_lease')
      WHERE EXISTS (SELECT 1 FROM run_leases WHERE run_id = NEW.run_id AND epoch IS NOT NEW.lease_epoch);
  END`,
];

const PG_DDL: ReadonlyArray<string> = [
  `CREATE TABLE run_leases (
    run_id TEXT PRIMARY KEY REFERENCES agent_runs(run_id),
    owner_id TEXT NOT NULL,
    epoch INTEGER NOT NULL CHECK (epoch >= 1),
    expires_at BIGINT NOT NULL
  )`,
  "CREATE INDEX idx_run_leases_owner ON run_leases(owner_id)",
  "CREATE INDEX idx_run_leases_expiry ON run_leases(expires_at)",
  "ALTER TABLE agent_run_events ADD COLUMN lease_epoch INTEGER",
  "ALTER TABLE agent_execution_receipts ADD COLUMN lease_epoch INTEGER",
  `CREATE FUNCTION agentloop_fenced() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    current_epoch INTEGER;
  BEGIN
    SELECT epoch INTO current_epoch FROM run_leases WHERE run_id = NEW.run_id FOR SHARE;
    IF FOUND AND current_epoch IS DISTINCT FROM NEW.lease_epoch THEN
      RAISE EXCEPTION 'ledger:stale_lease';
    END IF;
    RETURN NEW;
  END $$`,
  // Named to sort before the guards: PostgreSQL fires a table's triggers in name order.
  `CREATE TRIGGER agent_run_events_fenced BEFORE INSERT ON agent_run_events
    FOR EACH ROW EXECUTE FUNCTION agentloop_fenced()`,
  `CREATE TRIGGER agent_execution_receipts_fenced BEFORE INSERT ON agent_execution_receipts
    FOR EACH ROW EXECUTE FUNCTION agentloop_fenced()`,
];

export const RUN_LEASES_DDL = { sqlite: SQLITE_DDL, pg: PG_DDL } as const;

const run = (statements: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    for (const statement of statements) yield* sql.unsafe(statement);
  });

/** The migration of each engine (migrations/index.ts and migrations/pg/index.ts pick theirs). */
export default { sqlite: run(SQLITE_DDL), pg: run(PG_DDL) } as const;
