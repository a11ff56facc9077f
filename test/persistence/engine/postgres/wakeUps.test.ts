import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import { Chunk, Context, Effect, Fiber, Layer, Stream } from "effect";
import Pg from "pg";
import { AgentRunStore } from "../../../../src/persistence/AgentRunStore.js";
import { recordApprovalRequest } from "../../../../src/persistence/approvals.js";
import * as Ledger from "../../../../src/persistence/ledger.js";
import { LedgerSignals } from "../../../../src/persistence/ledgerSignals.js";
import { freshDatabase, noticePostgresSkipped, PG_URL } from "../../../support/backends.js";
import { newRun, toolCall, userInput, useTempDir } from "../../../support/tempDir.js";

/**
 * The wake-ups a PostgreSQL ledger writes itself, in the transaction of the row that calls for
 * them (migration 0013): an expiry job per lease and per approval request, and a NOTIFY per append.
 */

const tmp = useTempDir("agentloop-wakeups-");
noticePostgresSkipped();

/** A ledger with an owner of its own, as a replica process opens it, with the job system installed. */
const replica = (database: string, owner: { heartbeatMs: number; expiryMs: number }) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(Ledger.layer({ filename: database, owner }));
    const signals = Context.get(context, LedgerSignals);
    yield* signals.prepareRunJobs;
    return { store: Context.get(context, AgentRunStore), sql: Context.get(context, SqlClient.SqlClient), signals };
  });

interface JobRow {
  readonly task_identifier: string;
  readonly key: string;
  readonly run_at: Date;
  readonly payload: unknown;
}

const jobsOf = (sql: SqlClient.SqlClient, runId: string) =>
  sql<JobRow>`SELECT t.identifier AS task_identifier, j.key, j.run_at, j.payload
    FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
    WHERE j.payload->>'runId' = ${runId} ORDER BY j.id`;

const leaseExpiry = (sql: SqlClient.SqlClient, runId: string) =>
  Effect.map(sql<{ expires_at: number }>`SELECT expires_at FROM run_leases WHERE run_id = ${runId}`, ([row]) =>
    Number(row?.expires_at),
  );

describe.skipIf(!PG_URL)("wake-ups written by the ledger on PostgreSQL", () => {
  const backend = "postgres" as const;
  it.scopedLive("a lease taken schedules one expiry job due just after it, and a renewal moves that job", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const owner = yield* replica(database, { heartbeatMs: 200, expiryMs: 5_000 });
      yield* owner.store.createRun(newRun("r1"), [userInput(1)]);
      const [first] = yield* jobsOf(owner.sql, "r1");
      expect(first).toMatchObject({ task_identifier: "agentloop_lease_expiry", key: "agentloop_lease:r1" });
      expect(first!.run_at.getTime()).toBe((yield* leaseExpiry(owner.sql, "r1")) + 1);
      yield* Effect.sleep("600 millis");
      const renewed = yield* jobsOf(owner.sql, "r1");
      expect(renewed).toHaveLength(1);
      expect(renewed[0]!.run_at.getTime()).toBeGreaterThan(first!.run_at.getTime());
      expect(renewed[0]!.run_at.getTime()).toBe((yield* leaseExpiry(owner.sql, "r1")) + 1);
    }),
  );

  it.scopedLive("a run that ends leaves no expiry job, and its owner's renewals write none", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const owner = yield* replica(database, { heartbeatMs: 100, expiryMs: 5_000 });
      yield* owner.store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1", "refund")]);
      yield* recordApprovalRequest(
        {
          runId: "r1",
          callId: "c1",
          toolName: "refund",
          step: 1,
          reason: "policy",
          arguments: {},
          timeoutMs: 60_000,
        },
        new Date().toISOString(),
      ).pipe(Effect.provideService(SqlClient.SqlClient, owner.sql));
      expect(yield* jobsOf(owner.sql, "r1")).toHaveLength(2);
      yield* owner.store.finishRun("r1", {
        sequence: 3,
        terminal: { terminalState: "failed", reason: "provider_error", finalText: "", steps: 1, correctionTurns: 0 },
      });
      expect(yield* jobsOf(owner.sql, "r1")).toEqual([]);
      yield* Effect.sleep("400 millis");
      expect(yield* jobsOf(owner.sql, "r1")).toEqual([]);
    }),
  );

  it.scopedLive("an approval request schedules a job keyed by its call, due when the request expires", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const owner = yield* replica(database, { heartbeatMs: 1_000, expiryMs: 30_000 });
      yield* owner.store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1", "refund")]);
      const at = "2030-01-02T03:04:05.000Z";
      yield* recordApprovalRequest(
        {
          runId: "r1",
          callId: "c1",
          toolName: "refund",
          step: 1,
          reason: "policy",
          arguments: {},
          timeoutMs: 90_000,
        },
        at,
      ).pipe(Effect.provideService(SqlClient.SqlClient, owner.sql));
      const approval = (yield* jobsOf(owner.sql, "r1")).find(
        (job) => job.task_identifier === "agentloop_approval_expiry",
      );
      expect(approval).toMatchObject({ key: "agentloop_approval:r1:c1", payload: { runId: "r1", callId: "c1" } });
      expect(approval!.run_at.toISOString()).toBe("2030-01-02T03:05:35.000Z");
    }),
  );

  it.scopedLive("appends by another connection are announced with the run and its last sequence, in order", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const reader = yield* replica(database, { heartbeatMs: 1_000, expiryMs: 30_000 });
      const heard = yield* reader.signals.ledgerAppended!.pipe(Stream.take(4), Stream.runCollect, Effect.fork);
      yield* reader.signals.listening!.pipe(Stream.take(1), Stream.runDrain);
      const writer = yield* replica(database, { heartbeatMs: 1_000, expiryMs: 30_000 });
      yield* writer.store.createRun(newRun("r1"), [userInput(1)]);
      yield* writer.store.appendEvents("r1", [toolCall(2, "c1"), toolCall(3, "c2")]);
      yield* writer.store.appendEvents("r1", [toolCall(4, "c3")]);
      const announced = Chunk.toReadonlyArray(yield* Fiber.join(heard));
      expect(announced).toEqual([
        { runId: "r1", sequence: 0 },
        { runId: "r1", sequence: 1 },
        { runId: "r1", sequence: 3 },
        { runId: "r1", sequence: 4 },
      ]);
    }),
  );

  it.scopedLive("a lost LISTEN connection is opened again, announced, and hears appends again", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const reader = yield* replica(database, { heartbeatMs: 1_000, expiryMs: 30_000 });
      const connections = yield* reader.signals.listening!.pipe(Stream.take(2), Stream.runCollect, Effect.fork);
      const heard = yield* reader.signals.ledgerAppended!.pipe(
        Stream.filter((appended) => appended.runId === "after"),
        Stream.take(1),
        Stream.runCollect,
        Effect.fork,
      );
      yield* reader.signals.listening!.pipe(Stream.take(1), Stream.runDrain);
      yield* Effect.promise(async () => {
        const admin = new Pg.Client({ connectionString: database });
        await admin.connect();
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentloop-listen'",
        );
        await admin.end();
      });
      expect(Chunk.toReadonlyArray(yield* Fiber.join(connections))).toEqual([1, 2]);
      yield* reader.store.createRun(newRun("after"), [userInput(1)]);
      expect(Chunk.toReadonlyArray(yield* Fiber.join(heard))).toHaveLength(1);
    }),
  );
});
