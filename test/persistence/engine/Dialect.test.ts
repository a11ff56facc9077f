import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { AgentRunStore } from "../../../src/persistence/AgentRunStore.js";
import { Dialect } from "../../../src/persistence/engine/Dialect.js";
import { engineFor } from "../../../src/persistence/engine/Engine.js";
import { BACKENDS, ledgerOn, noticePostgresSkipped } from "../../support/backends.js";
import { newRun, receipt, toolCall, useTempDir } from "../../support/tempDir.js";

const tmp = useTempDir();
noticePostgresSkipped();

describe("engineFor", () => {
  it("decides the engine from the database's name, and names a URL without its password", () => {
    expect(engineFor("./agentloop.db").name).toBe("sqlite");
    expect(engineFor(":memory:").label).toBe(":memory:");
    const postgres = engineFor("postgresql://agent:secret@db.example:5432/ledger");
    expect(postgres.name).toBe("postgres");
    expect(postgres.label).toBe("postgresql://agent:***@db.example:5432/ledger");
    expect(engineFor("POSTGRES://db.example/ledger").name).toBe("postgres");
  });
});

describe.each(BACKENDS)("the Dialect on %s", (backend) => {
  const ledger = () => ledgerOn(backend, () => tmp.path("ledger.db"));

  it.effect("is the engine the database's name chose", () =>
    Effect.gen(function* () {
      expect((yield* Dialect).engine).toBe(backend);
    }).pipe(ledger()),
  );

  it.effect("reads a JSON field of a column, and NULL from text that is not JSON", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const dialect = yield* Dialect;
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [toolCall(1, "c1", "lookup")]);
      const [event] = yield* sql<{ call_id: string; missing: string | null }>`
        SELECT ${dialect.jsonText("payload_json", "callId")} AS call_id,
          ${dialect.jsonText("payload_json", "nothing")} AS missing FROM agent_run_events`;
      expect(event).toEqual({ call_id: "c1", missing: null });
      const values = yield* sql<{ v: string | null }>`
        SELECT ${dialect.jsonTextIfValid("t.doc", "k")} AS v FROM (
          SELECT CAST(${'{"k":"x"}'} AS TEXT) AS doc UNION ALL SELECT CAST(${"not json"} AS TEXT)) t`;
      expect(values.map((row) => row.v).sort()).toEqual(["x", null].sort());
    }).pipe(ledger()),
  );

  it.effect("tells the database's own clock in milliseconds", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const dialect = yield* Dialect;
      const [row] = yield* sql<{ now: number }>`SELECT ${dialect.nowMillis} AS now`;
      expect(Math.abs(Number(row?.now) - Date.now())).toBeLessThan(5_000);
    }).pipe(ledger()),
  );

  it.effect("lists the ledger's tables and their columns, with no column posing as SQLite's rowid", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const dialect = yield* Dialect;
      const tables = (yield* sql<{ name: string }>`${dialect.tableNames}`).map((row) => row.name);
      expect(tables).toEqual(expect.arrayContaining(["agent_runs", "agent_run_events", "agent_execution_receipts"]));
      for (const table of ["agent_runs", "agent_execution_receipts"]) {
        const columns = (yield* sql<{ name: string }>`${dialect.columnNamesOf(table)}`).map((row) => row.name);
        expect(columns).toContain("run_id");
        expect(columns).not.toContain("rowid");
      }
    }).pipe(ledger()),
  );

  it.effect("lists runs that started in the same millisecond in the order they were created", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const startedAt = "2024-03-03T10:00:00.000Z";
      for (const runId of ["b", "a", "c"]) yield* store.createRun(newRun(runId, { startedAt }));
      expect((yield* store.listRuns()).map((run) => run.runId)).toEqual(["b", "a", "c"]);
      expect((yield* store.listRuns({ newestFirst: true, limit: 2 })).map((run) => run.runId)).toEqual(["c", "a"]);
      expect((yield* store.findOpenRuns()).map((run) => run.runId)).toEqual(["b", "a", "c"]);
    }).pipe(ledger()),
  );

  it.effect("lists a run's receipts in the order of their calls, not of their writing", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"), [toolCall(1, "second"), toolCall(2, "first")]);
      yield* store.recordReceipt(receipt("r1", "first"));
      yield* store.recordReceipt(receipt("r1", "second"));
      expect((yield* store.listReceipts("r1")).map((row) => row.callId)).toEqual(["second", "first"]);
    }).pipe(ledger()),
  );

  it.effect("locks a row inside a transaction where rows can be locked, and reads it either way", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient;
      const dialect = yield* Dialect;
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const rows = yield* sql.withTransaction(
        sql<{ run_id: string }>`SELECT run_id FROM agent_runs WHERE run_id = ${"r1"} ${dialect.lockRows(true)}`,
      );
      expect(rows.map((row) => row.run_id)).toEqual(["r1"]);
      expect(dialect.locksRows).toBe(backend === "postgres");
    }).pipe(ledger()),
  );
});
