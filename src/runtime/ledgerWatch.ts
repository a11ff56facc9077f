import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Schedule from "effect/Schedule";
import type { DatabaseError } from "../persistence/database.js";
import { forEachSignal, LedgerSignals } from "../persistence/ledgerSignals.js";
import { cancelRequestsSince } from "../persistence/runCancellation.js";
import type { RuntimeServices } from "./runtimeConfig.js";

/**
 * What other processes ask of the runs this runtime drives. Cancels: acted on as they are
 * announced (PostgreSQL), otherwise read from the ledger on a short poll while this runtime drives
 * any run; a run taken over later reads its request when it is resumed, so a request made while
 * nobody drove the run is not lost. Approval decisions: where they are announced, the run's
 * decisions are read at once; elsewhere the waiting run's own approval poll reads them. What was
 * announced while the LISTEN connection was down is lost, so each time it is (re)established the
 * cancel requests and every waiting run's decisions are read from the ledger once.
 */

export const DEFAULT_CANCEL_POLL_MS = 250;

export interface LedgerWatchHost {
  readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, DatabaseError>;
  /** Cancels the run if this runtime drives it. */
  readonly cancel: (runId: string) => void;
  /** A decision was recorded for the run: if this runtime drives it, it reads its decisions now. */
  readonly decided: (runId: string) => void;
  /** Announcements may have been missed: every run this runtime drives reads its decisions now. */
  readonly catchUp: () => void;
  readonly driving: () => boolean;
  readonly cancelPollMs: number;
}

export function startLedgerWatch(host: LedgerWatchHost): () => Promise<void> {
  // Requests a little older than the watch are read too: the clocks of two processes differ.
  let since = new Date(Date.now() - 60_000).toISOString();
  const seen = new Set<string>();
  const pollCancels = Effect.gen(function* () {
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
  }).pipe(
    Effect.catchAll(() => Effect.void),
    // A read every few hundred milliseconds is no operation a trace should show.
    Effect.withTracerEnabled(false),
  );

  const watching = Effect.gen(function* () {
    const signals = yield* LedgerSignals;
    const cancels = signals.cancelRequested
      ? forEachSignal(signals.cancelRequested, (runId) => Effect.sync(() => host.cancel(runId)))
      : pollCancels.pipe(Effect.repeat(Schedule.spaced(host.cancelPollMs)));
    const decisions = signals.approvalDecided
      ? forEachSignal(signals.approvalDecided, (runId) => Effect.sync(() => host.decided(runId)))
      : Effect.void;
    const catchUp = signals.listening
      ? forEachSignal(signals.listening, () =>
          Effect.zipRight(
            Effect.sync(() => host.catchUp()),
            pollCancels,
          ),
        )
      : Effect.void;
    yield* Effect.all([cancels, decisions, catchUp], { concurrency: "unbounded", discard: true });
  });
  const fiber = host.managed.runFork(watching);
  return () => host.managed.runPromise(Fiber.interrupt(fiber)).then(() => undefined);
}
