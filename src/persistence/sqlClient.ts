import type * as Sql from "@effect/sql/SqlClient";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";

/**
 * @effect/sql's `SqlClient` service, named by its key. Effect finds a service by its tag's key, so
 * this is the same service the engines' clients provide; it exists because importing @effect/sql's
 * own module loads Effect's Schema, @effect/platform and fast-check with it — about 200 ms that
 * `import "agentloop"` should not cost a host before it opens a ledger. The engines' clients load
 * @effect/sql when they connect (a test checks that both tags are one).
 */
export const SqlClient: Context.Tag<Sql.SqlClient, Sql.SqlClient> =
  Context.GenericTag<Sql.SqlClient>("@effect/sql/SqlClient");
export type SqlClient = Sql.SqlClient;

/** @effect/sql's Migrator, loaded when a ledger is migrated. */
export const loadMigrator = Effect.promise(() => import("@effect/sql/Migrator"));
