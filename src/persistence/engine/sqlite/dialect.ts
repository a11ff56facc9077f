import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { SQLITE_EVIDENCE_MET } from "../../migrations/0009_tool_starts_and_evidence.js";
import { migrationLoader } from "../../migrations/index.js";
import { type DialectShape, identifier, limitClause } from "../Dialect.js";

/** SQLite's side of the ledger's SQL (see Dialect.ts). */
export const make = (sql: SqlClient.SqlClient): DialectShape => ({
  engine: "sqlite",
  jsonText: (column, key) => sql.unsafe(`json_extract(${identifier(column)}, '$.${identifier(key)}')`),
  jsonTextIfValid: (column, key) =>
    sql.unsafe(
      `(CASE WHEN json_valid(${identifier(column)}) THEN json_extract(${identifier(column)}, '$.${identifier(key)}') END)`,
    ),
  nowMillis: sql.unsafe("(CAST(unixepoch('subsec') * 1000 AS INTEGER))"),
  limit: (n) => limitClause(sql, n),
  tableNames: sql.unsafe("SELECT name FROM sqlite_master WHERE type = 'table'"),
  columnNamesOf: (table) => sql.unsafe(`SELECT name FROM pragma_table_info('${identifier(table)}')`),
  // Every SQLite table without an INTEGER PRIMARY KEY numbers its rows in insertion order.
  runInsertOrder: sql.unsafe("rowid"),
  // One writer holds the whole file for the length of a write transaction.
  locksRows: false,
  lockRows: () => sql.unsafe(""),
  // Nothing listens on a SQLite file: other processes poll.
  notify: () => Effect.void,
  queueJob: undefined,
  evidenceMet: sql.unsafe(SQLITE_EVIDENCE_MET),
  migrations: migrationLoader,
});
