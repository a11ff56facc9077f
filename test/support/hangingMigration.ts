/**
 * Child process for the interrupted-migration test: migrates the file named by argv[2] with a
 * 0002 migration that creates its first ledger table, prints "started" and then never finishes,
 * so the parent can SIGKILL it in the middle of the migration transaction.
 */
import { SqlClient } from "@effect/sql";
import { Effect } from "effect";
import * as Ledger from "../../src/persistence/ledger.js";
import { LEDGER_DDL } from "../../src/persistence/migrations/0002_run_ledger.js";
import { MIGRATIONS } from "../../src/persistence/migrations/index.js";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: hangingMigration.ts <database file>\n");
  process.exit(2);
}

const hangingLedger = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  yield* sql.unsafe(LEDGER_DDL[0]!);
  process.stdout.write("started\n");
  yield* Effect.never;
});

await Effect.runPromise(
  Ledger.migrate(file, {
    migrations: { "0001_host_schema": MIGRATIONS["0001_host_schema"], "0002_run_ledger": hangingLedger },
  }),
);
