import { existsSync } from "node:fs";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { DatabaseError, refuseNewerSchema } from "../../database.js";
import * as LedgerSignals from "../../ledgerSignals.js";
import { LATEST_SCHEMA_VERSION } from "../../migrations/schemaVersion.js";
import type { Engine } from "../Engine.js";
import {
  backupDatabase,
  backupPath,
  hasWalCompanions,
  inspectDatabase,
  MEMORY_DB,
  needsBackup,
  removeEmptyWalCompanions,
} from "./file.js";
import { sqliteWatermark } from "./watermark.js";

// The SQLite client (and @effect/sql with it) loads when a ledger first connects, not with
// `import "agentloop"`: it brings Effect's Schema and @effect/platform, about 200 ms.
const client = Effect.promise(() => import("./client.js"));

const missing = (filename: string) =>
  new DatabaseError({ reason: "not_found", message: `no ledger database at ${filename}` });

/** A ledger in the SQLite file `filename` (or `:memory:`). */
export const make = (filename: string): Engine => ({
  name: "sqlite",
  label: filename,
  // Nothing announces anything on a SQLite file: other processes poll.
  connect: ({ readonly }) =>
    Layer.merge(
      Layer.unwrapEffect(Effect.map(client, (sqlite) => sqlite.layer({ filename, readonly }))),
      LedgerSignals.none,
    ),
  prepareWrite: ({ mustExist, now }) =>
    Effect.gen(function* () {
      if (mustExist && !existsSync(filename)) return yield* Effect.fail(missing(filename));
      const inspection = yield* inspectDatabase(filename);
      yield* refuseNewerSchema(filename, inspection.schemaVersion);
      const backup = needsBackup(inspection)
        ? yield* backupDatabase(filename, backupPath(filename, inspection.schemaVersion, LATEST_SCHEMA_VERSION, now))
        : null;
      return { schemaVersion: inspection.schemaVersion, backupPath: backup };
    }),
  prepareRead: Effect.gen(function* () {
    // Checked before anything opens the file: even a read-only open of a missing path is an error
    // worded here, and a read-write open would create it.
    if (!existsSync(filename)) return yield* Effect.fail(missing(filename));
    if (!hasWalCompanions(filename)) {
      // Runs after the connection closed (finalizers run in reverse order).
      yield* Effect.addFinalizer(() => Effect.sync(() => removeEmptyWalCompanions(filename)));
    }
    const inspection = yield* inspectDatabase(filename);
    return { schemaVersion: inspection.schemaVersion };
  }),
  connectionPerRead: true,
  tidier: () => {
    const hadCompanions = hasWalCompanions(filename);
    return () => {
      if (!hadCompanions) removeEmptyWalCompanions(filename);
    };
  },
  watermark: () => (filename === MEMORY_DB ? undefined : sqliteWatermark(filename)),
});
