import * as PgClient from "@effect/sql-pg/PgClient";
import { Context, Effect, Layer, Stream } from "effect";
import { OWNER_ENDED_CHANNEL } from "./runOwners.js";

/**
 * What other runtimes on the same ledger announce: on PostgreSQL, an owner that shuts
 * down NOTIFYs, and supervisors LISTENing react at once instead of at their next poll. SQLite has
 * no such channel: its stream never emits, and polling is all there is.
 */
export interface LedgerSignalsShape {
  /** Owner ids of runtimes that just shut down (their open runs can be taken over now). */
  readonly ownerEnded: Stream.Stream<string>;
}

export class LedgerSignals extends Context.Tag("agentloop/LedgerSignals")<LedgerSignals, LedgerSignalsShape>() {}

export const none: Layer.Layer<LedgerSignals> = Layer.succeed(LedgerSignals, { ownerEnded: Stream.never });

/** LISTEN on its own connection; a lost connection ends the stream quietly (polling goes on). */
export const postgres: Layer.Layer<LedgerSignals, never, PgClient.PgClient> = Layer.effect(
  LedgerSignals,
  Effect.map(PgClient.PgClient, (client) => ({
    ownerEnded: client.listen(OWNER_ENDED_CHANNEL).pipe(Stream.catchAll(() => Stream.empty)),
  })),
);
