import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import { Deferred, Effect, Fiber } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { runMigrations } from "../../src/persistence/database.js";
import { SqliteConnection, sqliteClientLayer } from "../../src/persistence/sqliteClient.js";
import { dumpTable, newRun, toolResult, userInput, useTempDir, withLedger } from "../support/tempDir.js";

const tmp = useTempDir();

describe("sqliteClientLayer", () => {
  it.effect("prepares each SQL text once and reuses the statement", () =>
    Effect.gen(function* () {
      const { prepare } = yield* SqliteConnection;
      expect(prepare("SELECT 1 AS one")).toBe(prepare("SELECT 1 AS one"));
    }).pipe(Effect.provide(sqliteClientLayer({ filename: ":memory:" }))),
  );

  it.effect("opens a file in WAL mode with synchronous NORMAL and foreign keys on", () =>
    Effect.gen(function* () {
      const { db } = yield* SqliteConnection;
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("synchronous", { simple: true })).toBe(1);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    }).pipe(Effect.provide(sqliteClientLayer({ filename: tmp.path("pragmas.db") }))),
  );

  it.effect("runs synchronous work only after an open SqlClient transaction has committed", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const { exclusive } = yield* SqliteConnection;
      yield* sql`CREATE TABLE t (n INTEGER)`;
      const inside = yield* Deferred.make<void>();
      const release = yield* Deferred.make<void>();
      const transaction = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO t VALUES (1)`;
            yield* Deferred.succeed(inside, undefined);
            yield* Deferred.await(release);
            yield* sql`INSERT INTO t VALUES (2)`;
          }),
        )
        .pipe(Effect.fork);
      yield* Deferred.await(inside);
      const counted = yield* exclusive(
        (db) => (db.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n,
      ).pipe(Effect.fork);
      yield* Effect.yieldNow();
      expect(counted.unsafePoll()).toBeNull();
      yield* Deferred.succeed(release, undefined);
      yield* Fiber.join(transaction);
      expect(yield* Fiber.join(counted)).toBe(2);
    }).pipe(Effect.provide(sqliteClientLayer({ filename: ":memory:" }))),
  );

  it.effect("joins the caller's own SqlClient transaction instead of waiting for it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const { exclusive } = yield* SqliteConnection;
      yield* sql`CREATE TABLE t (n INTEGER)`;
      const failed = yield* Effect.either(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* exclusive((db) => db.prepare("INSERT INTO t VALUES (1)").run());
            return yield* Effect.fail("roll back");
          }),
        ),
      );
      expect(failed._tag).toBe("Left");
      // The insert was part of the rolled-back transaction.
      expect(yield* sql`SELECT COUNT(*) AS n FROM t`).toEqual([{ n: 0 }]);
    }).pipe(Effect.provide(sqliteClientLayer({ filename: ":memory:" }))),
  );

  it.effect("turns a failing statement into an SqlError, not a thrown exception", () =>
    Effect.gen(function* () {
      const { exclusive } = yield* SqliteConnection;
      const error = yield* Effect.flip(exclusive((db) => db.prepare("SELECT * FROM missing_table").all()));
      expect(error._tag).toBe("SqlError");
    }).pipe(Effect.provide(sqliteClientLayer({ filename: ":memory:" }))),
  );

  it.effect("serves reads through SqlClient on a read-only connection", () =>
    Effect.gen(function* () {
      yield* runMigrations().pipe(Effect.provide(sqliteClientLayer({ filename: tmp.path("ro.db") })));
      const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT COUNT(*) AS n FROM agent_runs`).pipe(
        Effect.provide(sqliteClientLayer({ filename: tmp.path("ro.db"), readonly: true })),
      );
      expect(rows).toEqual([{ n: 0 }]);
    }),
  );
});

describe("AgentRunStore.createRun with first events", () => {
  it.effect("writes the run row and its first events in one transaction", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [userInput(1)]);
      expect((yield* store.listRunEvents("r1")).map((event) => event.type)).toEqual(["user_input"]);
    }).pipe(withLedger({ filename: tmp.path("open.db") })),
  );

  it.effect("leaves no run row behind when one of the first events is refused", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const error = yield* Effect.flip(store.createRun(newRun("r1"), [userInput(1), toolResult(2, "never-called")]));
      expect(error.reason).toBe("orphan_tool_result");
      expect(yield* store.getRun("r1")).toBeUndefined();
      expect(dumpTable(tmp.path("atomic.db"), "agent_run_events")).toEqual([]);
    }).pipe(withLedger({ filename: tmp.path("atomic.db") })),
  );
});
