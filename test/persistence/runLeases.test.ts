import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import { Context, Effect, Layer } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { makeLeaseBook } from "../../src/persistence/leaseBook.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { BACKENDS, freshDatabase } from "../support/backends.js";
import { newRun, toolCall, userInput, useTempDir } from "../support/tempDir.js";

/**
 * Takeover is a compare-and-set on the lease row, and a runtime that lost a run's lease starts
 * nothing more there: at most one replica drives a run after each expiry.
 */

const tmp = useTempDir("agentloop-leases-");

/** A ledger with an owner of its own, as a separate replica process would open it. */
const replica = (database: string, owner: { heartbeatMs: number; expiryMs: number }) =>
  Effect.map(Layer.build(Ledger.layer({ filename: database, owner })), (context) => ({
    store: Context.get(context, AgentRunStore),
    sql: Context.get(context, SqlClient.SqlClient),
  }));

describe("the lease book", () => {
  it("names a lease held before a renewal that the renewal did not renew with the same epoch", () => {
    let now = 0;
    const book = makeLeaseBook(() => now);
    book.hold("renewed", 1);
    book.hold("moved", 3);
    now = 10;
    book.hold("opened-meanwhile", 1);
    const unconfirmed = book.unconfirmed(5, [{ runId: "renewed", epoch: 1 }]);
    expect(unconfirmed).toEqual(["moved"]);
    book.markLost("moved");
    expect(book.lost("moved")).toBe(true);
    expect(book.epochOf("moved")).toBeUndefined();
    book.hold("moved", 5);
    expect(book.lost("moved")).toBe(false);
  });
});

describe.each(BACKENDS)("lease takeover on %s", (backend) => {
  it.scoped("refuses a forced takeover of a lease another replica has just taken over", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const settings = { heartbeatMs: 1_000, expiryMs: 30_000 };
      // The first owner opens the run, then shuts down: its run is known abandoned.
      yield* Effect.scoped(
        Effect.gen(function* () {
          const first = yield* replica(database, settings);
          yield* first.store.createRun(newRun("r1"), [userInput(1)]);
        }),
      );
      const second = yield* replica(database, settings);
      const third = yield* replica(database, settings);
      expect(yield* second.store.acquireLease("r1", { force: true })).toBe(2);
      // The third replica judged the first owner gone too; the lease now names the second,
      // which is alive: no takeover, and the second keeps the run.
      expect(yield* third.store.acquireLease("r1", { force: true })).toBeUndefined();
      const [lease] = yield* second.sql<{ epoch: number }>`SELECT epoch FROM run_leases WHERE run_id = 'r1'`;
      expect(Number(lease?.epoch)).toBe(2);
      yield* second.store.appendEvents("r1", [toolCall(2, "c1")]);
    }),
  );

  it.scopedLive("stops a runtime's new starts once its heartbeat finds the lease taken over", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const owner = yield* replica(database, { heartbeatMs: 50, expiryMs: 2_000 });
      yield* owner.store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1"), toolCall(3, "c2")]);
      const start = (callId: string) => ({ callId, toolName: "read_file", mayRepeat: false, startedAt: "t" });
      yield* owner.store.startCalls("r1", [start("c1")]);
      // Another replica takes the run over (as a takeover after an expiry does).
      yield* owner.sql`UPDATE run_leases SET owner_id = 'owner_elsewhere', epoch = epoch + 1 WHERE run_id = 'r1'`;
      yield* Effect.sleep("400 millis");
      const refused = yield* Effect.flip(owner.store.startCalls("r1", [start("c2")]));
      expect(refused.reason).toBe("stale_lease");
      expect(refused.message).toMatch(/lost the run's lease/);
      const starts = yield* owner.store.listStarts("r1");
      expect(starts.map((row) => row.callId)).toEqual(["c1"]);
    }),
  );

  it.scoped("refuses a start from a writer whose lease moved on, in the database itself", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const owner = yield* replica(database, { heartbeatMs: 60_000, expiryMs: 120_000 });
      yield* owner.store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1")]);
      yield* owner.sql`UPDATE run_leases SET owner_id = 'owner_elsewhere', epoch = epoch + 1 WHERE run_id = 'r1'`;
      // No heartbeat has run: the writer still believes it holds epoch 1; the trigger refuses.
      const refused = yield* Effect.flip(
        owner.store.startCalls("r1", [{ callId: "c1", toolName: "read_file", mayRepeat: false, startedAt: "t" }]),
      );
      expect(refused.reason).toBe("stale_lease");
    }),
  );

  it.scoped("refuses a second start of a call that may not repeat, and allows one that may", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const owner = yield* replica(database, { heartbeatMs: 60_000, expiryMs: 120_000 });
      yield* owner.store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1"), toolCall(3, "c2")]);
      const start = (callId: string, mayRepeat: boolean) => ({
        callId,
        toolName: "read_file",
        mayRepeat,
        startedAt: "t",
      });
      yield* owner.store.startCalls("r1", [start("c1", false), start("c2", true)]);
      expect((yield* Effect.flip(owner.store.startCalls("r1", [start("c1", false)]))).reason).toBe("already_started");
      yield* owner.store.startCalls("r1", [start("c2", true)]);
      const starts = yield* owner.store.listStarts("r1");
      expect(starts.map((row) => [row.callId, row.attempt])).toEqual([
        ["c1", 1],
        ["c2", 1],
        ["c2", 2],
      ]);
    }),
  );
});
