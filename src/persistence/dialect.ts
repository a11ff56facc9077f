import type { SqlClient } from "@effect/sql";
import type { Fragment } from "@effect/sql/Statement";

/**
 * The few places where the ledger's SQL differs between SQLite and PostgreSQL. The
 * store, recovery and the observability queries are written once over `SqlClient`; what they
 * cannot say portably comes from here, chosen by the client's own dialect.
 *
 * The JSON columns are TEXT in both engines (so rows read back the same way): SQLite reads a
 * field with `json_extract`, PostgreSQL casts to jsonb. Column and key names are this module's
 * callers' constants, never input.
 */

const IDENTIFIER = /^[a-z_][a-z0-9_.]*$/i;

function checked(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not an identifier: ${name}`);
  return name;
}

export const isPostgres = (sql: SqlClient.SqlClient): boolean =>
  sql.onDialectOrElse({ pg: () => true, orElse: () => false });

/** The text of a top-level field of a JSON column (NULL when absent). */
export const jsonText = (sql: SqlClient.SqlClient, column: string, key: string): Fragment =>
  isPostgres(sql)
    ? sql.unsafe(`(${checked(column)}::jsonb ->> '${checked(key)}')`)
    : sql.unsafe(`json_extract(${checked(column)}, '$.${checked(key)}')`);

/** A top-level field of a JSON column that may hold invalid JSON (NULL then). */
export const jsonTextIfValid = (sql: SqlClient.SqlClient, column: string, key: string): Fragment =>
  isPostgres(sql)
    ? // agentloop_jsonb (PostgreSQL migration 0001) answers NULL for text that is not JSON.
      sql.unsafe(`(agentloop_jsonb(${checked(column)}) ->> '${checked(key)}')`)
    : sql.unsafe(
        `(CASE WHEN json_valid(${checked(column)}) THEN json_extract(${checked(column)}, '$.${checked(key)}') END)`,
      );

/** The database's own clock in milliseconds since the epoch: leases are judged on one clock. */
export const nowMillis = (sql: SqlClient.SqlClient): Fragment =>
  isPostgres(sql)
    ? sql.unsafe("(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)")
    : sql.unsafe("(CAST(unixepoch('subsec') * 1000 AS INTEGER))");

/** `LIMIT n`, or nothing for no limit (PostgreSQL refuses SQLite's `LIMIT -1`). */
export const limit = (sql: SqlClient.SqlClient, n: number | undefined): Fragment =>
  n === undefined ? sql.unsafe("") : sql`LIMIT ${n}`;

/** The names of the database's tables (in the current schema), as rows `{ name }`. */
export const tableNames = (sql: SqlClient.SqlClient): Fragment =>
  isPostgres(sql)
    ? sql.unsafe("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()")
    : sql.unsafe("SELECT name FROM sqlite_master WHERE type = 'table'");

/** The column names of one of the ledger's tables, as rows `{ name }`. */
export const columnNamesOf = (sql: SqlClient.SqlClient, table: string): Fragment =>
  isPostgres(sql)
    ? sql.unsafe(
        `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${checked(table)}'`,
      )
    : sql.unsafe(`SELECT name FROM pragma_table_info('${checked(table)}')`);
