import { Migrator, SqlClient } from "@effect/sql";
import * as PgClient from "@effect/sql-pg/PgClient";
import { Effect, Layer, Redacted } from "effect";
import Pg from "pg";
import { DatabaseError, type MigrationReport } from "./database.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE } from "./migrations/index.js";
import { pgMigrationLoader } from "./migrations/pg/index.js";

/**
 * The ledger on PostgreSQL, reached through @effect/sql-pg's `PgClient` — the same
 * `SqlClient` interface the SQLite ledger speaks, so the store, the writer and recovery are the
 * same code. A database is named by URL (`postgres://…` or `postgresql://…`); everything else
 * agentloop opens is a SQLite file.
 */

export const isPostgresUrl = (database: string): boolean => /^postgres(ql)?:\/\//i.test(database);

/** The URL without its password, for messages and logs. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

/** int8 (COUNT, SUM, identities) and numeric arrive as strings from `pg`: the ledger's are small integers. */
const NUMBER_TYPES = new Set<number>([Pg.types.builtins.INT8, Pg.types.builtins.NUMERIC]);
const types: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    NUMBER_TYPES.has(oid)
      ? (value: string) => Number(value)
      : Pg.types.getTypeParser(oid, format ?? "text")) as Pg.CustomTypesConfig["getTypeParser"],
};

export interface PostgresOptions {
  readonly url: string;
  /** Every transaction read-only (inspection commands): the server refuses writes. */
  readonly readonly?: boolean;
  readonly maxConnections?: number;
}

function connectionUrl(options: PostgresOptions): string {
  if (!options.readonly) return options.url;
  const url = new URL(options.url);
  const existing = url.searchParams.get("options");
  url.searchParams.set("options", `${existing ? `${existing} ` : ""}-c default_transaction_read_only=on`);
  return url.toString();
}

/** SqlClient (and PgClient) over `url`; a server that cannot be reached is a DatabaseError. */
export const layer = (options: PostgresOptions): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, DatabaseError> =>
  PgClient.layer({
    url: Redacted.make(connectionUrl(options)),
    types,
    maxConnections: options.maxConnections ?? 10,
    connectTimeout: "10 seconds",
    applicationName: "agentloop",
  }).pipe(
    Layer.mapError(
      (error) =>
        new DatabaseError({
          reason: "open_failed",
          message: `cannot connect to ${displayUrl(options.url)}: ${causeText(error)}`,
          cause: error,
        }),
    ),
  );

function causeText(error: { message: string; cause?: unknown }): string {
  const cause = error.cause as { message?: string } | undefined;
  return cause?.message || error.message;
}

/** The recorded schema version (0 for a database agentloop never migrated). */
export const schemaVersion = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  const table = yield* sql<{ present: string | null }>`SELECT to_regclass(${MIGRATIONS_TABLE}) AS present`;
  if (!table[0]?.present) return 0;
  const rows = yield* sql<{
    version: number | null;
  }>`SELECT MAX(migration_id) AS version FROM ${sql(MIGRATIONS_TABLE)}`;
  return rows[0]?.version ?? 0;
});

/**
 * Brings the database to the latest schema in the Migrator's transaction (which locks the
 * migrations table: replicas starting together migrate once). A newer schema is refused.
 */
export const migrate = (url: string) =>
  Effect.gen(function* () {
    const fromVersion = yield* schemaVersion;
    if (fromVersion > LATEST_SCHEMA_VERSION) {
      return yield* Effect.fail(
        new DatabaseError({
          reason: "newer_schema",
          message: `${displayUrl(url)} has schema version ${fromVersion}, newer than this agentloop supports (${LATEST_SCHEMA_VERSION}); upgrade agentloop`,
        }),
      );
    }
    const applied = yield* Migrator.make({})({ loader: pgMigrationLoader, table: MIGRATIONS_TABLE });
    const report: MigrationReport = {
      filename: displayUrl(url),
      fromVersion,
      toVersion: yield* schemaVersion,
      applied: applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`),
      backupPath: null,
    };
    return report;
  }).pipe(
    Effect.catchTags({
      MigrationError: (error) =>
        Effect.fail(new DatabaseError({ reason: "migration_failed", message: `migration failed: ${error.message}` })),
      SqlError: (error) =>
        Effect.fail(
          new DatabaseError({
            reason: "migration_failed",
            message: `migration failed: ${causeText(error)}`,
            cause: error,
          }),
        ),
    }),
  );
