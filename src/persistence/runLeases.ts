import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { type AgentRunStoreShape, LedgerError } from "./AgentRunStore.js";
import type { DialectShape } from "./engine/Dialect.js";
import * as LedgerWriter from "./ledgerWriter.js";
import { judgeOwner, type OwnerRecord, processAlive, thisHost } from "./runOwners.js";

/**
 * Taking over a run's lease, as a compare-and-set. The lease row is the one record of who drives
 * a run. A replica reads it (on PostgreSQL under a row lock) and may take it when it has expired
 * on the database's clock, when nobody holds one, when this owner already holds it (the epoch
 * still moves on, fencing off any older writer of this owner), or — `force` — when the holder
 * named in the row *now* is gone (ended, or its process is gone on this host): never on the
 * strength of an earlier look. The update then only lands if the row still has the epoch and
 * owner that were read; a replica that raced and lost gets nothing and backs off. So each expiry
 * gives at most one takeover, and the winner's epoch is what its writer stamps on every row.
 */

export interface LeaseOptions {
  readonly sql: SqlClient.SqlClient;
  readonly dialect: DialectShape;
  readonly writer: LedgerWriter.LedgerWriter;
  readonly ownerId: string | undefined;
  readonly leaseMs: number;
}

interface LeaseRow {
  readonly owner_id: string;
  readonly epoch: number;
  readonly expired: number | boolean;
}

interface OwnerRow {
  readonly owner_id: string;
  readonly pid: number;
  readonly host: string;
  readonly started_at: string;
  readonly heartbeat_at: string;
  readonly expires_at: string;
  readonly ended_at: string | null;
}

export const make = (options: LeaseOptions): Pick<AgentRunStoreShape, "acquireLease"> => {
  const { sql, dialect, writer, ownerId, leaseMs } = options;

  /** Whether the owner that holds the lease right now is gone, judged on its row read now. */
  const holderGone = (holder: string) =>
    Effect.map(
      sql<OwnerRow>`SELECT owner_id, pid, host, started_at, heartbeat_at, expires_at, ended_at
        FROM agent_ledger_owners WHERE owner_id = ${holder}`,
      ([row]) => {
        const owner: OwnerRecord | null = row
          ? {
              ownerId: row.owner_id,
              pid: Number(row.pid),
              host: row.host,
              startedAt: row.started_at,
              heartbeatAt: row.heartbeat_at,
              expiresAt: row.expires_at,
              endedAt: row.ended_at,
            }
          : null;
        return judgeOwner(owner, { ownerId, host: thisHost(), now: new Date(), processAlive }).gone;
      },
    );

  const takeOver = (runId: string, owner: string, force: boolean, skipLocked: boolean) =>
    Effect.gen(function* () {
      const state = yield* sql<{
        terminal_state: string;
      }>`SELECT terminal_state FROM agent_runs WHERE run_id = ${runId}`;
      if (state[0]?.terminal_state !== "running") return undefined;
      // Where rows can be locked (PostgreSQL), the lease row is locked while this replica decides;
      // a supervisor's scan skips a row another replica is deciding on rather than waiting for it.
      const leases = yield* sql<LeaseRow>`
        SELECT owner_id, epoch, (expires_at < ${dialect.nowMillis}) AS expired FROM run_leases
        WHERE run_id = ${runId} ${dialect.lockRows(skipLocked)}`;
      const lease = leases[0];
      let taken: ReadonlyArray<{ epoch: number }>;
      if (lease === undefined) {
        // A row skipped because another replica holds its lock reads as no row at all.
        if (dialect.locksRows && skipLocked) {
          const exists = yield* sql<{ run_id: string }>`SELECT run_id FROM run_leases WHERE run_id = ${runId}`;
          if (exists.length > 0) return undefined;
        }
        taken = yield* sql<{ epoch: number }>`
          INSERT INTO run_leases (run_id, owner_id, epoch, expires_at)
          VALUES (${runId}, ${owner}, 1, ${dialect.nowMillis} + ${leaseMs})
          ON CONFLICT (run_id) DO NOTHING
          RETURNING epoch`;
      } else {
        const mayTake =
          lease.owner_id === owner ||
          lease.expired === true ||
          Number(lease.expired) === 1 ||
          (force && (yield* holderGone(lease.owner_id)));
        if (!mayTake) return undefined;
        taken = yield* sql<{ epoch: number }>`
          UPDATE run_leases SET owner_id = ${owner}, epoch = epoch + 1, expires_at = ${dialect.nowMillis} + ${leaseMs}
          WHERE run_id = ${runId} AND epoch = ${lease.epoch} AND owner_id = ${lease.owner_id}
          RETURNING epoch`;
      }
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
          new LedgerError({
            reason: "storage_failure",
            message: `acquireLease ${runId}: this ledger store has no owner: it cannot hold leases`,
          }),
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
