import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import type * as Stream from "effect/Stream";
import type { DatabaseError } from "./database.js";

/**
 * What other runtimes on the same ledger announce: on PostgreSQL, an owner that shuts down
 * NOTIFYs, and supervisors LISTENing react at once instead of at their next poll
 * (engine/postgres/signals.ts). SQLite has no such channel: nothing is announced, and polling is all
 * there is.
 */
export interface LedgerSignalsShape {
  /**
   * Owner ids of runtimes that just shut down (their open runs can be taken over now); undefined
   * where nothing announces it (SQLite).
   */
  readonly ownerEnded: Stream.Stream<string> | undefined;
  /**
   * Run ids whose cancel was just asked for by some process (PostgreSQL NOTIFY); undefined where
   * nothing announces it (SQLite), and a runtime reads new requests on a short poll instead.
   */
  readonly cancelRequested: Stream.Stream<string> | undefined;
  /**
   * Run ids with an approval decision just recorded by some process (PostgreSQL NOTIFY); undefined
   * where nothing announces it (SQLite: the waiting run reads the ledger on its approval poll).
   */
  readonly approvalDecided: Stream.Stream<string> | undefined;
  /**
   * Emits each time the announcements above are heard on a new connection (PostgreSQL: the first
   * LISTEN and every one after a lost connection), and at once to a subscriber that comes while one
   * is up: what was announced meanwhile is lost, so whoever relies on them reads the ledger then.
   * Undefined where nothing is announced (SQLite).
   */
  readonly listening: Stream.Stream<number> | undefined;
  /**
   * Ledger appends by any process (PostgreSQL NOTIFY from the database's own trigger, in the
   * appending transaction): the run and the last sequence appended; sequence 0 for a new run.
   * Undefined where nothing announces them (SQLite: live views poll).
   */
  readonly ledgerAppended: Stream.Stream<LedgerAppended> | undefined;
  /**
   * Lease and approval expiries handed to this supervisor when they are due, by any process
   * (PostgreSQL: graphile-worker jobs that the database schedules when a lease is taken or
   * renewed and when an approval is requested, migration 0013); undefined where a supervisor
   * looks for abandoned runs on a poll (SQLite).
   */
  readonly serveExpiryJobs:
    | ((options: ExpiryJobOptions) => Effect.Effect<void, DatabaseError, Scope.Scope>)
    | undefined;
  /**
   * Queued runs handed to this worker as they are enqueued, by any process (PostgreSQL: a
   * graphile-worker runner, for as long as the scope lasts); undefined where a worker looks at the
   * queue itself on a short poll (SQLite).
   */
  readonly serveRunJobs: ((options: RunJobOptions) => Effect.Effect<void, DatabaseError, Scope.Scope>) | undefined;
  /**
   * Readies the job system before the first run is queued (PostgreSQL: graphile-worker's schema,
   * installed once per connection; nothing on SQLite): ledgers that never queue a run never get it.
   */
  readonly prepareRunJobs: Effect.Effect<void, DatabaseError>;
}

export interface RunJobOptions {
  /** Runs driven at once, at most. */
  readonly concurrency: number;
  /** How often the job system looks for jobs when no notification came (its fallback). */
  readonly fallbackPollMs: number;
  /** Drives the queued run; settles when the run ended or was not this worker's to drive. */
  readonly drive: (runId: string) => Promise<void>;
}

export interface LedgerAppended {
  readonly runId: string;
  readonly sequence: number;
}

export interface ExpiryJobOptions {
  /** Expiries handled at once, at most. */
  readonly concurrency: number;
  /** How often the job system looks for due jobs when no notification came (its fallback). */
  readonly fallbackPollMs: number;
  /**
   * The run's lease expired, or one of its approval requests did: take the run over if its
   * lease allows it. Settles when done or refused; rejects when it should be tried again.
   */
  readonly expired: (expiry: { readonly runId: string; readonly callId?: string | undefined }) => Promise<void>;
}

export class LedgerSignals extends Context.Tag("agentloop/LedgerSignals")<LedgerSignals, LedgerSignalsShape>() {}

/** The PostgreSQL NOTIFY channel on which an owner that shuts down announces itself. */
export const OWNER_ENDED_CHANNEL = "agentloop_owner_ended";

/**
 * Runs `each` for every announcement of `signal`. Effect's Stream module loads here, when the first
 * announcement is listened to: only PostgreSQL announces anything, and the module adds about 60 ms
 * to `import "agentloop"`.
 */
export const forEachSignal = <A, E, R>(
  signal: Stream.Stream<A>,
  each: (value: A) => Effect.Effect<unknown, E, R>,
): Effect.Effect<void, E, R> =>
  Effect.flatMap(
    Effect.promise(() => import("effect/Stream")),
    (streams) => streams.runForEach(signal, each),
  );

export const none: Layer.Layer<LedgerSignals> = Layer.succeed(LedgerSignals, {
  ownerEnded: undefined,
  cancelRequested: undefined,
  approvalDecided: undefined,
  listening: undefined,
  ledgerAppended: undefined,
  serveExpiryJobs: undefined,
  serveRunJobs: undefined,
  prepareRunJobs: Effect.void,
});
