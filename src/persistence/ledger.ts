import type { SqlClient } from "@effect/sql";
import { Effect, Layer } from "effect";
import { AgentRunStore } from "./AgentRunStore.js";
import {
  assertSupportedVersion,
  backupDatabase,
  backupPath,
  type DatabaseError,
  inspectDatabase,
  LATEST_VERSION_CHECK,
  runMigrations,
} from "./database.js";
import * as SqliteAgentRunStore from "./SqliteAgentRunStore.js";
import * as Sqlite from "./sqlite.js";

export interface LedgerOptions extends SqliteAgentRunStore.SqliteAgentRunStoreOptions {
  readonly filename: string;
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
      const store = Layer.effect(AgentRunStore, Effect.zipRight(runMigrations(), SqliteAgentRunStore.make(options)));
      return store.pipe(Layer.provideMerge(Sqlite.layer({ filename: options.filename })));
    }),
  );
