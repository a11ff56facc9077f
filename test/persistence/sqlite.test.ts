import { SqlClient, Statement } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Context, Deferred, Effect, Fiber, FiberRef, FiberRefs, Option } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { runMigrations } from "../../src/persistence/database.js";
import * as SqliteLayer from "../../src/persistence/engine/sqlite/client.js";
import { MEMORY_DB } from "../../src/persistence/engine/sqlite/file.js";
import * as Ledger from "../../src/persistence/ledger.js";
import * as SqlAgentRunStore from "../../src/persistence/SqlAgentRunStore.js";
import {
  closure,
  dumpAll,
  dumpTable,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir();

const pragma = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`)).pipe(
    Effect.map((rows) => Object.values(rows[0] ?? {})[0]),
  );

describe("Sqlite.layer", () => {
  it.effect("opens a file in WAL mode with synchronous NORMAL, foreign keys on and a busy timeout", () =>
    Effect.gen(function* () {
      expect(yield* pragma("journal_mode")).toBe("wal");
      expect(yield* pragma("synchronous")).toBe(1);
      expect(yield* pragma("foreign_keys")).toBe(1);
      expect(yield* pragma("busy_timeout")).toBe(SqliteLayer.BUSY_TIMEOUT_MS);
    }).pipe(Effect.provide(SqliteLayer.layer({ filename: tmp.path("pragmas.db") }))),
  );

  it.effect("keeps one connection for :memory: (what one query creates the next one sees)", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      yield* sql`CREATE TABLE t (n INTEGER)`;
      yield* sql.withTransaction(sql`INSERT INTO t VALUES (1)`);
      expect(yield* sql`SELECT n FROM t`).toEqual([{ n: 1 }]);
      expect(yield* pragma("foreign_keys")).toBe(1);
    }).pipe(Effect.provide(SqliteLayer.layer({ filename: MEMORY_DB }))),
  );

  it.effect("serves the store's reads on a read-only connection and refuses its writes", () =>
    Effect.gen(function* () {
      const file = tmp.path("ro.db");
      yield* Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.createRun(newRun("r1"), [userInput(1)]);
      }).pipe(withLedger({ filename: file }));
      const before = dumpAll(file);
      const { events, refused } = yield* Effect.gen(function* () {
        const store = yield* SqlAgentRunStore.make();
        return {
          events: yield* store.listRunEvents("r1"),
          refused: yield* Effect.flip(store.appendEvents("r1", [userInput(2)])),
        };
      }).pipe(Effect.provide(SqliteLayer.layer({ filename: file, readonly: true })));
      expect(events.map((event) => event.sequence)).toEqual([1]);
      expect(refused.reason).toBe("storage_failure");
      expect(refused.message).toMatch(/readonly/);
      expect(dumpAll(file)).toEqual(before);
    }),
  );

  it.effect("leaves the journal mode of a file it opens read-only as it was", () =>
    Effect.gen(function* () {
      const file = tmp.path("rollback-journal.db");
      const db = new Sqlite(file);
      db.exec("CREATE TABLE t (n INTEGER)");
      db.close();
      const mode = yield* pragma("journal_mode").pipe(
        Effect.provide(SqliteLayer.layer({ filename: file, readonly: true })),
      );
      expect(mode).toBe("delete");
    }),
  );
});

/**
 * Runs `effect` and records the SQL text of each statement it executes, in order, each prefixed
 * with the transaction it ran in ("T1 ", "T2 " … by first appearance; nothing outside one).
 */
const recordingSql = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const log: string[] = [];
    const transactions: unknown[] = [];
    yield* effect.pipe(
      Statement.withTransformer((statement, _sql, fiberRefs) => {
        const context = FiberRefs.getOrDefault(fiberRefs, FiberRef.currentContext);
        const transaction = Context.getOption(context, SqlClient.TransactionConnection);
        let prefix = "";
        if (Option.isSome(transaction)) {
          if (!transactions.includes(transaction.value)) transactions.push(transaction.value);
          prefix = `T${transactions.indexOf(transaction.value) + 1} `;
        }
        log.push(prefix + statement.compile()[0].replace(/\s+/g, " "));
        return Effect.succeed(statement);
      }),
    );
    return log;
  });

const values = (columns: number, rows: number) =>
  Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => "?").join(",")})`).join(",");
const EVENT_COLUMNS = '("run_id","sequence","event_type","payload_json","created_at","lease_epoch")';
const RECEIPT_COLUMNS =
  '("receipt_id","run_id","call_id","tool_name","status","verification_status","input_fingerprint","evidence_json","started_at","finished_at","lease_epoch","tool_kind","external_id","evidence_keys_json")';
const insertEvents = (rows: number) => `INSERT INTO agent_run_events ${EVENT_COLUMNS} VALUES ${values(6, rows)}`;
const insertReceipts = (rows: number) =>
  `INSERT INTO agent_execution_receipts ${RECEIPT_COLUMNS} VALUES ${values(14, rows)}`;

describe("the ledger writer's statements", () => {
  it.effect("writes a tool step as one multi-row INSERT per table, one transaction per batch, no reads", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [userInput(1)]);
      const step = (first: number) => {
        const [a, b] = [`c${first}`, `c${first + 1}`];
        return Effect.all([
          recordingSql(store.appendEvents("r1", [toolCall(first, a), toolCall(first + 1, b)])),
          recordingSql(
            store.appendEvents(
              "r1",
              [toolResult(first + 2, a), toolResult(first + 3, b)],
              [receipt("r1", a), receipt("r1", b)],
            ),
          ),
        ]);
      };
      const [calls, results] = yield* step(2);
      // A single statement is a transaction of its own: no BEGIN/COMMIT around it.
      expect(calls).toEqual([insertEvents(2)]);
      expect(results).toEqual([`T1 ${insertEvents(2)}`, `T1 ${insertReceipts(2)}`]);
      // The same text for the same shape of batch: prepared once, then served from the statement cache.
      expect(yield* step(6)).toEqual([calls, results]);
      expect(yield* store.listReceipts("r1")).toHaveLength(4);
    }).pipe(withLedger({ filename: MEMORY_DB })),
  );

  it.effect("opens a run with its first events and closes it with its terminal rows, one transaction each", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const opened = yield* recordingSql(store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1")]));
      const closed = yield* recordingSql(
        store.finishRun("r1", {
          ...closure(4, "cancelled", "cancelled_by_user"),
          events: [toolResult(3, "c1")],
          receipts: [receipt("r1", "c1", { status: "cancelled", reason: "cancelled_by_user" })],
        }),
      );
      expect(opened).toEqual([
        expect.stringMatching(/^T1 INSERT INTO agent_runs \(.*\) VALUES \(\?(,\?){11}\)$/),
        `T1 ${insertEvents(2)}`,
      ]);
      expect(closed).toEqual([
        `T1 ${insertEvents(2)}`,
        `T1 ${insertReceipts(1)}`,
        expect.stringMatching(/^T1 UPDATE agent_runs SET terminal_state = \?, .* WHERE run_id = \?$/),
      ]);
      expect((yield* store.getRun("r1"))?.terminalState).toBe("cancelled");
    }).pipe(withLedger({ filename: MEMORY_DB })),
  );

  it.effect("waits for another fiber's open transaction instead of joining it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const inside = yield* Deferred.make<void>();
      const release = yield* Deferred.make<void>();
      const other = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* store.createRun(newRun("r2"));
            yield* Deferred.succeed(inside, undefined);
            yield* Deferred.await(release);
            return yield* Effect.fail("roll back");
          }),
        )
        .pipe(Effect.either, Effect.fork);
      yield* Deferred.await(inside);
      const append = yield* store.appendEvents("r1", [userInput(1)]).pipe(Effect.fork);
      yield* Effect.yieldNow();
      expect(append.unsafePoll()).toBeNull();
      yield* Deferred.succeed(release, undefined);
      expect((yield* Fiber.join(other))._tag).toBe("Left");
      yield* Fiber.join(append);
      // The other fiber's rollback took its own row with it, not this fiber's event.
      expect(yield* store.getRun("r2")).toBeUndefined();
      expect((yield* store.listRunEvents("r1")).map((event) => event.sequence)).toEqual([1]);
    }).pipe(withLedger({ filename: tmp.path("concurrent.db") })),
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

describe("runMigrations over Sqlite.layer", () => {
  it.effect("migrates :memory: and a file to the same schema", () =>
    Effect.gen(function* () {
      const file = tmp.path("file.db");
      yield* Ledger.migrate(file);
      const schema = (sql: SqlClient.SqlClient) =>
        sql<{ type: string; name: string; sql: string | null }>`
          SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name`;
      const inMemory = yield* Effect.zipRight(runMigrations(), Effect.flatMap(SqlClient.SqlClient, schema)).pipe(
        Effect.provide(SqliteLayer.layer({ filename: MEMORY_DB })),
      );
      const onFile = yield* Effect.flatMap(SqlClient.SqlClient, schema).pipe(
        Effect.provide(SqliteLayer.layer({ filename: file, readonly: true })),
      );
      expect(inMemory).toEqual(onFile);
    }),
  );
});
