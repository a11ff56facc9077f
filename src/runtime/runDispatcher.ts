import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Queue from "effect/Queue";
import * as Schedule from "effect/Schedule";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { DatabaseError } from "../persistence/database.js";
import { LedgerSignals } from "../persistence/ledgerSignals.js";

/**
 * A worker's side of the run queue: it takes queued runs while it drives fewer than its
 * concurrency and hands each to the runtime, which takes the run's lease before it drives it (so
 * two workers that reach for the same run never both drive it: the loser finds the winner's
 * lease). Where the ledger's engine hands queued runs out as jobs (PostgreSQL: graphile-worker,
 * woken by NOTIFY), the worker serves those; otherwise (SQLite) it looks at the queue when woken —
 * a run enqueued on this runtime, a run of its own ending — and on a short poll, for runs other
 * processes enqueued.
 */

export const DEFAULT_WORKER_CONCURRENCY = 4;
export const DEFAULT_WORKER_POLL_MS = 200;
/** How often the job system looks for jobs when no notification reached it. */
const JOB_FALLBACK_POLL_MS = 2_000;

export interface DispatcherSettings {
  readonly concurrency: number;
  /** The queue poll where runs are not handed out as jobs. */
  readonly pollMs: number;
}

export interface DispatcherHost {
  readonly managed: ManagedRuntime.ManagedRuntime<AgentRunStore | LedgerSignals, DatabaseError>;
  readonly disposed: () => boolean;
  /**
   * Takes the queued run's lease and starts driving it; resolves once it is driven, with the
   * promise of its end, or undefined when another worker took it first or it ended meanwhile.
   * Rejects when this runtime cannot drive it (an agent it does not know): the run stays queued.
   */
  readonly drive: (runId: string) => Promise<{ readonly ended: Promise<unknown> } | undefined>;
}

export interface Dispatcher {
  /** Look at the queue now (a run was enqueued here). */
  readonly wake: () => void;
  /** Takes no more runs; the runs it drives are left to the runtime's shutdown. */
  readonly stop: () => Promise<void>;
}

export function startDispatcher(settings: DispatcherSettings, host: DispatcherHost): Dispatcher {
  const concurrency = Math.max(1, Math.floor(settings.concurrency));
  let driving = 0;
  const wake = Effect.runSync(Queue.sliding<void>(1));
  const signal = () => {
    Queue.unsafeOffer(wake, undefined);
  };
  // Shutting down: a job waiting on its run's end gives its slot back at once, so the job
  // system's own graceful stop does not wait for runs the runtime is about to cancel or park.
  const draining = Effect.runSync(Deferred.make<void>());

  const pick = Effect.gen(function* () {
    if (host.disposed() || driving >= concurrency) return;
    const store = yield* AgentRunStore;
    const queued = yield* store.findQueuedRuns(concurrency - driving);
    for (const { runId } of queued) {
      if (host.disposed() || driving >= concurrency) return;
      const started = yield* Effect.promise(() => host.drive(runId).catch(() => undefined));
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

  const polling = Effect.gen(function* () {
    yield* Effect.forkScoped(Queue.offer(wake, undefined).pipe(Effect.repeat(Schedule.spaced(settings.pollMs))));
    return yield* Queue.take(wake).pipe(Effect.zipRight(pick), Effect.forever);
  });

  /** A job settles when its run ended, was not this worker's, or the worker shuts down. */
  const driveJob = async (runId: string) => {
    const started = await host.drive(runId);
    if (!started) return;
    await host.managed.runPromise(
      Effect.raceFirst(
        Effect.promise(() => started.ended.catch(() => undefined)),
        Deferred.await(draining),
      ),
    );
  };

  const working = Effect.gen(function* () {
    const signals = yield* LedgerSignals;
    if (signals.serveRunJobs === undefined) return yield* polling;
    yield* signals.serveRunJobs({ concurrency, fallbackPollMs: JOB_FALLBACK_POLL_MS, drive: driveJob });
    return yield* Effect.never;
  }).pipe(
    Effect.scoped,
    Effect.catchAll((error) => Effect.logError(`the run queue's worker stopped: ${error.message}`)),
  );
  const fiber = host.managed.runFork(working);
  return {
    wake: signal,
    stop: async () => {
      Effect.runSync(Deferred.succeed(draining, undefined));
      await host.managed.runPromise(Fiber.interrupt(fiber));
    },
  };
}
