import type * as Migrator from "@effect/sql/Migrator";
import type * as SqlClient from "@effect/sql/SqlClient";
import type * as SqlError from "@effect/sql/SqlError";
import type { Fragment } from "@effect/sql/Statement";
import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";

/**
 * The few places where the ledger's SQL differs between SQLite and PostgreSQL. The store, recovery,
 * the leases and the read queries are written once over `SqlClient`; what they cannot say portably
 * they take from this service. Each engine's connection layer provides it beside its client, so the
 * engine is decided once — from the database's name, when the ledger is opened — and nothing asks
 * the client which dialect it speaks.
 *
 * The JSON columns are TEXT in both engines (so rows read back the same way): SQLite reads a field
 * with `json_extract`, PostgreSQL casts to jsonb. Column and key names are the callers' constants,
 * never input; they are checked to be plain identifiers all the same.
 */

export type EngineName = "sqlite" | "postgres";

export interface DialectShape {
  readonly engine: EngineName;
  /** The text of a top-level field of a JSON column (NULL when absent). */
  readonly jsonText: (column: string, key: string) => Fragment;
  /** A top-level field of a JSON column that may hold invalid JSON (NULL then). */
  readonly jsonTextIfValid: (column: string, key: string) => Fragment;
  /** The database's own clock in milliseconds since the epoch: leases are judged on one clock. */
  readonly nowMillis: Fragment;
  /** `LIMIT n`, or nothing for no limit (PostgreSQL refuses SQLite's `LIMIT -1`). */
  readonly limit: (n: number | undefined) => Fragment;
  /** The names of the database's tables (in the current schema), as rows `{ name }`. */
  readonly tableNames: Fragment;
  /** The column names of one of the ledger's tables, as rows `{ name }`. */
  readonly columnNamesOf: (table: string) => Fragment;
  /**
   * The order in which `agent_runs` rows were inserted: what tells apart runs that started in the
   * same millisecond. SQLite's own rowid; on PostgreSQL an identity column kept for it.
   */
  readonly runInsertOrder: Fragment;
  /**
   * Whether a SELECT can lock the rows it reads until the transaction ends. PostgreSQL can (and a
   * locked row may then be skipped); SQLite has one writer for the whole file, so it need not.
   */
  readonly locksRows: boolean;
  /** `FOR UPDATE` (or `FOR UPDATE SKIP LOCKED`) where rows can be locked; nothing on SQLite. */
  readonly lockRows: (skipLocked: boolean) => Fragment;
  /** Tells listeners of `channel` on other connections (PostgreSQL NOTIFY); nothing where none can listen. */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError.SqlError>;
  /**
   * Whether the receipts of the run `r` (an `agent_runs` row under that alias) meet its stored
   * contract: the very check the triggers apply to a `completed` terminal (migration 0009).
   */
  readonly evidenceMet: Fragment;
  /**
   * The statement that hands a queued run to the engine's job system in the transaction that
   * queues it (PostgreSQL: a graphile-worker job keyed by the run, which wakes a worker at once);
   * undefined where workers look at the queue themselves (SQLite).
   */
  readonly queueJob: ((runId: string) => Effect.Effect<unknown, SqlError.SqlError>) | undefined;
  /** The engine's migrations (one numbering for both engines: one version means the same tables). */
  readonly migrations: Migrator.Loader;
}

export class Dialect extends Context.Tag("agentloop/Dialect")<Dialect, DialectShape>() {}

const IDENTIFIER = /^[a-z_][a-z0-9_.]*$/i;

/** A column, key or table name the dialects splice into SQL: a plain identifier or a refusal. */
export function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not an identifier: ${name}`);
  return name;
}

/** `LIMIT n`, or an empty fragment: the same in both engines. */
export const limitClause = (sql: SqlClient.SqlClient, n: number | undefined): Fragment =>
  n === undefined ? sql.unsafe("") : sql`LIMIT ${n}`;
