import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Migrator, SqlClient } from "@effect/sql";
import BetterSqlite from "better-sqlite3";
import { Data, Effect } from "effect";
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE, migrationLoader } from "./migrations/index.js";
import * as Sqlite from "./sqlite.js";

export type DatabaseErrorReason =
  | "not_sqlite"
  | "corrupt"
  | "newer_schema"
  | "not_found"
  | "open_failed"
  | "backup_failed"
  | "migration_failed";

export class DatabaseError extends Data.TaggedError("DatabaseError")<{
  readonly reason: DatabaseErrorReason;
  readonly message: string;
  readonly cause?: unknown;
}> {}

export const MEMORY_DB = ":memory:";
const SQLITE_HEADER = "SQLite format 3\u0000";

export interface DatabaseInspection {
  readonly filename: string;
  readonly exists: boolean;
  /** 0 for a new/empty database, 1 for a host database that predates agentloop, else the recorded migration id. */
  readonly schemaVersion: number;
}

function readHeader(filename: string): string {
  const fd = openSync(filename, "r");
  try {
    const buffer = Buffer.alloc(16);
    const read = readSync(fd, buffer, 0, 16, 0);
    return buffer.subarray(0, read).toString("latin1");
  } finally {
    closeSync(fd);
  }
}

function errorText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Looks at a database file without changing it: is it SQLite, is it readable, which schema
 * version does it carry. Every refusal is a DatabaseError with a one-line message.
 */
export const inspectDatabase = (filename: string): Effect.Effect<DatabaseInspection, DatabaseError> =>
  Effect.try({
    try: (): DatabaseInspection => {
      if (filename !== MEMORY_DB && !existsSync(dirname(resolve(filename)))) {
        throw new DatabaseError({ reason: "not_found", message: `the directory of ${filename} does not exist` });
      }
      if (filename === MEMORY_DB || !existsSync(filename) || statSync(filename).size === 0) {
        return { filename, exists: false, schemaVersion: 0 };
      }
      if (statSync(filename).isDirectory()) {
        throw new DatabaseError({ reason: "not_sqlite", message: `${filename} is a directory, not a SQLite database` });
      }
      if (readHeader(filename) !== SQLITE_HEADER) {
        throw new DatabaseError({ reason: "not_sqlite", message: `${filename} is not a SQLite database` });
      }
      let db: BetterSqlite.Database | undefined;
      try {
        db = new BetterSqlite(filename, { readonly: true, fileMustExist: true });
        const tables = new Set(
          (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
            (row) => row.name,
          ),
        );
        let schemaVersion = 0;
        if (tables.has(MIGRATIONS_TABLE)) {
          const row = db.prepare(`SELECT MAX(migration_id) AS version FROM ${MIGRATIONS_TABLE}`).get() as {
            version: number | null;
          };
          schemaVersion = row.version ?? 0;
        }
        // A host database, or one whose first migration was interrupted (the migrations table is
        // created outside the migration transaction, so it can exist and be empty).
        if (schemaVersion === 0 && tables.has("memory_turns")) {
          schemaVersion = 1;
        }
        return { filename, exists: true, schemaVersion };
      } catch (cause) {
        throw new DatabaseError({
          reason: "corrupt",
          message: `${filename} cannot be read as a SQLite database: ${errorText(cause)}`,
          cause,
        });
      } finally {
        db?.close();
      }
    },
    catch: (cause) =>
      cause instanceof DatabaseError
        ? cause
        : new DatabaseError({ reason: "open_failed", message: `cannot open ${filename}: ${errorText(cause)}`, cause }),
  });

/** Refuses a database written by a newer agentloop before anything opens it for writing. */
export const assertSupportedVersion = (inspection: DatabaseInspection) =>
  inspection.schemaVersion > LATEST_SCHEMA_VERSION
    ? Effect.fail(
        new DatabaseError({
          reason: "newer_schema",
          message: `${inspection.filename} has schema version ${inspection.schemaVersion}, newer than this agentloop supports (${LATEST_SCHEMA_VERSION}); upgrade agentloop`,
        }),
      )
    : Effect.void;

export function backupPath(filename: string, from: number, to: number, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const base = `${filename}.bak-${from}-${to}-${stamp}`;
  // A retry within the same second (after a failed migration) must not collide with the first backup.
  let candidate = base;
  for (let n = 2; existsSync(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

/** A consistent copy through SQLite's own `VACUUM INTO`, taken from a read-only connection. */
export const backupDatabase = (filename: string, destination: string) =>
  Effect.try({
    try: () => {
      const db = new BetterSqlite(filename, { readonly: true, fileMustExist: true });
      try {
        db.prepare("VACUUM INTO ?").run(destination);
      } finally {
        db.close();
      }
      return destination;
    },
    catch: (cause) =>
      new DatabaseError({
        reason: "backup_failed",
        message: `backup of ${filename} failed: ${errorText(cause)}`,
        cause,
      }),
  });

export const LATEST_VERSION_CHECK = {
  latest: LATEST_SCHEMA_VERSION,
  /** An existing database that a migration is about to change is copied first. */
  needsBackup: (inspection: DatabaseInspection) =>
    inspection.exists && inspection.schemaVersion > 0 && inspection.schemaVersion < LATEST_SCHEMA_VERSION,
} as const;

export interface MigrationReport {
  readonly filename: string;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly applied: ReadonlyArray<string>;
  readonly backupPath: string | null;
}

type MigrationRecord = Parameters<typeof Migrator.fromRecord>[0];

/**
 * Brings the database to the latest schema. Runs inside the Migrator's single transaction, so an
 * interrupted migration leaves the previous version intact and can simply be run again.
 * `migrations` is replaceable only so tests can inject a failing migration.
 */
export const runMigrations = (migrations?: MigrationRecord) =>
  Effect.gen(function* () {
    const loader = migrations ? Migrator.fromRecord(migrations) : migrationLoader;
    const applied = yield* Migrator.make({})({ loader, table: MIGRATIONS_TABLE }).pipe(
      Effect.catchAllDefect((defect) =>
        Effect.fail(
          new DatabaseError({
            reason: "migration_failed",
            message: `migration failed: ${errorText(defect)}`,
            cause: defect,
          }),
        ),
      ),
      Effect.catchTags({
        MigrationError: (error) =>
          Effect.fail(
            new DatabaseError({
              reason: "migration_failed",
              message: `migration failed: ${error.message}`,
              cause: error,
            }),
          ),
        SqlError: (error) =>
          Effect.fail(
            new DatabaseError({
              reason: "migration_failed",
              message: `migration failed: ${errorText(error.cause)}`,
              cause: error,
            }),
          ),
      }),
    );
    return applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`);
  });

export const currentSchemaVersion = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  const rows = yield* sql<{
    version: number | null;
  }>`SELECT MAX(migration_id) AS version FROM ${sql(MIGRATIONS_TABLE)}`;
  return rows[0]?.version ?? 0;
}).pipe(Effect.orDie);

/**
 * Inspects, backs up (when an existing file will change) and migrates `filename`.
 * Provides its own connection; the database stays closed afterwards.
 */
export const migrateDatabase = (filename: string, options: { migrations?: MigrationRecord; now?: Date } = {}) =>
  Effect.gen(function* () {
    const inspection = yield* inspectDatabase(filename);
    yield* assertSupportedVersion(inspection);
    const backup = LATEST_VERSION_CHECK.needsBackup(inspection)
      ? yield* backupDatabase(
          filename,
          backupPath(filename, inspection.schemaVersion, LATEST_SCHEMA_VERSION, options.now),
        )
      : null;
    const { applied, toVersion } = yield* Effect.gen(function* () {
      const applied = yield* runMigrations(options.migrations);
      return { applied, toVersion: yield* currentSchemaVersion };
    }).pipe(Effect.provide(Sqlite.layer({ filename })));
    const report: MigrationReport = {
      filename,
      fromVersion: inspection.schemaVersion,
      toVersion,
      applied,
      backupPath: backup,
    };
    return report;
  });
