import { type SqlClient, SqlError } from "@effect/sql";
import { Effect } from "effect";
import type { AgentRunStoreShape } from "./AgentRunStore.js";
import { isPostgres, nowMillis } from "./dialect.js";
import * as LedgerWriter from "./ledgerWriter.js";

/**
 * Taking over a run's lease (issue P, migration 0007). A lease is taken when it has expired on
 * the database's clock, when nobody holds one, when this owner already holds it (the epoch still
 * moves on, fencing off any older writer of this owner), or — `force` — when the caller knows
 * its owner is gone (it ended, or its process is gone on this host). The takeover is one
 * statement, so two replicas racing for a run cannot both win; the winner's epoch is what its
 * writer stamps on every row from then on.
 */

export interface LeaseOptions {
  readonly sql: SqlClient.SqlClient;
  readonly writer: LedgerWriter.LedgerWriter;
  readonly ownerId: string | undefined;
  readonly leaseMs: number;
}

export const make = (options: LeaseOptions): Pick<AgentRunStoreShape, "acquireLease"> => {
  const { sql, writer, ownerId, leaseMs } = options;

  const takeOver = (runId: string, owner: string, force: boolean, skipLocked: boolean) =>
    Effect.gen(function* () {
      const state = yield* sql<{
        terminal_state: string;
      }>`SELECT terminal_state FROM agent_runs WHERE run_id = ${runId}`;
      if (state[0]?.terminal_state !== "running") return undefined;
      // PostgreSQL: a lease row another replica is taking over (or appending under) right now is
      // skipped by a supervisor's scan rather than waited for.
      if (skipLocked && isPostgres(sql)) {
        const free = yield* sql<{ run_id: string }>`
          SELECT run_id FROM run_leases WHERE run_id = ${runId} FOR UPDATE SKIP LOCKED`;
        const exists = yield* sql<{ run_id: string }>`SELECT run_id FROM run_leases WHERE run_id = ${runId}`;
        if (exists.length > 0 && free.length === 0) return undefined;
      }
      const taken = yield* sql<{ epoch: number }>`
        INSERT INTO run_leases (run_id, owner_id, epoch, expires_at)
        VALUES (${runId}, ${owner}, 1, ${nowMillis(sql)} + ${leaseMs})
        ON CONFLICT (run_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = run_leases.epoch + 1,
          expires_at = excluded.expires_at
        WHERE run_leases.expires_at < ${nowMillis(sql)} OR run_leases.owner_id = excluded.owner_id
          OR ${sql.unsafe(force ? "1 = 1" : "1 = 0")}
        RETURNING epoch`;
      const epoch = taken[0]?.epoch;
      if (epoch === undefined) return undefined;
      yield* sql`INSERT INTO agent_run_owners (run_id, owner_id) VALUES (${runId}, ${owner})
        ON CONFLICT (run_id) DO UPDATE SET owner_id = excluded.owner_id`;
      return Number(epoch);
    });

  const acquireLease: AgentRunStoreShape["acquireLease"] = (runId, acquire = {}) =>
    Effect.gen(function* () {
      if (!ownerId) {
        return yield* Effect.fail(
          new SqlError.SqlError({ cause: null, message: "this ledger store has no owner: it cannot hold leases" }),
        );
      }
      const epoch = yield* sql
        .withTransaction(takeOver(runId, ownerId, acquire.force ?? false, acquire.skipLocked ?? false))
        .pipe(LedgerWriter.transactionDefectAsFailure(`acquireLease ${runId}`));
      if (epoch !== undefined) writer.leases.hold(runId, epoch);
      return epoch;
    }).pipe(Effect.mapError((error) => LedgerWriter.toLedgerError(error, `acquireLease ${runId}`)));

  return { acquireLease };
};
