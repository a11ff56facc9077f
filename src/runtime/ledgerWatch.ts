import { Effect, Fiber, type ManagedRuntime, Schedule, Stream } from "effect";
import type { DatabaseError } from "../persistence/database.js";
import { LedgerSignals } from "../persistence/ledgerSignals.js";
import { cancelRequestsSince } from "../persistence/runCancellation.js";
import type { RuntimeServices } from "./runtimeConfig.js";

/**
 * Cancels asked for in other processes, for the runs this runtime drives: announced ones as they
 * are announced (PostgreSQL), otherwise read from the ledger on a short poll while this runtime
 * drives any run. A run taken over later reads its request when it is resumed, so a request made
 * while nobody drove the run is not lost.
 */

export const DEFAULT_CANCEL_POLL_MS = 250;

export interface CancelWatchHost {
  readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, DatabaseError>;
  /** Cancels the run if this runtime drives it. */
  readonly cancel: (runId: string) => void;
  readonly driving: () => boolean;
  readonly pollMs: number;
}

export function startCancelWatch(host: CancelWatchHost): () => Promise<void> {
  // Requests a little older than the watch are read too: the clocks of two processes differ.
  let since = new Date(Date.now() - 60_000).toISOString();
  const seen = new Set<string>();
  const poll = Effect.gen(function* () {
    if (!host.driving()) return;
    const requests = yield* cancelRequestsSince(since);
    for (const request of requests) {
      if (request.requested_at > since) {
        since = request.requested_at;
        seen.clear();
      }
      if (seen.has(request.run_id)) continue;
      seen.add(request.run_id);
      host.cancel(request.run_id);
    }
  }).pipe(Effect.catchAll(() => Effect.void));
  const watching = Effect.gen(function* () {
    const signals = yield* LedgerSignals;
    if (signals.cancelRequested) {
      return yield* Stream.runForEach(signals.cancelRequested, (runId) => Effect.sync(() => host.cancel(runId)));
    }
    return yield* poll.pipe(Effect.repeat(Schedule.spaced(host.pollMs)));
  });
  const fiber = host.managed.runFork(watching);
  return () => host.managed.runPromise(Fiber.interrupt(fiber)).then(() => undefined);
}
