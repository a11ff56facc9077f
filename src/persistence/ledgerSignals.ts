import { Context, Layer, Stream } from "effect";

/**
 * What other runtimes on the same ledger announce: on PostgreSQL, an owner that shuts down
 * NOTIFYs, and supervisors LISTENing react at once instead of at their next poll
 * (engine/postgres/signals.ts). SQLite has no such channel: its stream never emits, and polling is
 * all there is.
 */
export interface LedgerSignalsShape {
  /** Owner ids of runtimes that just shut down (their open runs can be taken over now). */
  readonly ownerEnded: Stream.Stream<string>;
}

export class LedgerSignals extends Context.Tag("agentloop/LedgerSignals")<LedgerSignals, LedgerSignalsShape>() {}

/** The PostgreSQL NOTIFY channel on which an owner that shuts down announces itself. */
export const OWNER_ENDED_CHANNEL = "agentloop_owner_ended";

export const none: Layer.Layer<LedgerSignals> = Layer.succeed(LedgerSignals, { ownerEnded: Stream.never });
