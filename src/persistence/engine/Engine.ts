import type * as SqlClient from "@effect/sql/SqlClient";
import type * as Effect from "effect/Effect";
import type * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import type { DatabaseError } from "../database.js";
import type { LedgerSignals } from "../ledgerSignals.js";
import type { Dialect, EngineName } from "./Dialect.js";
import * as PostgresEngine from "./postgres/engine.js";
import * as SqliteEngine from "./sqlite/engine.js";

/**
 * Everything about a ledger that depends on the engine holding it, for `ledger.ts` to open it
 * the same way whichever it is. The engine is decided here, once, from the database's name: a
 * `postgres://` (or `postgresql://`) URL is PostgreSQL, anything else a SQLite file (or `:memory:`).
 */

/** A run's last durable ledger sequence, read synchronously (the report's events per state). */
export interface LedgerWatermark {
  readonly read: (runId: string) => number | undefined;
  readonly close: () => void;
}

export interface ConnectOptions {
  /** A connection that never writes (SQLite opens the file read-only; PostgreSQL's transactions are read-only). */
  readonly readonly: boolean;
  /** PostgreSQL's pool size (default 10); SQLite has one connection. */
  readonly maxConnections?: number | undefined;
}

export interface Engine {
  readonly name: EngineName;
  /** The database as messages name it: the file, or the URL without its password. */
  readonly label: string;
  /** The connection: SqlClient with its Dialect (and a WriteBatch where the engine has a faster one), and what other runtimes announce on it. */
  readonly connect: (
    options: ConnectOptions,
  ) => Layer.Layer<SqlClient.SqlClient | Dialect | LedgerSignals, DatabaseError>;
  /**
   * What is settled before a connection that may write opens (on SQLite the connection itself
   * writes: the WAL switch). A database that must exist and does not is refused; SQLite inspects
   * the file, refuses a newer schema and backs it up when a migration will change it. The schema
   * version, when the engine could read it without connecting.
   */
  readonly prepareWrite: (options: {
    readonly mustExist: boolean;
    readonly now?: Date | undefined;
  }) => Effect.Effect<{ readonly schemaVersion?: number; readonly backupPath: string | null }, DatabaseError>;
  /**
   * What is settled before a read-only connection opens: a database that is not there is refused
   * (a read never creates one). In the scope, what leaves the database's surroundings as the read
   * found them (SQLite: the empty -wal/-shm files a read-only connection leaves).
   */
  readonly prepareRead: Effect.Effect<{ readonly schemaVersion?: number }, DatabaseError, Scope.Scope>;
  /**
   * Whether each read of a long-lived reader opens its own connection (a SQLite file: nothing is
   * held between reads) rather than sharing one pool (PostgreSQL: connections cost round trips).
   */
  readonly connectionPerRead: boolean;
  /**
   * Notes what surrounds the database now, for a long-lived reader; the function it returns
   * removes what reads added since (SQLite's empty -wal/-shm files), synchronously.
   */
  readonly tidier: () => () => void;
  /** A synchronous reader of runs' last sequences, where the engine can give one (a SQLite file). */
  readonly watermark: () => LedgerWatermark | undefined;
}

/** The engine that holds `database`. */
export const engineFor = (database: string): Engine =>
  PostgresEngine.isPostgresUrl(database) ? PostgresEngine.make(database) : SqliteEngine.make(database);
