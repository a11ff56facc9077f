import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite from "better-sqlite3";
import * as Effect from "effect/Effect";
import { DatabaseError, errorText } from "../../database.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE } from "../../migrations/schemaVersion.js";

/**
 * A SQLite ledger as a file, looked at and copied without an @effect/sql connection: what has to
 * happen before one opens (a connection that may write switches the file to WAL, which writes its
 * header) or beside one (a backup, tidying the -wal/-shm files a reader leaves).
 */

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

/** An existing database that a migration is about to change is copied first. */
export const needsBackup = (inspection: DatabaseInspection): boolean =>
  inspection.exists && inspection.schemaVersion > 0 && inspection.schemaVersion < LATEST_SCHEMA_VERSION;

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

const walCompanions = (filename: string) => [`${filename}-wal`, `${filename}-shm`] as const;

/** Whether the file has a -wal or -shm companion right now. */
export const hasWalCompanions = (filename: string): boolean => walCompanions(filename).some((file) => existsSync(file));

/**
 * A read-only connection to a WAL database creates its -wal and -shm files but, unable to
 * checkpoint, never deletes them. A read-write connection that is the last one to close does, so
 * one is opened (query_only, file must exist) and closed again — and only while the WAL is empty,
 * so there is nothing to checkpoint into the database file. While another process has the database
 * open, SQLite itself leaves the files alone.
 */
export function removeEmptyWalCompanions(filename: string): void {
  const [wal] = walCompanions(filename);
  if (!existsSync(wal) || statSync(wal).size > 0) return;
  try {
    const connection = new BetterSqlite(filename, { fileMustExist: true });
    try {
      connection.pragma("query_only = ON");
      // A read opens the WAL, so closing the connection takes the last-connection path.
      connection.prepare("SELECT COUNT(*) FROM sqlite_master").get();
    } finally {
      connection.close();
    }
  } catch {
    // Tidying is best effort: the reader's own result stands, and leftover empty companions are harmless.
  }
}
