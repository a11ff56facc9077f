import { Effect, Fiber, type ManagedRuntime, Queue, Schedule } from "effect";
import { AgentRunStore, type QueuedRun } from "../persistence/AgentRunStore.js";
import type { DatabaseError } from "../persistence/database.js";

/**
 * A worker's side of the run queue: takes queued runs, oldest first, while it drives fewer than
 * its concurrency, and hands each to the runtime, which takes the run's lease before it drives it
 * (so two workers that see the same queued run never both drive it: the loser's lease insert
 * finds the winner's row). It looks when woken — a run enqueued on this runtime, a run of its own
 * ending — and on every poll, for runs other processes enqueued.
 */

export const DEFAULT_WORKER_CONCURRENCY = 4;
export const DEFAULT_WORKER_POLL_MS = 200;

export interface DispatcherSettings {
  readonly concurrency: number;
  readonly pollMs: number;
}

export interface DispatcherHost {
  readonly managed: ManagedRuntime.ManagedRuntime<AgentRunStore, DatabaseError>;
  readonly disposed: () => boolean;
  /**
   * Takes the queued run's lease and starts driving it; resolves once it is driven, with the
   * promise of its end, or undefined when another worker took it first or it ended meanwhile.
   */
  readonly start: (queued: QueuedRun) => Promise<{ readonly ended: Promise<unknown> } | undefined>;
}

export interface Dispatcher {
  /** Look at the queue now (a run was enqueued here, or a slot came free). */
  readonly wake: () => void;
  readonly stop: () => Promise<void>;
}

export function startDispatcher(settings: DispatcherSettings, host: DispatcherHost): Dispatcher {
  const concurrency = Math.max(1, Math.floor(settings.concurrency));
  let driving = 0;
  const wake = Effect.runSync(Queue.sliding<void>(1));
  const signal = () => {
    Queue.unsafeOffer(wake, undefined);
  };

  const pick = Effect.gen(function* () {
    if (host.disposed() || driving >= concurrency) return;
    const store = yield* AgentRunStore;
    const queued = yield* store.findQueuedRuns(concurrency - driving);
    for (const run of queued) {
      if (host.disposed() || driving >= concurrency) return;
      const started = yield* Effect.promise(() => host.start(run).catch(() => undefined));
      if (started === undefined) continue;
      driving += 1;
      const release = () => {
        driving -= 1;
        signal();
      };
      started.ended.then(release, release);
    }
  }).pipe(
    // A look that fails (the database briefly unreachable) is tried again at the next poll.
    Effect.catchAllCause(() => Effect.void),
  );

  const working = Effect.gen(function* () {
    yield* Effect.forkScoped(Queue.offer(wake, undefined).pipe(Effect.repeat(Schedule.spaced(settings.pollMs))));
    return yield* Queue.take(wake).pipe(Effect.zipRight(pick), Effect.forever);
  }).pipe(Effect.scoped);
  const fiber = host.managed.runFork(working);
  return {
    wake: signal,
    stop: () => host.managed.runPromise(Fiber.interrupt(fiber)).then(() => undefined),
  };
}
