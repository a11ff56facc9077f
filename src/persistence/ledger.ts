import type { SqlClient } from "@effect/sql";
import { Effect, Layer } from "effect";
import { AgentRunStore } from "./AgentRunStore.js";
import {
  assertSupportedVersion,
  backupDatabase,
  backupPath,
  DatabaseError,
  inspectDatabase,
  LATEST_VERSION_CHECK,
  runMigrations,
} from "./database.js";
import { makeLeaseBook } from "./leaseBook.js";
import * as LedgerSignals from "./ledgerSignals.js";
import * as Postgres from "./postgres.js";
import { DEFAULT_OWNER_SETTINGS, type OwnerSettings, registerOwner } from "./runOwners.js";
import * as SqlAgentRunStore from "./SqlAgentRunStore.js";
import * as Sqlite from "./sqlite.js";

export interface LedgerOptions
  extends Omit<SqlAgentRunStore.SqlAgentRunStoreOptions, "ownerId" | "leaseMs" | "leases"> {
  /** A SQLite file (or ":memory:"), or a PostgreSQL URL (`postgres://…`). */
  readonly filename: string;
  /**
   * Register this process as the owner of the runs it opens, with a heartbeat (default on);
   * `false` for tools that never open runs (recover, inspection).
   */
  readonly owner?: Partial<OwnerSettings> | false | undefined;
}

/** The AgentRunStore of a migrated database, with this process registered as an owner unless told not to. */
const storeLayer = (options: LedgerOptions, migrate: Effect.Effect<unknown, DatabaseError, SqlClient.SqlClient>) =>
  Layer.scoped(
    AgentRunStore,
    Effect.gen(function* () {
      yield* migrate;
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
                    message: `${Postgres.isPostgresUrl(options.filename) ? Postgres.displayUrl(options.filename) : options.filename}: cannot register this process as a ledger owner: ${error.message}`,
                    cause: error,
                  }),
              ),
            );
      return yield* SqlAgentRunStore.make({ ...options, ownerId, leaseMs: settings?.expiryMs, leases });
    }),
  );

/**
 * The ledger as a layer. On SQLite: checks the file, backs it up when a migration will change
 * it, migrates. On PostgreSQL (a `postgres://` URL): connects and migrates. Either way it
 * provides the AgentRunStore (plus the SqlClient, for the memory_turns projection).
 */
export const layer = (
  options: LedgerOptions,
): Layer.Layer<AgentRunStore | SqlClient.SqlClient | LedgerSignals.LedgerSignals, DatabaseError> =>
  Postgres.isPostgresUrl(options.filename)
    ? Layer.merge(storeLayer(options, Postgres.migrate(options.filename)), LedgerSignals.postgres).pipe(
        Layer.provideMerge(Postgres.layer({ url: options.filename })),
      )
    : Layer.merge(sqliteLayer(options), LedgerSignals.none);

const sqliteLayer = (options: LedgerOptions): Layer.Layer<AgentRunStore | SqlClient.SqlClient, DatabaseError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const inspection = yield* inspectDatabase(options.filename);
      yield* assertSupportedVersion(inspection);
      if (LATEST_VERSION_CHECK.needsBackup(inspection)) {
        yield* backupDatabase(
          options.filename,
          backupPath(options.filename, inspection.schemaVersion, LATEST_VERSION_CHECK.latest),
        );
      }
      return storeLayer(options, runMigrations()).pipe(
        Layer.provideMerge(Sqlite.layer({ filename: options.filename })),
      );
    }),
  );
