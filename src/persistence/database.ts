import type * as Migrator from "@effect/sql/Migrator";
import type * as SqlError from "@effect/sql/SqlError";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { Dialect } from "./engine/Dialect.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE } from "./migrations/schemaVersion.js";
import * as SqlClient from "./sqlClient.js";
import { loadMigrator } from "./sqlClient.js";

/**
 * The ledger's schema, the same for both engines: which version a database carries, refusing one
 * written by a newer agentloop or one without the run ledger, and migrating — with one wording of
 * each refusal and one mapping of the Migrator's failures, whichever engine holds the database.
 */

export type DatabaseErrorReason =
  | "not_sqlite"
  | "corrupt"
  | "newer_schema"
  | "not_found"
  | "no_ledger"
  | "open_failed"
  | "backup_failed"
  | "migration_failed";

export class DatabaseError extends Data.TaggedError("DatabaseError")<{
  readonly reason: DatabaseErrorReason;
  readonly message: string;
  readonly cause?: unknown;
}> {}

export function errorText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

export interface MigrationReport {
  /** The database as messages name it: the file, or the URL without its password. */
  readonly filename: string;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly applied: ReadonlyArray<string>;
  readonly backupPath: string | null;
}

export type MigrationRecord = Parameters<typeof Migrator.fromRecord>[0];

/** The first schema version with the run ledger (migration 0002). */
export const LEDGER_SCHEMA_VERSION = 2;

/** The recorded schema version over a connection (0 for a database agentloop never migrated). */
export const schemaVersion: Effect.Effect<number, SqlError.SqlError, SqlClient.SqlClient | Dialect> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient;
    const dialect = yield* Dialect;
    const tables = yield* sql<{ name: string }>`${dialect.tableNames}`;
    if (!tables.some((table) => table.name === MIGRATIONS_TABLE)) return 0;
    const rows = yield* sql<{
      version: number | null;
    }>`SELECT MAX(migration_id) AS version FROM ${sql(MIGRATIONS_TABLE)}`;
    return Number(rows[0]?.version ?? 0);
  },
);

/** Refuses a database written by a newer agentloop before anything writes to it. */
export const refuseNewerSchema = (label: string, version: number): Effect.Effect<void, DatabaseError> =>
  version > LATEST_SCHEMA_VERSION
    ? Effect.fail(
        new DatabaseError({
          reason: "newer_schema",
          message: `${label} has schema version ${version}, newer than this agentloop supports (${LATEST_SCHEMA_VERSION}); upgrade agentloop`,
        }),
      )
    : Effect.void;

/** Refuses, for a reader that must not migrate, a database that does not hold the run ledger yet. */
export const requireRunLedger = (label: string, version: number): Effect.Effect<void, DatabaseError> =>
  version < LEDGER_SCHEMA_VERSION
    ? Effect.fail(
        new DatabaseError({
          reason: "no_ledger",
          message: `${label} has no run ledger (schema version ${version}); run agentloop migrate --db ${label}`,
        }),
      )
    : Effect.void;

/** What an SqlError says: the driver's own message when it has one. */
const sqlErrorText = (error: SqlError.SqlError): string =>
  (error.cause as { message?: string } | undefined)?.message || error.message;

const migrationFailed = (detail: string, cause: unknown) =>
  new DatabaseError({ reason: "migration_failed", message: `migration failed: ${detail}`, cause });

/**
 * Brings the database to the latest schema with the engine's migrations. Runs inside the
 * Migrator's single transaction (on PostgreSQL it also locks the migrations table: replicas
 * starting together migrate once), so an interrupted migration leaves the previous version intact
 * and can simply be run again. `migrations` is replaceable only so tests can inject a failing
 * migration. Every failure is a DatabaseError `migration_failed`.
 */
export const runMigrations = (migrations?: MigrationRecord) =>
  Effect.gen(function* () {
    const dialect = yield* Dialect;
    const Migrator = yield* loadMigrator;
    const loader = migrations ? Migrator.fromRecord(migrations) : dialect.migrations;
    const applied = yield* Migrator.make({})({ loader, table: MIGRATIONS_TABLE });
    return applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`);
  }).pipe(
    Effect.catchAllDefect((defect) => Effect.fail(migrationFailed(errorText(defect), defect))),
    Effect.catchTags({
      MigrationError: (error) => Effect.fail(migrationFailed(error.message, error)),
      SqlError: (error) => Effect.fail(migrationFailed(sqlErrorText(error), error)),
    }),
  );

/**
 * Over an open connection: refuses a newer schema (`fromVersion` when the engine read it before
 * connecting, else read here), then migrates. The version it started from and what it applied.
 */
export const migrateSchema = (label: string, options: { fromVersion?: number; migrations?: MigrationRecord } = {}) =>
  Effect.gen(function* () {
    const fromVersion =
      options.fromVersion ??
      (yield* schemaVersion.pipe(Effect.mapError((error) => migrationFailed(sqlErrorText(error), error))));
    yield* refuseNewerSchema(label, fromVersion);
    const applied = yield* runMigrations(options.migrations);
    return { fromVersion, applied };
  });
