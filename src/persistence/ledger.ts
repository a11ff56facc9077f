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
import { DEFAULT_OWNER_SETTINGS, type OwnerSettings, registerOwner } from "./runOwners.js";
import * as SqliteAgentRunStore from "./SqliteAgentRunStore.js";
import * as Sqlite from "./sqlite.js";

export interface LedgerOptions extends Omit<SqliteAgentRunStore.SqliteAgentRunStoreOptions, "ownerId"> {
  readonly filename: string;
  /**
   * Register this process as the owner of the runs it opens, with a heartbeat (default on);
   * `false` for tools that never open runs (recover, inspection).
   */
  readonly owner?: Partial<OwnerSettings> | false | undefined;
}

/**
 * The ledger as a layer: checks the file, backs it up when a migration will change it, migrates,
 * and provides the AgentRunStore (plus the SqlClient, for the memory_turns projection).
 */
export const layer = (options: LedgerOptions): Layer.Layer<AgentRunStore | SqlClient.SqlClient, DatabaseError> =>
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
      const store = Layer.scoped(
        AgentRunStore,
        Effect.gen(function* () {
          yield* runMigrations();
          const ownerId =
            options.owner === false
              ? undefined
              : yield* registerOwner({ ...DEFAULT_OWNER_SETTINGS, ...options.owner }).pipe(
                  Effect.mapError(
                    (error) =>
                      new DatabaseError({
                        reason: "open_failed",
                        message: `${options.filename}: cannot register this process as a ledger owner: ${error.message}`,
                        cause: error,
                      }),
                  ),
                );
          return yield* SqliteAgentRunStore.make({ ...options, ownerId });
        }),
      );
      return store.pipe(Layer.provideMerge(Sqlite.layer({ filename: options.filename })));
    }),
  );
