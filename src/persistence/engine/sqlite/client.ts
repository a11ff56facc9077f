import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Dialect } from "../Dialect.js";
import type { WriteBatch } from "../WriteBatch.js";
import * as SqliteConnection from "./connection.js";
import * as SqliteDialect from "./dialect.js";

/**
 * The ledger's SQLite connection (connection.ts: a SqlClient over one better-sqlite3 connection
 * behind a semaphore, statements prepared once and cached, write batches in one step) configured
 * for the ledger.
 *
 * The connection itself only opens the file and turns WAL on (unless `readonly`); the other
 * settings are per connection and run here right after it opens:
 * - `synchronous = NORMAL`: with WAL, a commit survives a process crash; only a power loss can
 *   undo the last commits (never corrupting the file).
 * - `foreign_keys = ON`: the ledger's `run_id` references are enforced (they refuse an event or a
 *   receipt of an unknown run, see migration 0005).
 * - `busy_timeout`: a writer of another process holding the lock is waited for, not failed on.
 */
export interface SqliteOptions {
  readonly filename: string;
  /**
   * Opens the file read-only (it must exist): no WAL switch, no writes. A WAL file written by
   * others is still read.
   */
  readonly readonly?: boolean;
}

export const BUSY_TIMEOUT_MS = 5_000;

/** The connection settings every agentloop connection runs after opening. */
export const CONNECTION_PRAGMAS: ReadonlyArray<string> = [
  "PRAGMA synchronous = NORMAL",
  "PRAGMA foreign_keys = ON",
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
];

const configure = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const pragma of CONNECTION_PRAGMAS) yield* sql.unsafe(pragma);
}).pipe(Effect.orDie);

const dialect = Layer.effect(Dialect, Effect.map(SqlClient.SqlClient, SqliteDialect.make));

/**
 * SqlClient over `filename` — a file or `:memory:` — WAL (unless read-only), synchronous NORMAL,
 * foreign keys on, a busy timeout; with SQLite's Dialect and the writer's WriteBatch beside it. A
 * file that cannot be opened is a defect.
 */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient | Dialect | WriteBatch> =>
  Layer.mergeAll(Layer.effectDiscard(configure), dialect).pipe(
    Layer.provideMerge(
      SqliteConnection.layer({
        filename: options.filename,
        readonly: options.readonly ?? false,
        // Switching to WAL writes the file header: a read-only connection reads the mode it finds.
        disableWAL: options.readonly ?? false,
      }),
    ),
    Layer.orDie,
  );
