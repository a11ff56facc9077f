import { existsSync, statSync } from "node:fs";
import type { SqlClient } from "@effect/sql";
import Sqlite from "better-sqlite3";
import { Cause, Effect, Either, Exit, Layer } from "effect";
import type { AgentRunStore } from "../persistence/AgentRunStore.js";
import { inspectDatabase } from "../persistence/database.js";
import * as Postgres from "../persistence/postgres.js";
import * as SqlAgentRunStore from "../persistence/SqlAgentRunStore.js";
import * as SqliteLayer from "../persistence/sqlite.js";
import { CliFailure, firstLine } from "./output.js";

/** The first schema version with the run ledger (migration 0002). */
const LEDGER_SCHEMA_VERSION = 2;

const walCompanions = (db: string) => [`${db}-wal`, `${db}-shm`] as const;

/**
 * A read-only connection to a WAL database creates its -wal and -shm files but, unable to
 * checkpoint, never deletes them. A read-write connection that is the last one to close does, so
 * one is opened (query_only, file must exist) and closed again — and only while the WAL is empty,
 * so there is nothing to checkpoint into the database file. While another process has the database
 * open, SQLite itself leaves the files alone.
 */
export function removeEmptyWalCompanions(db: string): void {
  const [wal] = walCompanions(db);
  if (!existsSync(wal) || statSync(wal).size > 0) return;
  try {
    const connection = new Sqlite(db, { fileMustExist: true });
    try {
      connection.pragma("query_only = ON");
      // A read opens the WAL, so closing the connection takes the last-connection path.
      connection.prepare("SELECT COUNT(*) FROM sqlite_master").get();
    } finally {
      connection.close();
    }
  } catch {
    // Tidying is best effort: the command's own result stands, and leftover empty companions are harmless.
  }
}

const messageOf = (reason: unknown): string =>
  typeof reason === "object" && reason !== null && "message" in reason ? String(reason.message) : String(reason);

/**
 * Runs `effect` against a ledger file opened read-only: the SqlClient and an AgentRunStore over
 * it. Inspecting commands must never create, back up, migrate or otherwise write the file (unlike
 * `ledgerLayer`), so a missing file or one without the ledger schema is refused rather than
 * prepared. Every failure is one CliFailure line.
 */
export async function readLedger<A>(
  db: string,
  effect: Effect.Effect<A, { readonly message: string }, SqlClient.SqlClient | AgentRunStore>,
): Promise<A> {
  if (Postgres.isPostgresUrl(db)) return readPostgresLedger(db, effect);
  // Checked before anything opens the file: even a read-only open of a missing path is an error
  // we want to word ourselves, and a read-write open would create it.
  if (!existsSync(db)) throw new CliFailure(`no ledger database at ${db}`);
  const hadWalCompanions = walCompanions(db).some((file) => existsSync(file));
  try {
    return await readExistingLedger(db, effect);
  } finally {
    if (!hadWalCompanions) removeEmptyWalCompanions(db);
  }
}

async function readExistingLedger<A>(
  db: string,
  effect: Effect.Effect<A, { readonly message: string }, SqlClient.SqlClient | AgentRunStore>,
): Promise<A> {
  const inspection = await Effect.runPromise(Effect.either(inspectDatabase(db)));
  if (Either.isLeft(inspection)) throw new CliFailure(inspection.left.message);
  if (inspection.right.schemaVersion < LEDGER_SCHEMA_VERSION) {
    throw new CliFailure(
      `${db} has no run ledger (schema version ${inspection.right.schemaVersion}); run agentloop migrate --db ${db}`,
    );
  }
  const client = SqliteLayer.layer({ filename: db, readonly: true });
  const layer = SqlAgentRunStore.layer().pipe(Layer.provideMerge(client));
  const exit = await Effect.runPromiseExit(effect.pipe(Effect.provide(layer)));
  if (Exit.isFailure(exit)) throw new CliFailure(firstLine(messageOf(Cause.squash(exit.cause))));
  return exit.value;
}

/**
 * The same on PostgreSQL: every transaction of the connection is read-only (the server
 * refuses writes), and a database without the ledger schema is refused the same way.
 */
async function readPostgresLedger<A>(
  url: string,
  effect: Effect.Effect<A, { readonly message: string }, SqlClient.SqlClient | AgentRunStore>,
): Promise<A> {
  const checked = Effect.gen(function* () {
    const version = yield* Postgres.schemaVersion.pipe(Effect.mapError((error) => ({ message: error.message })));
    if (version < LEDGER_SCHEMA_VERSION) {
      return yield* Effect.fail({
        message: `${Postgres.displayUrl(url)} has no run ledger (schema version ${version}); run agentloop migrate --db ${Postgres.displayUrl(url)}`,
      });
    }
    return yield* effect;
  });
  const layer = SqlAgentRunStore.layer().pipe(Layer.provideMerge(Postgres.layer({ url, readonly: true })));
  const exit = await Effect.runPromiseExit(checked.pipe(Effect.provide(layer)));
  if (Exit.isFailure(exit)) throw new CliFailure(firstLine(messageOf(Cause.squash(exit.cause))));
  return exit.value;
}
