import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import { AgentRunStore, LedgerError } from "./AgentRunStore.js";
import { Dialect } from "./engine/Dialect.js";
import { cancelledClosing } from "./ledgerRecovery.js";
import { toLedgerError, transactionDefectAsFailure } from "./ledgerWriter.js";
import * as SqlClient from "./sqlClient.js";

/**
 * Cancels asked for from any process (migration 0012). The request is a ledger row; where the
 * engine can announce it (PostgreSQL NOTIFY) the runtime driving the run hears of it at once,
 * elsewhere that runtime reads new requests on a short poll, and a runtime taking a run over reads
 * its request before it drives it. A run still waiting in the queue has nobody to tell: the
 * process that asks closes it itself, under the run's first lease.
 */

/** The channel on which a cancel request is announced (its payload: the run id). */
export const RUN_CANCEL_CHANNEL = "agentloop_run_cancel";

const refuse =
  (context: string) =>
  <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>) =>
    Effect.mapError(effect, (error) => (error instanceof LedgerError ? error : toLedgerError(error, context)));

export interface CancelRequest {
  readonly runId: string;
  readonly requestedBy: string;
  readonly requestedAt: string;
}

/**
 * Records the request (the first one for a run stands) and announces it, in one transaction.
 * Refused for a run that is not in the ledger or has ended. Says whether the run was still queued.
 */
export const requestCancel = (request: CancelRequest) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const dialect = yield* Dialect;
    const context = `requestCancel ${request.runId}`;
    return yield* sql
      .withTransaction(
        Effect.gen(function* () {
          // The write comes first: on SQLite it takes the file's write lock at once (waiting out
          // another writer), where a read first could meet another process's commit and fail.
          yield* sql`INSERT INTO agent_run_cancel_requests (run_id, requested_by, requested_at)
            SELECT run_id, ${request.requestedBy}, ${request.requestedAt} FROM agent_runs
            WHERE run_id = ${request.runId} AND terminal_state = 'running'
            ON CONFLICT (run_id) DO NOTHING`;
          const [run] = yield* sql<{ terminal_state: string; queued: number | boolean }>`
            SELECT r.terminal_state,
              (EXISTS (SELECT 1 FROM agent_run_queue q WHERE q.run_id = r.run_id)
                AND NOT EXISTS (SELECT 1 FROM run_leases l WHERE l.run_id = r.run_id)) AS queued
            FROM agent_runs r WHERE r.run_id = ${request.runId}`;
          if (!run) return yield* new LedgerError({ reason: "invalid_payload", message: `${context}: no such run` });
          if (run.terminal_state !== "running") {
            return yield* new LedgerError({ reason: "run_not_running", message: `${context}: the run has ended` });
          }
          yield* dialect.notify(RUN_CANCEL_CHANNEL, request.runId);
          return { queued: run.queued === true || Number(run.queued) === 1 };
        }),
      )
      .pipe(transactionDefectAsFailure(context), refuse(context));
  });

/** Whether a cancel was asked for the run. */
export const cancelRequested = (runId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const rows = yield* sql<{ run_id: string }>`SELECT run_id FROM agent_run_cancel_requests WHERE run_id = ${runId}`;
    return rows.length > 0;
  }).pipe(refuse(`cancelRequested ${runId}`));

/** Requests made at or after `since` (ISO time), oldest first: what a polling runtime reads. */
export const cancelRequestsSince = (since: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    return yield* sql<{ run_id: string; requested_at: string }>`
      SELECT run_id, requested_at FROM agent_run_cancel_requests WHERE requested_at >= ${since}
      ORDER BY requested_at`;
  }).pipe(refuse("cancelRequestsSince"));

/**
 * Closes a run nobody has started — it is still in the queue — as cancelled: its first lease is
 * taken (so a worker reaching for it now finds it taken), it leaves the queue, and its terminal
 * row lands. Undefined when a worker took it first: that worker reads the request instead.
 */
export const closeQueuedRun = (runId: string, requestedBy: string) =>
  Effect.retry(closeQueuedRunOnce(runId, requestedBy), {
    schedule: BUSY_RETRY,
    while: (error) => /database is locked|SQLITE_BUSY/i.test(error.message),
  });

/** Up to ~2.5 s of retries when another process's commit comes between a read and a write (SQLite). */
const BUSY_RETRY = Schedule.exponential("10 millis").pipe(Schedule.intersect(Schedule.recurs(8)));

const closeQueuedRunOnce = (runId: string, requestedBy: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const epoch = yield* store.acquireLease(runId, { skipLocked: true });
    if (epoch === undefined) return undefined;
    yield* store.dequeueRun(runId);
    const events = yield* store.listRunEvents(runId);
    yield* store.finishRun(runId, {
      sequence: (events.at(-1)?.sequence ?? 0) + 1,
      terminal: {
        terminalState: "cancelled",
        reason: "cancelled_by_user",
        finalText: "",
        steps: 0,
        correctionTurns: 0,
      },
      failureDetail: `cancelled by ${requestedBy} before a worker started it`,
    });
    return epoch;
  });

/**
 * After the request: a run still queued is closed under its first lease, and one that no live
 * runtime drives (parked for approval when its runtime shut down, or its process gone) is closed
 * with receipts for its open calls. A run a live runtime drives is left to that runtime. Says
 * whether the run was closed here.
 */
export const closeUndrivenRun = (runId: string, requestedBy: string, queued: boolean) =>
  Effect.gen(function* () {
    if (queued && (yield* closeQueuedRun(runId, requestedBy)) !== undefined) return true;
    const store = yield* AgentRunStore;
    return (yield* store.closeAbandonedRun(runId, cancelledClosing(requestedBy))) !== undefined;
  });
