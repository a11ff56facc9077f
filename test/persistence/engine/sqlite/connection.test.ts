import * as SqlClient from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import { describe, expect, it } from "@effect/vitest";
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import * as SqliteConnection from "../../../../src/persistence/engine/sqlite/connection.js";
import { WriteBatch } from "../../../../src/persistence/engine/WriteBatch.js";

const connection = SqliteConnection.layer({ filename: ":memory:" });

const table = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE t (n INTEGER NOT NULL UNIQUE)`);
const rows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ n: number }>`SELECT n FROM t ORDER BY n`, (found) => found.map((row) => row.n)),
);
/** The batch runs itself here: its SqlClient fallback must not be taken. */
const notTaken = Effect.dieMessage("the SqlClient path was taken");

describe("the SQLite connection's write batch", () => {
  it.effect("runs a batch's statements in order itself and keeps their rows", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const { runBatch } = yield* WriteBatch;
      yield* table;
      yield* runBatch([sql`INSERT INTO t (n) VALUES (1)`, sql`INSERT INTO t (n) VALUES (2)`], notTaken);
      yield* runBatch([sql`INSERT INTO t (n) VALUES (3)`], notTaken);
      expect(yield* rows).toEqual([1, 2, 3]);
    }).pipe(Effect.provide(connection)),
  );

  it.effect("leaves none of a batch's rows when one of its statements is refused, and the connection usable", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const { runBatch } = yield* WriteBatch;
      yield* table;
      const refused = yield* Effect.flip(
        runBatch(
          [sql`INSERT INTO t (n) VALUES (1)`, sql`INSERT INTO t (n) VALUES (2)`, sql`INSERT INTO t (n) VALUES (1)`],
          notTaken,
        ),
      );
      expect(refused).toBeInstanceOf(SqlError);
      expect(String(((refused as SqlError).cause as { code?: string }).code)).toMatch(/CONSTRAINT/);
      expect(yield* rows).toEqual([]);
      yield* runBatch([sql`INSERT INTO t (n) VALUES (4)`, sql`INSERT INTO t (n) VALUES (5)`], notTaken);
      expect(yield* rows).toEqual([4, 5]);
    }).pipe(Effect.provide(connection)),
  );

  it.effect("inside the fiber's own transaction, leaves the batch to the SqlClient path", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const { runBatch } = yield* WriteBatch;
      yield* table;
      let fallback = 0;
      yield* sql.withTransaction(
        runBatch(
          [sql`INSERT INTO t (n) VALUES (1)`],
          Effect.sync(() => {
            fallback += 1;
          }),
        ),
      );
      expect(fallback).toBe(1);
      expect(yield* rows).toEqual([]);
    }).pipe(Effect.provide(connection)),
  );
});

describe("the SQLite connection's queries", () => {
  it.effect("streams a query's rows in order", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      yield* table;
      yield* sql`INSERT INTO t (n) VALUES (3), (1), (2)`;
      const streamed = yield* Stream.runCollect(sql<{ n: number }>`SELECT n FROM t ORDER BY n`.stream);
      expect(Chunk.toReadonlyArray(streamed).map((row) => row.n)).toEqual([1, 2, 3]);
    }).pipe(Effect.provide(connection)),
  );

  it.effect("fails a stream over a statement SQLite refuses with the SQL client's error", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const failed = yield* Effect.flip(Stream.runCollect(sql`SELECT n FROM no_such_table`.stream));
      expect(failed).toBeInstanceOf(SqlError);
    }).pipe(Effect.provide(connection)),
  );
});
