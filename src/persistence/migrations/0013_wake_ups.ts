import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Wake-ups written by the database itself, in the transaction of the row that calls for them, so
 * no writer can forget one (PostgreSQL only; SQLite keeps its short polls and gets no statements).
 *
 * - A lease taken or renewed schedules a graphile-worker job due when the lease expires, keyed by
 *   the run (`agentloop_lease:<run>`, mode `replace`: a renewal moves the pending job's `run_at`
 *   later; a job already running keeps going and the renewal adds a new one). A supervisor's job
 *   runner takes the run over when the job is due — through the lease's compare-and-set, so a job
 *   never decides who drives a run.
 * - An approval request schedules a job due when the request expires (`agentloop_approval:<run>:<call>`).
 * - A run that ends removes its pending jobs.
 * - Appended ledger rows NOTIFY `agentloop_ledger_appended` with the run and its last sequence
 *   (once per run and statement), and a new run NOTIFYs with sequence 0: live views catch up by
 *   sequence from there.
 *
 * The jobs are only written once graphile-worker's schema is there (it is installed by the first
 * runtime that queues a run or supervises): a ledger that never uses the job system never gets it,
 * and a lease renewed after the schema appears gets its job at that renewal.
 */

/** The job due when a run's lease expires (payload `{ runId }`). */
export const LEASE_EXPIRY_TASK = "agentloop_lease_expiry";
/** The job due when an approval request expires (payload `{ runId, callId }`). */
export const APPROVAL_EXPIRY_TASK = "agentloop_approval_expiry";
/** The channel of ledger appends (payload `{"runId": …, "sequence": …}`). */
export const LEDGER_APPENDED_CHANNEL = "agentloop_ledger_appended";

const JOBS_INSTALLED = "to_regclass('graphile_worker._private_jobs') IS NOT NULL";

const PG_DDL: ReadonlyArray<string> = [
  `CREATE FUNCTION agentloop_lease_expiry_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT (${JOBS_INSTALLED}) THEN RETURN NULL; END IF;
    -- Only open runs: a lease row outlives its run, and its owner's renewals need no job.
    IF NOT EXISTS (SELECT 1 FROM leased l JOIN agent_runs r ON r.run_id = l.run_id
      WHERE r.terminal_state = 'running') THEN RETURN NULL; END IF;
    -- Due one millisecond after the expiry: the takeover's check (expires_at < now) then holds.
    PERFORM graphile_worker.add_jobs(ARRAY(
      SELECT ROW('${LEASE_EXPIRY_TASK}', json_build_object('runId', l.run_id), NULL,
        to_timestamp((l.expires_at + 1) / 1000.0), NULL, 'agentloop_lease:' || l.run_id, NULL, NULL
      )::graphile_worker.job_spec
      FROM leased l JOIN agent_runs r ON r.run_id = l.run_id WHERE r.terminal_state = 'running'));
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER run_leases_taken_jobs AFTER INSERT ON run_leases
    REFERENCING NEW TABLE AS leased FOR EACH STATEMENT EXECUTE FUNCTION agentloop_lease_expiry_jobs()`,
  `CREATE TRIGGER run_leases_renewed_jobs AFTER UPDATE ON run_leases
    REFERENCING NEW TABLE AS leased FOR EACH STATEMENT EXECUTE FUNCTION agentloop_lease_expiry_jobs()`,
  `CREATE FUNCTION agentloop_approval_expiry_job() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT (${JOBS_INSTALLED}) THEN RETURN NULL; END IF;
    PERFORM graphile_worker.add_job('${APPROVAL_EXPIRY_TASK}',
      json_build_object('runId', NEW.run_id, 'callId', NEW.call_id),
      run_at => NEW.created_at::timestamptz + make_interval(secs =>
        COALESCE((agentloop_jsonb(NEW.payload_json) ->> 'timeoutMs')::double precision, 0) / 1000.0),
      job_key => 'agentloop_approval:' || NEW.run_id || ':' || NEW.call_id);
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER agent_approvals_expiry_job AFTER INSERT ON agent_approvals
    FOR EACH ROW WHEN (NEW.kind = 'requested') EXECUTE FUNCTION agentloop_approval_expiry_job()`,
  `CREATE FUNCTION agentloop_run_ended_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT (${JOBS_INSTALLED}) THEN RETURN NULL; END IF;
    PERFORM graphile_worker.remove_job('agentloop_lease:' || NEW.run_id);
    PERFORM graphile_worker.remove_job('agentloop_approval:' || a.run_id || ':' || a.call_id)
      FROM agent_approvals a WHERE a.run_id = NEW.run_id AND a.kind = 'requested';
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER agent_runs_ended_jobs AFTER UPDATE OF terminal_state ON agent_runs
    FOR EACH ROW WHEN (OLD.terminal_state = 'running' AND NEW.terminal_state <> 'running')
    EXECUTE FUNCTION agentloop_run_ended_jobs()`,
  `CREATE FUNCTION agentloop_ledger_appended() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    appended RECORD;
  BEGIN
    FOR appended IN SELECT run_id, MAX(sequence) AS sequence FROM new_events GROUP BY run_id ORDER BY run_id LOOP
      PERFORM pg_notify('${LEDGER_APPENDED_CHANNEL}',
        json_build_object('runId', appended.run_id, 'sequence', appended.sequence)::text);
    END LOOP;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER agent_run_events_appended AFTER INSERT ON agent_run_events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION agentloop_ledger_appended()`,
  `CREATE FUNCTION agentloop_run_created() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    created RECORD;
  BEGIN
    FOR created IN SELECT run_id FROM new_runs ORDER BY run_id LOOP
      PERFORM pg_notify('${LEDGER_APPENDED_CHANNEL}', json_build_object('runId', created.run_id, 'sequence', 0)::text);
    END LOOP;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER agent_runs_created AFTER INSERT ON agent_runs
    REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION agentloop_run_created()`,
];

const pg = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of PG_DDL) yield* sql.unsafe(statement);
});

/** PostgreSQL's statements; SQLite has nothing to announce with, and keeps the version in step. */
export default { sqlite: Effect.void, pg } as const;
