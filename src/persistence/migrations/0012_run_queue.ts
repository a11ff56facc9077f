import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Runs waiting for a worker, and cancels asked for from any process. `enqueueRun` writes a run's row, its first event and its place in
 * this queue in one transaction and returns; a runtime with a worker takes the run's lease (the
 * lease, not the queue row, says who drives a run) and removes the row. Each run also names the
 * agent it was started with, so whichever replica drives it — the worker that picks it up, or one
 * that takes it over later — builds it from the same named definition.
 */
const DDL: ReadonlyArray<string> = [
  "ALTER TABLE agent_runs ADD COLUMN agent_name TEXT",
  `CREATE TABLE agent_run_queue (
    run_id TEXT PRIMARY KEY REFERENCES agent_runs(run_id),
    agent_name TEXT NOT NULL,
    enqueued_at TEXT NOT NULL
  )`,
  "CREATE INDEX idx_agent_run_queue_by_age ON agent_run_queue (enqueued_at, run_id)",
  // A cancel asked for by any process: the runtime driving the run (or the next one to take it
  // over) reads it and cancels; one request per run, the first one stands.
  `CREATE TABLE agent_run_cancel_requests (
    run_id TEXT PRIMARY KEY REFERENCES agent_runs(run_id),
    requested_by TEXT NOT NULL,
    requested_at TEXT NOT NULL
  )`,
  "CREATE INDEX idx_agent_run_cancel_requests_at ON agent_run_cancel_requests (requested_at)",
];

const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of DDL) yield* sql.unsafe(statement);
});

/** The same statements on both engines (migrations/index.ts and migrations/pg/index.ts). */
export default { sqlite: migrate, pg: migrate } as const;
