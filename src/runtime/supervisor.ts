import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import * as Queue from "effect/Queue";
import * as Runtime from "effect/Runtime";
import * as Schedule from "effect/Schedule";
import type { RunRecord } from "../domain/index.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { listApprovals } from "../persistence/approvals.js";
import type { DatabaseError } from "../persistence/database.js";
import { forEachSignal, LedgerSignals } from "../persistence/ledgerSignals.js";
import { planResume, type ResumePlan } from "../services/resumePlan.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";

/**
 * Taking runs over: the ledger side of a resume, and the supervisor that finds runs to resume.
 * The runtime drives what they hand it.
 */

export interface SupervisorSettings<Handle> {
  /**
   * How often to look for abandoned runs where nothing announces expiries (SQLite; default 2 s).
   * On PostgreSQL a supervisor does not poll: leases and approval requests that expire are jobs.
   */
  readonly intervalMs?: number | undefined;
  /**
   * PostgreSQL: how often graphile-worker looks for expiry jobs that came due (default 500 ms). A
   * job due later is not announced when it comes due: this look is what bounds a takeover's delay
   * past the lease's expiry.
   */
  readonly expiryPollMs?: number | undefined;
  /** Receives each run this runtime took over (its handle, as `resumeRun` returns it). */
  readonly onResumed?: ((handle: Handle) => void) | undefined;
}

const DEFAULT_SUPERVISE_INTERVAL_MS = 2_000;
const DEFAULT_EXPIRY_POLL_MS = 500;
/** Expiries handled at once: each is one takeover, a few statements long. */
const EXPIRY_CONCURRENCY = 2;

/** Why a run cannot be taken over: it is not in the ledger, it ended, or a live runtime drives it. */
export class TakeOverRefused extends Data.TaggedError("TakeOverRefused")<{
  readonly reason: "no_such_run" | "run_ended" | "lease_held";
  readonly message: string;
}> {}

export interface TakeOverOptions {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly defaultToolTimeoutMs: number;
  /** Take the lease even if it has not expired (the caller knows its holder is gone). */
  readonly force: boolean;
  readonly skipLocked: boolean;
  /** The run waits in the queue: nobody ever drove it, so there is no owner to judge. */
  readonly queued?: boolean | undefined;
}

/**
 * Takes an open run's lease (forced when its owner is known gone), plans the resume from its
 * ledger and writes the rows of the calls that may not run again — all before the run's actor
 * starts, so a second takeover finds them settled.
 */
export const takeOverRun = (runId: string, options: TakeOverOptions) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const run = yield* store.getRun(runId);
    if (!run) return yield* new TakeOverRefused({ reason: "no_such_run", message: `no run ${runId} in the ledger` });
    if (run.terminalState !== "running") {
      return yield* new TakeOverRefused({
        reason: "run_ended",
        message: `run ${runId} already ended ${run.terminalState}`,
      });
    }
    // A queued run has no owner to judge (and reading every open run per pickup would cost a
    // worker more the longer the queue).
    const abandoned = options.queued
      ? undefined
      : (yield* store.findAbandonedRuns()).find((candidate) => candidate.run.runId === runId);
    const epoch = yield* store.acquireLease(runId, {
      force: options.force || abandoned?.ownerKnownGone === true,
      skipLocked: options.skipLocked,
    });
    if (epoch === undefined) {
      return yield* new TakeOverRefused({
        reason: "lease_held",
        message: `run ${runId} is driven by a live runtime (its lease has not expired)`,
      });
    }
    const [ledger] = yield* store.loadRunLedgers([run]);
    const approvals = yield* listApprovals(runId);
    const starts = yield* store.listStarts(runId);
    const plan = planResume(ledger!, {
      tools: options.tools,
      defaultToolTimeoutMs: options.defaultToolTimeoutMs,
      now: new Date().toISOString(),
      approvals,
      starts,
    });
    if (plan.settle.events.length > 0) yield* store.appendEvents(runId, plan.settle.events, plan.settle.receipts);
    const takenOver: { readonly run: RunRecord; readonly plan: ResumePlan } = { run, plan };
    return takenOver;
  });

export interface SupervisorHost<Handle> {
  readonly managed: ManagedRuntime.ManagedRuntime<AgentRunStore | LedgerSignals, DatabaseError>;
  readonly inFlight: (runId: string) => boolean;
  readonly disposed: () => boolean;
  readonly resume: (runId: string) => Promise<Handle>;
}

/** Whether `resumeRun` rejected because the run was not to be taken over (ended, or its lease held). */
export const takeOverRefused = (error: unknown): boolean =>
  Runtime.isFiberFailure(error) &&
  Option.exists(
    Cause.failureOption(error[Runtime.FiberFailureCauseId]),
    (failure) => failure instanceof TakeOverRefused,
  );

/**
 * Scans for abandoned runs now and on every owner-ended signal, resuming each; a run another
 * replica claims first is skipped. Scans never overlap (one fiber runs them, a signal that comes
 * during a scan asks for one more). Where the database hands out expiries as jobs (PostgreSQL),
 * a lease or an approval request that expires wakes the supervisor when it is due, and the LISTEN
 * connection coming back asks for a scan (announcements may have been lost): nothing polls but
 * the job system's own look for due jobs. Elsewhere (SQLite) it scans every `intervalMs` too.
 * Returns the function that stops it.
 */
export function startSupervisor<Handle>(
  settings: SupervisorSettings<Handle>,
  host: SupervisorHost<Handle>,
): () => Promise<void> {
  const resume = async (runId: string) => {
    if (host.disposed() || host.inFlight(runId)) return;
    const handle = await host.resume(runId);
    settings.onResumed?.(handle);
  };
  const scan = Effect.gen(function* () {
    if (host.disposed()) return;
    const abandoned = yield* Effect.flatMap(AgentRunStore, (store) => store.findAbandonedRuns());
    for (const { run } of abandoned) {
      yield* Effect.promise(() => resume(run.runId).catch(() => undefined));
    }
  }).pipe(
    // A failed scan (the database briefly unreachable) is retried at the next poll or signal.
    Effect.catchAllCause(() => Effect.void),
  );
  /** A due expiry: refused means the lease is held or the run ended; anything else is tried again. */
  const expired = (expiry: { readonly runId: string }) =>
    resume(expiry.runId).catch((error: unknown) => {
      if (!takeOverRefused(error)) throw error;
    });
  const supervising = Effect.gen(function* () {
    const wake = yield* Queue.sliding<void>(1);
    const signals = yield* LedgerSignals;
    const ask = () => Queue.offer(wake, undefined);
    if (signals.ownerEnded) yield* Effect.forkScoped(forEachSignal(signals.ownerEnded, ask));
    yield* ask();
    // Where the job system cannot be served (its schema cannot be installed by this database
    // user, say), the supervisor falls back to looking on a timer, as on SQLite.
    const jobs = signals.serveExpiryJobs
      ? yield* signals
          .serveExpiryJobs({
            concurrency: EXPIRY_CONCURRENCY,
            fallbackPollMs: settings.expiryPollMs ?? DEFAULT_EXPIRY_POLL_MS,
            expired,
          })
          .pipe(
            Effect.as(true),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning(`expiry jobs unavailable, the supervisor polls: ${error.message}`), false),
            ),
          )
      : false;
    if (jobs && signals.listening) yield* Effect.forkScoped(forEachSignal(signals.listening, ask));
    if (!jobs) {
      yield* Effect.forkScoped(
        ask().pipe(Effect.repeat(Schedule.spaced(settings.intervalMs ?? DEFAULT_SUPERVISE_INTERVAL_MS))),
      );
    }
    return yield* Queue.take(wake).pipe(Effect.zipRight(scan), Effect.forever);
  }).pipe(Effect.scoped);
  const fiber = host.managed.runFork(supervising);
  return () => host.managed.runPromise(Fiber.interrupt(fiber)).then(() => undefined);
}
