import type * as SqlClient from "@effect/sql/SqlClient";
import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import type { AgentRunStoreShape, LedgerError, QueuedRun } from "./AgentRunStore.js";
import * as LedgerWriter from "./ledgerWriter.js";

/**
 * The run queue (migration 0012): runs `enqueueRun` wrote and no worker has taken yet. A queued
 * run is open in the ledger but not abandoned — nobody ever drove it — so recovery leaves it, and a
 * worker takes it by taking its lease. Once a lease exists the run is an ordinary open run: if its
 * worker dies, the lease lapses and a supervisor takes it over like any other.
 */
export const make = (sql: SqlClient.SqlClient): Pick<AgentRunStoreShape, "findQueuedRuns" | "dequeueRun"> => {
  const refuse =
    (context: string) =>
    <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>) =>
      Effect.mapError(effect, (error) => LedgerWriter.toLedgerError(error, context));

  const findQueuedRuns: AgentRunStoreShape["findQueuedRuns"] = (limit) =>
    sql<{ run_id: string; agent_name: string; enqueued_at: string }>`
      SELECT q.run_id, q.agent_name, q.enqueued_at FROM agent_run_queue q
      JOIN agent_runs r ON r.run_id = q.run_id AND r.terminal_state = 'running'
      WHERE NOT EXISTS (SELECT 1 FROM run_leases l WHERE l.run_id = q.run_id)
      ORDER BY q.enqueued_at, q.run_id
      LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
      Effect.map((rows) =>
        rows.map((row): QueuedRun => ({ runId: row.run_id, agentName: row.agent_name, enqueuedAt: row.enqueued_at })),
      ),
      refuse("findQueuedRuns"),
    );

  const dequeueRun: AgentRunStoreShape["dequeueRun"] = (runId) =>
    sql`DELETE FROM agent_run_queue WHERE run_id = ${runId}`.pipe(Effect.asVoid, refuse(`dequeueRun ${runId}`));

  return { findQueuedRuns, dequeueRun };
};

/** The open runs still waiting in the queue (no lease yet): not abandoned, only not started. */
export const queuedRunIds = (sql: SqlClient.SqlClient) =>
  sql<{ run_id: string }>`SELECT q.run_id FROM agent_run_queue q
    WHERE NOT EXISTS (SELECT 1 FROM run_leases l WHERE l.run_id = q.run_id)`.pipe(
    Effect.map((rows) => new Set(rows.map((row) => row.run_id))),
  );
