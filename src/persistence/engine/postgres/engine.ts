import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { Engine } from "../Engine.js";
import { displayUrl } from "./url.js";

export { isPostgresUrl } from "./url.js";

/**
 * The client, its signals and graphile-worker are loaded when a PostgreSQL ledger is first
 * connected: a host on SQLite never pays for importing them.
 */
const connection = Effect.promise(() => Promise.all([import("./client.js"), import("./signals.js")]));

/** A ledger in the PostgreSQL database at `url`. */
export const make = (url: string): Engine => ({
  name: "postgres",
  label: displayUrl(url),
  connect: ({ readonly, maxConnections }) =>
    Layer.unwrapEffect(
      Effect.map(connection, ([PostgresClient, PostgresSignals]) =>
        PostgresSignals.layer({ url, readonly }).pipe(
          Layer.provideMerge(PostgresClient.layer({ url, readonly, ...(maxConnections ? { maxConnections } : {}) })),
        ),
      ),
    ),
  // The server holds the database: nothing to look at before connecting, and a migration is one
  // transaction on the server (no file to back up). The schema version is read once connected.
  prepareWrite: () => Effect.succeed({ backupPath: null }),
  prepareRead: Effect.succeed({}),
  connectionPerRead: false,
  tidier: () => () => {},
  // A second connection cannot be read synchronously: the report draws paths without events per state.
  watermark: () => undefined,
});
