import { existsSync, writeFileSync } from "node:fs";
import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import { Effect, Exit } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { LATEST_SCHEMA_VERSION } from "../../src/persistence/migrations/index.js";
import { BACKENDS, freshDatabase, noticePostgresSkipped } from "../support/backends.js";
import { createHostDatabase, fileSha256, listDir, newRun, userInput, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir();
noticePostgresSkipped();

const failure = <A, E extends { readonly reason: string; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>,
) => Effect.map(Effect.flip(effect), (error) => ({ reason: error.reason, message: error.message }));

const runs = Effect.flatMap(AgentRunStore, (store) => store.listRuns());

describe("Ledger.layer on a SQLite file", () => {
  it.effect("read: refuses a file that is not there, and creates nothing", () =>
    Effect.gen(function* () {
      const file = tmp.path("absent.db");
      expect(yield* failure(Effect.provide(runs, Ledger.layer({ filename: file, access: "read" })))).toEqual({
        reason: "not_found",
        message: `no ledger database at ${file}`,
      });
      expect(listDir(tmp.dir())).toEqual([]);
    }),
  );

  it.effect("read: refuses a host database without the run ledger, leaving it as it was", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file);
      const before = fileSha256(file);
      expect(yield* failure(Effect.provide(runs, Ledger.layer({ filename: file, access: "read" })))).toEqual({
        reason: "no_ledger",
        message: `${file} has no run ledger (schema version 1); run agentloop migrate --db ${file}`,
      });
      expect(fileSha256(file)).toBe(before);
      expect(listDir(tmp.dir())).toEqual(["host.db"]);
    }),
  );

  it.effect("read: reads without writing, refuses writes, and leaves no -wal/-shm behind", () =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      yield* Effect.flatMap(AgentRunStore, (store) => store.createRun(newRun("r1"), [userInput(1)])).pipe(
        Effect.provide(Ledger.layer({ filename: file, owner: false })),
      );
      const before = fileSha256(file);
      const read = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const refused = yield* Effect.either(sql`DELETE FROM agent_runs`);
        return { runs: (yield* runs).map((run) => run.runId), refused: refused._tag === "Left" };
      });
      expect(yield* Effect.provide(read, Ledger.layer({ filename: file, access: "read" }))).toEqual({
        runs: ["r1"],
        refused: true,
      });
      expect(fileSha256(file)).toBe(before);
      expect(listDir(tmp.dir())).toEqual(["ledger.db"]);
    }),
  );

  it.effect("write: refuses a file that is not there instead of creating it; create makes it", () =>
    Effect.gen(function* () {
      const file = tmp.path("new.db");
      expect(
        yield* failure(Effect.provide(runs, Ledger.layer({ filename: file, access: "write", owner: false }))),
      ).toEqual({ reason: "not_found", message: `no ledger database at ${file}` });
      expect(existsSync(file)).toBe(false);
      expect(yield* Effect.provide(runs, Ledger.layer({ filename: file, owner: false }))).toEqual([]);
      expect(yield* Effect.provide(runs, Ledger.layer({ filename: file, access: "write", owner: false }))).toEqual([]);
    }),
  );

  it.effect("refuses, in every access, a file that is not SQLite", () =>
    Effect.gen(function* () {
      const file = tmp.path("notes.db");
      writeFileSync(file, "not a database, just notes\n");
      for (const access of ["create", "write", "read"] as const) {
        expect(yield* failure(Effect.provide(runs, Ledger.layer({ filename: file, access, owner: false })))).toEqual({
          reason: "not_sqlite",
          message: `${file} is not a SQLite database`,
        });
      }
    }),
  );
});

describe.each(BACKENDS)("Ledger.migrate and Ledger.reader on %s", (backend) => {
  it.effect("migrates a new database to the latest schema, then finds it up to date", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      const first = yield* Ledger.migrate(database);
      expect(first).toMatchObject({
        filename: Ledger.label(database),
        fromVersion: 0,
        toVersion: LATEST_SCHEMA_VERSION,
        backupPath: null,
      });
      expect(first.applied).toHaveLength(LATEST_SCHEMA_VERSION);
      expect(yield* Ledger.migrate(database)).toMatchObject({ fromVersion: LATEST_SCHEMA_VERSION, applied: [] });
    }),
  );

  it.effect("refuses to read a database without the run ledger", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("empty.db")));
      if (backend === "sqlite") writeFileSync(database, "");
      const error = yield* failure(Effect.provide(runs, Ledger.layer({ filename: database, access: "read" })));
      const label = Ledger.label(database);
      expect(error).toEqual({
        reason: "no_ledger",
        message: `${label} has no run ledger (schema version 0); run agentloop migrate --db ${label}`,
      });
    }),
  );

  it.effect("serves a long-lived reader read after read, and tidies after it", () =>
    Effect.gen(function* () {
      const database = yield* Effect.promise(() => freshDatabase(backend, tmp.path("ledger.db")));
      yield* Effect.flatMap(AgentRunStore, (store) => store.createRun(newRun("r1"))).pipe(
        Effect.provide(Ledger.layer({ filename: database, owner: false })),
      );
      const reader = Ledger.reader(database, { maxConnections: 2 });
      const ids = Effect.map(runs, (list) => list.map((run) => run.runId));
      const first = yield* Effect.promise(() => reader.read(ids));
      const second = yield* Effect.promise(() => reader.read(ids));
      yield* Effect.promise(() => reader.close());
      expect([first, second].map((exit) => (Exit.isSuccess(exit) ? exit.value : exit))).toEqual([["r1"], ["r1"]]);
      if (backend === "sqlite") expect(listDir(tmp.dir())).toEqual(["ledger.db"]);
    }),
  );
});

describe("Ledger.watermark", () => {
  it("reads a SQLite file's last sequences; none for :memory: or PostgreSQL", () => {
    expect(Ledger.watermark(":memory:")).toBeUndefined();
    expect(Ledger.watermark("postgres://localhost/agentloop")).toBeUndefined();
    const watermark = Ledger.watermark(tmp.path("absent.db"));
    expect(watermark?.read("r1")).toBeUndefined();
    watermark?.close();
  });
});
