import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { pgMigrationLoader } from "../../migrations/pg/index.js";
import { type DialectShape, identifier, limitClause } from "../Dialect.js";
import { RUN_JOB_TASK } from "./jobs.js";

/** PostgreSQL's side of the ledger's SQL (see Dialect.ts). */
export const make = (sql: SqlClient.SqlClient): DialectShape => ({
  engine: "postgres",
  jsonText: (column, key) => sql.unsafe(`(${identifier(column)}::jsonb ->> '${identifier(key)}')`),
  // agentloop_jsonb (PostgreSQL migration 0001) answers NULL for text that is not JSON.
  jsonTextIfValid: (column, key) => sql.unsafe(`(agentloop_jsonb(${identifier(column)}) ->> '${identifier(key)}')`),
  nowMillis: sql.unsafe("(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)"),
  limit: (n) => limitClause(sql, n),
  tableNames: sql.unsafe(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()",
  ),
  columnNamesOf: (table) =>
    sql.unsafe(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${identifier(table)}'`,
    ),
  // The identity column migration 0011 keeps for it (PostgreSQL rows have no insertion number of their own).
  runInsertOrder: sql.unsafe("insert_order"),
  locksRows: true,
  lockRows: (skipLocked) => sql.unsafe(skipLocked ? "FOR UPDATE SKIP LOCKED" : "FOR UPDATE"),
  notify: (channel, payload) => Effect.asVoid(sql`SELECT pg_notify(${channel}, ${payload})`),
  // The job says only which run: the queue row and the run's lease stay the truth of who drives it.
  queueJob: (runId) =>
    sql`SELECT graphile_worker.add_job(${RUN_JOB_TASK}, json_build_object('runId', ${runId}::text), job_key => ${runId}::text)`,
  evidenceMet: sql.unsafe("agentloop_evidence_met(r.run_id)"),
  migrations: pgMigrationLoader,
});
