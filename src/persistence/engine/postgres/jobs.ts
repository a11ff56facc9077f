import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { Logger, run, runMigrations, type TaskList } from "graphile-worker";
import { DatabaseError } from "../../database.js";
import type { ExpiryJobOptions, RunJobOptions } from "../../ledgerSignals.js";
import { APPROVAL_EXPIRY_TASK, LEASE_EXPIRY_TASK } from "../../migrations/0013_wake_ups.js";
import { displayUrl } from "./url.js";

/**
 * Queued runs on PostgreSQL, handed out by graphile-worker: `enqueueRun` adds a job keyed by the
 * run in the transaction that queues it (Dialect.queueJob), and a worker's runner hears of it at
 * once (LISTEN/NOTIFY; its own poll is the only fallback). The job is only the wake-up: who
 * drives a run is its lease, so a job that outlives its worker — graphile-worker keeps a dead
 * worker's job locked for hours — finds the run taken over or ended and completes.
 */

/** The task name of a queued run's job. */
export const RUN_JOB_TASK = "agentloop_run";

/** graphile-worker's own log lines: its warnings and errors only, on stderr. */
const quietLogger = new Logger((scope) => (level, message) => {
  if (level === "error" || level === "warning") console.error(`[graphile-worker ${scope.label ?? ""}] ${message}`);
});

/** graphile-worker's schema, so a job can be added in the transaction that queues a run. */
export const installJobs = (url: string): Effect.Effect<void, DatabaseError> =>
  Effect.tryPromise({
    try: () => runMigrations({ connectionString: url, logger: quietLogger }),
    catch: (cause) =>
      new DatabaseError({
        reason: "migration_failed",
        message: `cannot install the job queue in ${displayUrl(url)}: ${cause instanceof Error ? cause.message : String(cause)}`,
      }),
  });

/** A graphile-worker runner for the given tasks, for as long as the scope lasts. */
const serveTasks = (
  url: string,
  options: { readonly concurrency: number; readonly fallbackPollMs: number },
  taskList: TaskList,
): Effect.Effect<void, DatabaseError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        run({
          connectionString: url,
          concurrency: options.concurrency,
          maxPoolSize: options.concurrency + 2,
          noHandleSignals: true,
          pollInterval: options.fallbackPollMs,
          logger: quietLogger,
          taskList,
        }),
      catch: (cause) =>
        new DatabaseError({
          reason: "open_failed",
          message: `cannot start the job runner on ${displayUrl(url)}: ${cause instanceof Error ? cause.message : String(cause)}`,
        }),
    }),
    (runner) => Effect.promise(() => runner.stop()),
  ).pipe(Effect.asVoid);

const text = (payload: unknown, key: string): string | undefined => {
  const value = (payload as Record<string, unknown> | null)?.[key];
  return typeof value === "string" ? value : undefined;
};

/** A graphile-worker runner for the queue's jobs, for as long as the scope lasts. */
export const serveRunJobs =
  (url: string) =>
  (options: RunJobOptions): Effect.Effect<void, DatabaseError, Scope.Scope> =>
    serveTasks(url, options, {
      [RUN_JOB_TASK]: async (payload) => {
        const runId = text(payload, "runId");
        if (runId) await options.drive(runId);
      },
    });

/**
 * A supervisor's runner for the expiry jobs the database schedules (migration 0013): the schema
 * first (the triggers only write jobs once it is there), then the runner. A job whose handler
 * rejects is tried again by graphile-worker, with its backoff.
 */
export const serveExpiryJobs =
  (url: string, install: Effect.Effect<void, DatabaseError>) =>
  (options: ExpiryJobOptions): Effect.Effect<void, DatabaseError, Scope.Scope> =>
    Effect.zipRight(
      install,
      serveTasks(url, options, {
        [LEASE_EXPIRY_TASK]: async (payload) => {
          const runId = text(payload, "runId");
          if (runId) await options.expired({ runId });
        },
        [APPROVAL_EXPIRY_TASK]: async (payload) => {
          const runId = text(payload, "runId");
          if (runId) await options.expired({ runId, callId: text(payload, "callId") });
        },
      }),
    );
