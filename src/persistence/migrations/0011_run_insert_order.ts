import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * The order runs were inserted in, under its own name. Runs that start in the same millisecond
 * are listed in the order they were created. SQLite numbers every row of `agent_runs` itself (its
 * rowid), so there is nothing to change there. PostgreSQL's rows have no such number: its 0002
 * gave `agent_runs` an identity column for it, named after SQLite's rowid; here it takes the name
 * of what it is, `insert_order`. The receipts' identity column of 0002 goes: receipts are listed in
 * the order of their calls' events, and every receipt has exactly one such event.
 */
const PG_DDL: ReadonlyArray<string> = [
  "ALTER TABLE agent_runs RENAME COLUMN rowid TO insert_order",
  "ALTER TABLE agent_runs RENAME CONSTRAINT agent_runs_rowid_key TO agent_runs_insert_order_key",
  "ALTER SEQUENCE agent_runs_rowid_seq RENAME TO agent_runs_insert_order_seq",
  "ALTER TABLE agent_execution_receipts DROP COLUMN rowid",
];

/** The migration of each engine (migrations/index.ts and migrations/pg/index.ts pick theirs). */
export default {
  sqlite: Effect.void,
  pg: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    for (const statement of PG_DDL) yield* sql.unsafe(statement);
  }),
} as const;
