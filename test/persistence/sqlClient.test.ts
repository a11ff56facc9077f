import * as Sql from "@effect/sql/SqlClient";
import { describe, expect, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as SqliteClient from "../../src/persistence/engine/sqlite/client.js";
import { loadMigrator, SqlClient } from "../../src/persistence/sqlClient.js";

describe("the SqlClient tag named by its key", () => {
  it("is @effect/sql's own tag", () => {
    expect(SqlClient.key).toBe(Sql.SqlClient.key);
  });

  it.effect("finds the client an engine's layer provides", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient;
      const rows = yield* sql<{ answer: number }>`SELECT 42 AS answer`;
      expect(rows).toEqual([{ answer: 42 }]);
      expect(sql).toBe(yield* Sql.SqlClient);
    }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" }))),
  );

  it.effect("loads @effect/sql's Migrator", () =>
    Effect.map(loadMigrator, (migrator) => expect(typeof migrator.make).toBe("function")),
  );
});
