import { Effect, Layer } from "effect";
import type { Engine } from "../Engine.js";
import * as PostgresClient from "./client.js";
import * as PostgresSignals from "./signals.js";

export { isPostgresUrl } from "./client.js";

/** A ledger in the PostgreSQL database at `url`. */
export const make = (url: string): Engine => ({
  name: "postgres",
  label: PostgresClient.displayUrl(url),
  connect: ({ readonly, maxConnections }) =>
    PostgresSignals.layer({ url, readonly }).pipe(
      Layer.provideMerge(PostgresClient.layer({ url, readonly, ...(maxConnections ? { maxConnections } : {}) })),
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
