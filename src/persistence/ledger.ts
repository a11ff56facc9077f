import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import type * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { AgentRunStore } from "./AgentRunStore.js";
import {
  DatabaseError,
  type MigrationRecord,
  type MigrationReport,
  migrateSchema,
  requireRunLedger,
  schemaVersion,
} from "./database.js";
import type { Dialect } from "./engine/Dialect.js";
import { type Engine, engineFor, type LedgerWatermark } from "./engine/Engine.js";
import * as LedgerReads from "./LedgerReads.js";
import { makeLeaseBook } from "./leaseBook.js";
import type { LedgerSignals } from "./ledgerSignals.js";
import { DEFAULT_OWNER_SETTINGS, type OwnerSettings, registerOwner } from "./runOwners.js";
import * as SqlAgentRunStore from "./SqlAgentRunStore.js";

/**
 * The one way to open a ledger, whatever holds it — a SQLite file (or `:memory:`) or a PostgreSQL
 * database (`postgres://…`) — and whoever opens it: the runtime, the CLI's commands, `serve`.
 * The engine is decided once, from the name; `access` says what the opener may do to it.
 */

export type LedgerAccess = "create" | "write" | "read";

export interface LedgerOptions
  extends Omit<SqlAgentRunStore.SqlAgentRunStoreOptions, "ownerId" | "leaseMs" | "leases"> {
  /** A SQLite file (or ":memory:"), or a PostgreSQL URL (`postgres://…`). */
  readonly filename: string;
  /**
   * - `create` (default): a SQLite file that does not exist is created; the schema is migrated
   *   (an existing SQLite file is backed up first when a migration will change it).
   * - `write`: the same for a database that exists already; a missing SQLite file is refused, not
   *   created (a command that adds to a ledger someone else keeps).
   * - `read`: nothing is written, created, backed up or migrated — a read-only connection, and a
   *   database without the run ledger is refused. No owner is registered.
   */
  readonly access?: LedgerAccess | undefined;
  /**
   * Register this process as the owner of the runs it opens, with a heartbeat (default on);
   * `false` for tools that never open runs (recover, inspection).
   */
  readonly owner?: Partial<OwnerSettings> | false | undefined;
  /** PostgreSQL's pool size (default 10). */
  readonly maxConnections?: number | undefined;
}

/** What an open ledger provides. */
export type LedgerServices = AgentRunStore | LedgerReads.LedgerReads | SqlClient.SqlClient | Dialect | LedgerSignals;

/** What the store itself is told: everything but how to open the ledger. */
const storeOptions = (options: LedgerOptions): SqlAgentRunStore.SqlAgentRunStoreOptions => {
  const { filename: _filename, access: _access, owner: _owner, maxConnections: _max, ...store } = options;
  return store;
};

/** The AgentRunStore of a migrated database, with this process registered as an owner unless told not to. */
const ownedStore = (engine: Engine, options: LedgerOptions, fromVersion: number | undefined) =>
  Layer.scoped(
    AgentRunStore,
    Effect.gen(function* () {
      yield* migrateSchema(engine.label, fromVersion === undefined ? {} : { fromVersion });
      const settings = options.owner === false ? undefined : { ...DEFAULT_OWNER_SETTINGS, ...options.owner };
      const leases = makeLeaseBook();
      const ownerId =
        settings === undefined
          ? undefined
          : yield* registerOwner(settings, leases).pipe(
              Effect.mapError(
                (error) =>
                  new DatabaseError({
                    reason: "open_failed",
                    message: `${engine.label}: cannot register this process as a ledger owner: ${error.message}`,
                    cause: error,
                  }),
              ),
            );
      return yield* SqlAgentRunStore.make({ ...storeOptions(options), ownerId, leaseMs: settings?.expiryMs, leases });
    }),
  );

const writeLayer = (engine: Engine, options: LedgerOptions): Layer.Layer<LedgerServices, DatabaseError> =>
  Layer.unwrapEffect(
    Effect.map(engine.prepareWrite({ mustExist: options.access === "write" }), (prepared) =>
      Layer.merge(ownedStore(engine, options, prepared.schemaVersion), LedgerReads.layer).pipe(
        Layer.provideMerge(engine.connect({ readonly: false, maxConnections: options.maxConnections })),
      ),
    ),
  );

/** Refuses, before anything reads, a database without the run ledger. */
const ledgerPresent = (engine: Engine, known: number | undefined) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const version =
        known ??
        (yield* schemaVersion.pipe(
          Effect.mapError(
            (error) => new DatabaseError({ reason: "open_failed", message: error.message, cause: error }),
          ),
        ));
      yield* requireRunLedger(engine.label, version);
    }),
  );

const readLayer = (engine: Engine, options: LedgerOptions): Layer.Layer<LedgerServices, DatabaseError> =>
  Layer.unwrapScoped(
    Effect.map(engine.prepareRead, (prepared) =>
      Layer.merge(SqlAgentRunStore.layer(storeOptions(options)), LedgerReads.layer).pipe(
        Layer.provideMerge(ledgerPresent(engine, prepared.schemaVersion)),
        Layer.provideMerge(engine.connect({ readonly: true, maxConnections: options.maxConnections })),
      ),
    ),
  );

/**
 * The ledger as a layer: the AgentRunStore, the read queries (LedgerReads), the SqlClient with its
 * Dialect (for the memory stores and the approvals), and what other runtimes announce
 * (LedgerSignals). See `LedgerOptions.access` for what opening it may do.
 */
export const layer = (options: LedgerOptions): Layer.Layer<LedgerServices, DatabaseError> => {
  const engine = engineFor(options.filename);
  return options.access === "read" ? readLayer(engine, options) : writeLayer(engine, options);
};

/**
 * Creates or migrates the database (backing an existing SQLite file up first) and closes it
 * again: `agentloop migrate`. `migrations` is replaceable only so tests can inject a failing one.
 */
export const migrate = (
  database: string,
  options: { readonly migrations?: MigrationRecord; readonly now?: Date } = {},
): Effect.Effect<MigrationReport, DatabaseError> =>
  Effect.gen(function* () {
    const engine = engineFor(database);
    const prepared = yield* engine.prepareWrite({ mustExist: false, now: options.now });
    return yield* Effect.gen(function* () {
      const { fromVersion, applied } = yield* migrateSchema(engine.label, {
        ...(prepared.schemaVersion === undefined ? {} : { fromVersion: prepared.schemaVersion }),
        ...(options.migrations ? { migrations: options.migrations } : {}),
      });
      const report: MigrationReport = {
        filename: engine.label,
        fromVersion,
        toVersion: yield* Effect.orDie(schemaVersion),
        applied,
        backupPath: prepared.backupPath,
      };
      return report;
    }).pipe(Effect.provide(engine.connect({ readonly: false })));
  });

/** How messages name the database: the file, or the URL without its password. */
export const label = (database: string): string => engineFor(database).label;

/**
 * A synchronous reader of runs' last durable sequences on a second, read-only connection, where
 * the engine can give one (a SQLite file); undefined otherwise.
 */
export const watermark = (database: string): LedgerWatermark | undefined => engineFor(database).watermark();

export type { LedgerWatermark } from "./engine/Engine.js";

/** A reader that outlives its reads (`agentloop serve`). */
export interface LedgerReader {
  /** Runs `effect` read-only: on a SQLite file over a connection opened for it and closed after. */
  readonly read: <A, E>(effect: Effect.Effect<A, E, LedgerServices>) => Promise<Exit.Exit<A, E | DatabaseError>>;
  /**
   * Leaves the database's surroundings as the reader found them (a SQLite file's empty -wal/-shm
   * files), synchronously: callable from a signal handler that exits right after.
   */
  readonly tidy: () => void;
  /** Closes what the reader holds (PostgreSQL's pool), then tidies. */
  readonly close: () => Promise<void>;
}

/**
 * A long-lived read-only reader. On a SQLite file every read opens its own read-only connection
 * and closes it after, so the reader holds nothing between reads and never writes the file. On
 * PostgreSQL, whose connections cost a round trip each, one small pool serves every read.
 */
export const reader = (database: string, options: { readonly maxConnections?: number } = {}): LedgerReader => {
  const engine = engineFor(database);
  const readOnly = () => readLayer(engine, { filename: database, access: "read", ...options });
  const tidy = engine.tidier();
  if (engine.connectionPerRead) {
    return {
      read: (effect) => Effect.runPromiseExit(Effect.provide(effect, readOnly())),
      tidy,
      close: async () => tidy(),
    };
  }
  const runtime = ManagedRuntime.make(readOnly());
  return {
    read: (effect) => runtime.runPromiseExit(effect),
    tidy,
    close: async () => {
      await runtime.dispose();
      tidy();
    },
  };
};
