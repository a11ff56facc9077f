import * as SqlClient from "@effect/sql/SqlClient";
import * as PgClient from "@effect/sql-pg/PgClient";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Redacted from "effect/Redacted";
import Pg from "pg";
import { DatabaseError } from "../../database.js";
import { Dialect } from "../Dialect.js";
import * as PostgresDialect from "./dialect.js";
import { displayUrl } from "./url.js";

/**
 * The ledger on PostgreSQL, reached through @effect/sql-pg's `PgClient` — the same `SqlClient`
 * interface the SQLite ledger speaks, so the store, the writer and recovery are the same code. A
 * database is named by URL (`postgres://…` or `postgresql://…`); everything else agentloop opens
 * is a SQLite file.
 */

/** int8 (COUNT, SUM, identities) and numeric arrive as strings from `pg`: the ledger's are small integers. */
const NUMBER_TYPES = new Set<number>([Pg.types.builtins.INT8, Pg.types.builtins.NUMERIC]);
const types: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    NUMBER_TYPES.has(oid)
      ? (value: string) => Number(value)
      : Pg.types.getTypeParser(oid, format ?? "text")) as Pg.CustomTypesConfig["getTypeParser"],
};

export interface PostgresOptions {
  readonly url: string;
  /** Every transaction read-only (inspection commands): the server refuses writes. */
  readonly readonly?: boolean;
  readonly maxConnections?: number;
}

function connectionUrl(options: PostgresOptions): string {
  if (!options.readonly) return options.url;
  const url = new URL(options.url);
  const existing = url.searchParams.get("options");
  url.searchParams.set("options", `${existing ? `${existing} ` : ""}-c default_transaction_read_only=on`);
  return url.toString();
}

function causeText(error: { message: string; cause?: unknown }): string {
  const cause = error.cause as { message?: string } | undefined;
  return cause?.message || error.message;
}

const dialect = Layer.effect(Dialect, Effect.map(SqlClient.SqlClient, PostgresDialect.make));

/**
 * SqlClient (and PgClient) over `url`, with PostgreSQL's Dialect beside it; a server that cannot
 * be reached is a DatabaseError.
 */
export const layer = (
  options: PostgresOptions,
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | Dialect, DatabaseError> =>
  dialect.pipe(
    Layer.provideMerge(
      PgClient.layer({
        url: Redacted.make(connectionUrl(options)),
        types,
        maxConnections: options.maxConnections ?? 10,
        connectTimeout: "10 seconds",
        applicationName: "agentloop",
      }).pipe(
        Layer.mapError(
          (error) =>
            new DatabaseError({
              reason: "open_failed",
              message: `cannot connect to ${displayUrl(options.url)}: ${causeText(error)}`,
              cause: error,
            }),
        ),
      ),
    ),
  );
