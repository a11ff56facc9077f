import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import * as RcRef from "effect/RcRef";
import * as Schedule from "effect/Schedule";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import Pg from "pg";

/**
 * One LISTEN connection per process for every channel agentloop announces on, opened when the
 * first stream is run and closed when the last one ends. A lost connection is opened again (after
 * 50 ms, then backing off to 2 s) and every channel listened to again; what was announced while it
 * was down is lost, so each (re)connection is announced too (`connections`), and whoever acts on
 * announcements reads the ledger then to catch up. (@effect/sql-pg's own `listen` keeps a dead
 * connection and goes quiet, which is fine beside a poll but not instead of one.)
 */

export interface Notification {
  readonly channel: string;
  readonly payload: string;
}

export interface Listener {
  /** The payloads announced on `channel`. */
  readonly listen: (channel: string) => Stream.Stream<string>;
  /**
   * Emits once LISTEN is in place on a new connection — the first one and every one after a loss —
   * and at once to a subscriber that comes while a connection is up. Each emission asks for a read
   * of the ledger: announcements may have been missed.
   */
  readonly connections: Stream.Stream<number>;
}

const RECONNECT = Schedule.exponential("50 millis").pipe(Schedule.union(Schedule.spaced("2 seconds")));

export const makeListener = (
  url: string,
  channels: ReadonlyArray<string>,
): Effect.Effect<Listener, never, Scope.Scope> =>
  Effect.gen(function* () {
    const connection = yield* RcRef.make({
      acquire: Effect.gen(function* () {
        const hub = yield* PubSub.unbounded<Notification>();
        // 0: not connected yet; n: the n-th connection has LISTEN in place.
        const generation = yield* SubscriptionRef.make(0);
        /** One connection's life: LISTEN on every channel, then wait for it to fail or end. */
        const connectOnce = Effect.acquireUseRelease(
          Effect.tryPromise(async () => {
            const client = new Pg.Client({ connectionString: url, application_name: "agentloop-listen" });
            client.on("error", () => {});
            await client.connect();
            return client;
          }),
          (client) =>
            Effect.gen(function* () {
              const lost = Effect.async<void, Error>((resume) => {
                const onEnd = () => resume(Effect.fail(new Error("the LISTEN connection ended")));
                client.once("end", onEnd);
                client.once("error", onEnd);
                return Effect.sync(() => {
                  client.off("end", onEnd);
                  client.off("error", onEnd);
                });
              });
              client.on("notification", (message) => {
                if (message.payload !== undefined) {
                  Effect.runSync(PubSub.publish(hub, { channel: message.channel, payload: message.payload }));
                }
              });
              for (const channel of channels) {
                yield* Effect.tryPromise(() => client.query(`LISTEN ${Pg.escapeIdentifier(channel)}`));
              }
              yield* SubscriptionRef.update(generation, (n) => n + 1);
              return yield* lost;
            }),
          (client) => Effect.promise(() => client.end().catch(() => undefined)),
        );
        yield* Effect.forkScoped(Effect.retry(connectOnce, RECONNECT).pipe(Effect.ignore));
        return { hub, generation };
      }),
    });
    const listen = (channel: string): Stream.Stream<string> =>
      Stream.unwrapScoped(
        Effect.map(RcRef.get(connection), ({ hub }) =>
          Stream.fromPubSub(hub).pipe(
            Stream.filter((notification) => notification.channel === channel),
            Stream.map((notification) => notification.payload),
          ),
        ),
      );
    const connections = Stream.unwrapScoped(
      Effect.map(RcRef.get(connection), ({ generation }) => generation.changes.pipe(Stream.filter((n) => n > 0))),
    );
    return { listen, connections };
  });
