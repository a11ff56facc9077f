import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { Dialect } from "./engine/Dialect.js";
import type { LeaseBook } from "./leaseBook.js";
import { OWNER_ENDED_CHANNEL } from "./ledgerSignals.js";
import * as SqlClient from "./sqlClient.js";

/**
 * Run ownership on a ledger shared by several processes: each runtime that
 * writes registers itself as an owner, heartbeats, and records itself as the owner of every run it
 * opens; start-up recovery closes only runs whose owner is gone. The owner's heartbeat also renews
 * the leases of the runs it drives (see runLeases.ts).
 */

export interface OwnerSettings {
  /** How often the owner's heartbeat is written (default 5 s). */
  readonly heartbeatMs: number;
  /** How long after its last heartbeat an owner counts as gone (default 30 s). */
  readonly expiryMs: number;
}

export const DEFAULT_OWNER_SETTINGS: OwnerSettings = { heartbeatMs: 5_000, expiryMs: 30_000 };

/** What recovery knows about the owner of an open run (null: no owner recorded). */
export interface OwnerRecord {
  readonly ownerId: string;
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  readonly heartbeatAt: string;
  readonly expiresAt: string;
  readonly endedAt: string | null;
}

export type OwnerVerdict =
  | { readonly gone: true; readonly why: "no_owner" | "ended" | "process_gone" | "heartbeat_expired" }
  | { readonly gone: false; readonly why: "self" | "alive" };

export interface LivenessProbe {
  readonly ownerId: string | undefined;
  readonly host: string;
  readonly now: Date;
  readonly processAlive: (pid: number) => boolean;
}

/**
 * Whether the owner of an open run is gone. A process on this host is gone as soon as its pid is;
 * elsewhere (or a pid reused by another process) only its lapsed heartbeat says so.
 */
export function judgeOwner(owner: OwnerRecord | null, probe: LivenessProbe): OwnerVerdict {
  if (!owner) return { gone: true, why: "no_owner" };
  if (owner.ownerId === probe.ownerId) return { gone: false, why: "self" };
  if (owner.endedAt) return { gone: true, why: "ended" };
  if (owner.host === probe.host && !probe.processAlive(owner.pid)) return { gone: true, why: "process_gone" };
  if (Date.parse(owner.expiresAt) <= probe.now.getTime()) return { gone: true, why: "heartbeat_expired" };
  return { gone: false, why: "alive" };
}

/** Signal 0 checks existence only; EPERM means the process exists but belongs to someone else. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export const thisHost = (): string => hostname();

/**
 * Sleeps on an unref'd timer: the heartbeat must not keep a host's process alive on its own
 * (Effect's default clock keeps the event loop busy until the runtime is disposed).
 */
const detachedSleep = (ms: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms);
    timer.unref();
    return Effect.sync(() => clearTimeout(timer));
  });

/**
 * Registers this runtime as an owner for the lifetime of the scope: the row, a heartbeat fiber
 * that pushes `expires_at` forward, and `ended_at` when the scope closes. A heartbeat that fails
 * (a busy file) is logged and tried again at the next beat.
 */
export const registerOwner = (
  settings: OwnerSettings,
  leases: LeaseBook,
  now: () => Date = () => new Date(),
): Effect.Effect<string, SqlError.SqlError, SqlClient.SqlClient | Dialect | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const dialect = yield* Dialect;
    const ownerId = `owner_${randomUUID()}`;
    const lease = () => {
      const at = now();
      return { at: at.toISOString(), until: new Date(at.getTime() + settings.expiryMs).toISOString() };
    };
    const first = lease();
    yield* sql`INSERT INTO agent_ledger_owners ${sql.insert({
      owner_id: ownerId,
      pid: process.pid,
      host: thisHost(),
      started_at: first.at,
      heartbeat_at: first.at,
      expires_at: first.until,
    })}`;
    // The same beat renews the leases of the runs this owner drives (migration 0007), on the
    // database's clock: one statement however many runs are in flight. Only open runs: a lease row
    // outlives its run, and renewing those would make every beat longer the more runs ended
    // (on PostgreSQL each renewed lease also moves its expiry job, migration 0013). A lease it held but did
    // not renew is read back: if its row now names another owner or epoch, the run was taken
    // over, and the lease book marks it lost so that no new call starts there.
    const renewLeases = Effect.gen(function* () {
      const startedAt = Date.now();
      const renewed = yield* sql<{ run_id: string; epoch: number }>`
        UPDATE run_leases SET expires_at = ${dialect.nowMillis} + ${settings.expiryMs}
        WHERE owner_id = ${ownerId} AND run_id IN (SELECT run_id FROM agent_runs WHERE terminal_state = 'running')
        RETURNING run_id, epoch`;
      const unconfirmed = leases.unconfirmed(
        startedAt,
        renewed.map((row) => ({ runId: row.run_id, epoch: Number(row.epoch) })),
      );
      if (unconfirmed.length === 0) return;
      const rows = yield* sql<{ run_id: string; owner_id: string; epoch: number }>`
        SELECT run_id, owner_id, epoch FROM run_leases WHERE ${sql.in("run_id", unconfirmed)}`;
      for (const row of rows) {
        if (row.owner_id !== ownerId || Number(row.epoch) !== leases.epochOf(row.run_id)) leases.markLost(row.run_id);
      }
    });
    const beat = Effect.suspend(() => {
      const next = lease();
      return Effect.zipRight(
        sql`UPDATE agent_ledger_owners SET heartbeat_at = ${next.at}, expires_at = ${next.until}
          WHERE owner_id = ${ownerId}`,
        renewLeases,
      );
    }).pipe(Effect.catchAll((error) => Effect.logWarning(`ledger owner heartbeat failed: ${error.message}`)));
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(detachedSleep(settings.heartbeatMs), beat)));
    yield* Effect.addFinalizer(() =>
      sql`UPDATE agent_ledger_owners SET ended_at = ${now().toISOString()} WHERE owner_id = ${ownerId}`.pipe(
        // Supervisors on PostgreSQL listen: runs this owner left open can be taken over now.
        Effect.zipRight(dialect.notify(OWNER_ENDED_CHANNEL, ownerId)),
        Effect.ignore,
      ),
    );
    return ownerId;
  });

interface OwnerRow {
  run_id: string;
  owner_id: string | null;
  pid: number | null;
  host: string | null;
  started_at: string | null;
  heartbeat_at: string | null;
  expires_at: string | null;
  ended_at: string | null;
}

/** The owner of each open run (null where none was recorded or its owner row is missing). */
export const openRunOwners = (): Effect.Effect<
  ReadonlyMap<string, OwnerRecord | null>,
  SqlError.SqlError,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const rows = yield* sql<OwnerRow>`
      SELECT r.run_id, o.owner_id, o.pid, o.host, o.started_at, o.heartbeat_at, o.expires_at, o.ended_at
      FROM agent_runs r
      LEFT JOIN agent_run_owners ro ON ro.run_id = r.run_id
      LEFT JOIN agent_ledger_owners o ON o.owner_id = ro.owner_id
      WHERE r.terminal_state = 'running'`;
    return new Map(
      rows.map((row) => [
        row.run_id,
        row.owner_id === null
          ? null
          : {
              ownerId: row.owner_id,
              pid: row.pid ?? 0,
              host: row.host ?? "",
              startedAt: row.started_at ?? "",
              heartbeatAt: row.heartbeat_at ?? "",
              expiresAt: row.expires_at ?? "",
              endedAt: row.ended_at,
            },
      ]),
    );
  });
