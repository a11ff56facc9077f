import * as PgClient from "@effect/sql-pg/PgClient";
import { Effect, Layer, Stream } from "effect";
import { LedgerSignals, OWNER_ENDED_CHANNEL } from "../../ledgerSignals.js";

/** LISTEN on its own connection; a lost connection ends the stream quietly (polling goes on). */
export const layer: Layer.Layer<LedgerSignals, never, PgClient.PgClient> = Layer.effect(
  LedgerSignals,
  Effect.map(PgClient.PgClient, (client) => ({
    ownerEnded: client.listen(OWNER_ENDED_CHANNEL).pipe(Stream.catchAll(() => Stream.empty)),
  })),
);
