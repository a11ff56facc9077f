import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Who drives each open run, so that start-up recovery on a file shared by
 * several processes closes only the runs whose driver is gone. Forward-only: two new tables.
 *
 * - `agent_ledger_owners`: one row per runtime that opened the file for writing — process id,
 *   host, start time, the last heartbeat and the moment its claim lapses (`expires_at`, written by
 *   the owner itself so each owner states its own lease length), `ended_at` on a clean shutdown.
 * - `agent_run_owners`: the owner of each run, written in the same transaction as the run row.
 *   Runs opened before this migration (or by a writer without an owner) have no row and are
 *   recovered as before.
 */
export const RUN_OWNERS_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_ledger_owners (
    owner_id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    ended_at TEXT
  )`,
  `CREATE TABLE agent_run_owners (
    run_id TEXT PRIMARY KEY REFERENCES agent_runs(run_id),
    owner_id TEXT NOT NULL
  )`,
  "CREATE INDEX idx_agent_run_owners_owner ON agent_run_owners(owner_id)",
];

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of RUN_OWNERS_DDL) yield* sql.unsafe(statement);
});
