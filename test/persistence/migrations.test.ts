import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { DatabaseError } from "../../src/persistence/database.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { LEDGER_DDL } from "../../src/persistence/migrations/0002_run_ledger.js";
import { DELIVERY_DDL } from "../../src/persistence/migrations/0003_channel_deliveries.js";
import { RUN_LEASES_DDL } from "../../src/persistence/migrations/0007_run_leases.js";
import { TOOL_APPROVALS_DDL } from "../../src/persistence/migrations/0008_tool_approvals.js";
import { TOOL_STARTS_DDL } from "../../src/persistence/migrations/0009_tool_starts_and_evidence.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/persistence/migrations/index.js";
import {
  closure,
  createHostDatabase,
  dumpAll,
  dumpTable,
  listDir,
  sha256,
  tableNames,
  toolResult,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir();
const LEDGER_TABLES = ["agent_execution_receipts", "agent_run_events", "agent_runs"];
/** Every table the migrations after 0001 add: the ledger (0002) and the channel delivery log (0003). */
const ADDED_TABLES = [
  "agent_approvals",
  "agent_channel_deliveries",
  ...LEDGER_TABLES,
  "agent_ledger_owners",
  "agent_run_cancel_requests",
  "agent_run_owners",
  "agent_run_queue",
  "agent_tool_starts",
  "agent_tool_processes",
  "run_leases",
].sort();
const ALL_MIGRATIONS = Object.keys(MIGRATIONS);
/** The migrations' numbers (a number may be missing: ids need only grow). */
const ALL_VERSIONS = ALL_MIGRATIONS.map((key) => Number.parseInt(key, 10));
const LATEST = LATEST_SCHEMA_VERSION;
const HOST_TABLES = ["memory_items", "memory_turns", "sqlite_sequence"];
const NOW = new Date("2024-05-06T07:08:09.123Z");

function schemaObjects(file: string, type: "index" | "trigger" | "table"): string[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = ? ORDER BY name").all(type);
    return (rows as Array<{ name: string }>).map((row) => row.name);
  } finally {
    db.close();
  }
}

function recordedMigrations(file: string): number[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT migration_id FROM effect_sql_migrations ORDER BY migration_id").all();
    return (rows as Array<{ migration_id: number }>).map((row) => row.migration_id);
  } finally {
    db.close();
  }
}

/** The host columns of 0001 (later migrations may add columns with defaults; these must not change). */
const HOST_COLUMNS = {
  memory_turns: ["id", "session_id", "role", "content", "source", "metadata", "created_at"],
  memory_items: ["id", "scope", "content", "source", "evidence", "created_at", "updated_at"],
} as const;
const hostColumns = (rows: unknown[], columns: ReadonlyArray<string>) =>
  rows.map((row) => Object.fromEntries(columns.map((column) => [column, (row as Record<string, unknown>)[column]])));
const hostRows = (file: string) => ({
  turns: hostColumns(dumpTable(file, "memory_turns", "id"), HOST_COLUMNS.memory_turns),
  items: hostColumns(dumpTable(file, "memory_items", "id"), HOST_COLUMNS.memory_items),
});

describe("migrateDatabase on a new file", () => {
  it.effect("creates the host tables, the ledger and delivery log tables and the migrations table", () =>
    Effect.gen(function* () {
      const file = tmp.path("fresh.db");
      yield* Ledger.migrate(file);
      expect(tableNames(file)).toEqual([...ADDED_TABLES, "effect_sql_migrations", ...HOST_TABLES].sort());
    }),
  );

  it.effect("creates every named index of the host schema, the ledger, the delivery log and memory provenance", () =>
    Effect.gen(function* () {
      const file = tmp.path("fresh.db");
      yield* Ledger.migrate(file);
      const named = schemaObjects(file, "index").filter((name) => !name.startsWith("sqlite_autoindex"));
      expect(named).toEqual([
        "idx_agent_approvals_decision",
        "idx_agent_approvals_request",
        "idx_agent_channel_deliveries_run",
        "idx_agent_channel_deliveries_sent_once",
        "idx_agent_run_cancel_requests_at",
        "idx_agent_run_events_call",
        "idx_agent_run_events_terminal",
        "idx_agent_run_owners_owner",
        "idx_agent_run_queue_by_age",
        "idx_agent_runs_open",
        "idx_agent_runs_session",
        "idx_agent_runs_trace",
        "idx_agent_tool_processes_open",
        "idx_agent_tool_processes_run",
        "idx_memory_items_scope",
        "idx_memory_items_status",
        "idx_memory_turns_session",
        "idx_run_leases_owner",
      ]);
    }),
  );

  it.effect(
    "creates every trigger declared in 0002_run_ledger, 0003_channel_deliveries, 0007_run_leases, 0008_tool_approvals and 0009_tool_starts_and_evidence",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("fresh.db");
        yield* Ledger.migrate(file);
        const declared = [
          ...LEDGER_DDL,
          ...DELIVERY_DDL,
          ...RUN_LEASES_DDL.sqlite,
          ...TOOL_APPROVALS_DDL.sqlite,
          ...TOOL_STARTS_DDL.sqlite,
        ]
          .flatMap((ddl) => /CREATE TRIGGER (\w+)/.exec(ddl)?.[1] ?? [])
          .sort();
        expect(declared).toHaveLength(22);
        expect(schemaObjects(file, "trigger")).toEqual(declared);
      }),
  );

  it.effect("reports the latest schema version, every migration applied and no backup", () =>
    Effect.gen(function* () {
      const file = tmp.path("fresh.db");
      const report = yield* Ledger.migrate(file);
      expect(report).toEqual({
        filename: file,
        fromVersion: 0,
        toVersion: LATEST,
        applied: ALL_MIGRATIONS,
        backupPath: null,
      });
      expect(recordedMigrations(file)).toEqual(ALL_VERSIONS);
      expect(listDir(tmp.dir()).filter((name) => name.includes(".bak-"))).toEqual([]);
    }),
  );

  it.effect("applies nothing and changes no schema object when run a second time", () =>
    Effect.gen(function* () {
      const file = tmp.path("fresh.db");
      yield* Ledger.migrate(file);
      const schemaBefore = dumpTable(file, "sqlite_master", "name");
      const report = yield* Ledger.migrate(file);
      expect(report).toMatchObject({ fromVersion: LATEST, toVersion: LATEST, applied: [], backupPath: null });
      expect(dumpTable(file, "sqlite_master", "name")).toEqual(schemaBefore);
      expect(listDir(tmp.dir()).filter((name) => name.includes(".bak-"))).toEqual([]);
    }),
  );
});

const HOST_VARIANTS = [
  { label: "without a migrations table", recorded: false, applied: ALL_MIGRATIONS },
  { label: "with 0001 recorded", recorded: true, applied: ALL_MIGRATIONS.slice(1) },
];

describe.each(HOST_VARIANTS)("migrateDatabase on a 0001 host database $label", ({ recorded, applied }) => {
  it.effect("adds only the ledger and delivery log tables (and the migrations table when it was missing)", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file, { recorded });
      const before = tableNames(file);
      yield* Ledger.migrate(file);
      const added = tableNames(file).filter((name) => !before.includes(name));
      expect(added).toEqual(recorded ? ADDED_TABLES : [...ADDED_TABLES, "effect_sql_migrations"].sort());
      expect(before.every((name) => tableNames(file).includes(name))).toBe(true);
    }),
  );

  it.effect("leaves every memory_turns and memory_items row's host columns byte-identical", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file, { recorded });
      const before = hostRows(file);
      yield* Ledger.migrate(file);
      const after = hostRows(file);
      expect(before.turns).toHaveLength(3);
      expect(before.items).toHaveLength(2);
      expect(after).toEqual(before);
      expect(sha256(JSON.stringify(after))).toBe(sha256(JSON.stringify(before)));
    }),
  );

  it.effect("reports version 1 to the latest and applies only what was not recorded", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file, { recorded });
      const report = yield* Ledger.migrate(file);
      expect(report).toMatchObject({ fromVersion: 1, toVersion: LATEST, applied });
      expect(recordedMigrations(file)).toEqual(ALL_VERSIONS);
    }),
  );

  it.effect("writes <db>.bak-1-<latest>-<timestamp>, names it in the report, and it holds the original rows", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file, { recorded });
      const before = hostRows(file);
      const tablesBefore = tableNames(file);
      const report = yield* Ledger.migrate(file, { now: NOW });
      expect(report.backupPath).toBe(`${file}.bak-1-${LATEST}-20240506T070809Z`);
      expect(existsSync(report.backupPath!)).toBe(true);
      expect(hostRows(report.backupPath!)).toEqual(before);
      expect(tableNames(report.backupPath!)).toEqual(tablesBefore);
    }),
  );
});

it.effect("names the backup with the current UTC time when no clock is given", () =>
  Effect.gen(function* () {
    const file = tmp.path("host.db");
    createHostDatabase(file);
    const report = yield* Ledger.migrate(file);
    expect(report.backupPath).toMatch(new RegExp(`/host\\.db\\.bak-1-${LATEST}-\\d{8}T\\d{6}Z$`));
    expect(listDir(tmp.dir())).toEqual(["host.db", report.backupPath!.split("/").pop()]);
  }),
);

const UP_TO_0004 = Object.fromEntries(Object.entries(MIGRATIONS).filter(([key]) => key < "0005"));

/**
 * Rows as they were before 0007 added the (null) lease epoch column, 0009 the receipts'
 * evidence columns and the runs' verification mode, and 0012 the runs' agent name (null or empty
 * for rows written before).
 */
const withoutLeaseEpochs = (tables: Record<string, unknown[]>) =>
  Object.fromEntries(
    Object.entries(tables).map(([table, rows]) => [
      table,
      rows.map((row) => {
        const {
          lease_epoch: _epoch,
          tool_kind: _kind,
          external_id: _external,
          evidence_keys_json: _keys,
          verification_mode: _mode,
          agent_name: _agent,
          ...rest
        } = row as Record<string, unknown>;
        return rest;
      }),
    ]),
  );

/** A version-4 ledger with a closed run, an open run with a pending call and an empty run (raw SQL, no store). */
function seedVersion4Ledger(file: string): void {
  const db = new Sqlite(file);
  try {
    const run = db.prepare(
      `INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
       VALUES (?, 's', 'running', '{"evidenceMode":"none"}', ?, '2024-01-01T00:00:00Z')`,
    );
    const event = db.prepare(
      `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at)
       VALUES (?, ?, ?, ?, '2024-01-01T00:00:00Z')`,
    );
    run.run("closed", "t-closed");
    event.run("closed", 1, "user_input", '{"text":"hi"}');
    event.run("closed", 2, "terminal", '{"terminalState":"completed"}');
    db.prepare("UPDATE agent_runs SET terminal_state = 'completed', ended_at = 'now' WHERE run_id = 'closed'").run();
    run.run("open", "t-open");
    event.run("open", 1, "user_input", '{"text":"hi"}');
    event.run("open", 2, "tool_call", '{"callId":"c1","toolName":"read_file"}');
    run.run("empty", "t-empty");
  } finally {
    db.close();
  }
}

describe("migration 0005_ledger_exact_checks on a version-4 ledger with runs", () => {
  it.effect("applies only 0005 and later, backs the file up and keeps every ledger row", () =>
    Effect.gen(function* () {
      const file = tmp.path("v4.db");
      yield* Ledger.migrate(file, { migrations: UP_TO_0004 });
      seedVersion4Ledger(file);
      const { effect_sql_migrations: _before, ...rowsBefore } = dumpAll(file);
      const report = yield* Ledger.migrate(file, { now: NOW });
      expect(report).toEqual({
        filename: file,
        fromVersion: 4,
        toVersion: LATEST,
        applied: ALL_MIGRATIONS.filter((key) => key >= "0005"),
        backupPath: `${file}.bak-4-${LATEST}-20240506T070809Z`,
      });
      const {
        effect_sql_migrations: _after,
        agent_ledger_owners,
        agent_run_owners,
        run_leases,
        agent_approvals,
        agent_tool_starts,
        agent_tool_processes,
        agent_run_queue,
        agent_run_cancel_requests,
        ...rowsAfter
      } = dumpAll(file);
      expect(withoutLeaseEpochs(rowsAfter)).toEqual(rowsBefore);
      expect([
        agent_ledger_owners,
        agent_run_owners,
        run_leases,
        agent_approvals,
        agent_tool_processes,
        agent_run_queue,
        agent_run_cancel_requests,
      ]).toEqual([[], [], [], [], [], [], []]);
      // The open run's pending call: nobody recorded whether it started, so it counts as started.
      expect(agent_tool_starts).toMatchObject([{ run_id: "open", call_id: "c1", attempt: 1, may_repeat: 0 }]);
    }),
  );

  it.effect("keeps its runs writable and closable through the store", () =>
    Effect.gen(function* () {
      const file = tmp.path("v4.db");
      yield* Ledger.migrate(file, { migrations: UP_TO_0004 });
      seedVersion4Ledger(file);
      const closedState = yield* Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.appendEvents("open", [toolResult(3, "c1")]);
        yield* store.finishRun("open", closure(4, "failed", "interrupted"));
        const refused = yield* Effect.flip(store.finishRun("closed", closure(3, "failed", "interrupted")));
        expect(refused.reason).toBe("run_not_running");
        return (yield* store.getRun("open"))?.terminalState;
      }).pipe(withLedger({ filename: file }));
      expect(closedState).toBe("failed");
    }),
  );
});

/** A 0002 that creates its first table and then fails, as a defect or as a failure. */
const failingLedger = (how: "die" | "fail") =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    yield* sql.unsafe(LEDGER_DDL[0]!);
    return yield* how === "die" ? Effect.die(new Error("boom")) : Effect.fail(new Error("boom"));
  });
const failingRecord = (how: "die" | "fail") => ({
  "0001_host_schema": MIGRATIONS["0001_host_schema"],
  "0002_run_ledger": failingLedger(how),
});

describe.each(["die", "fail"] as const)("a 0002 migration that fails (%s) after its first DDL", (how) => {
  it.effect("fails with DatabaseError migration_failed", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Ledger.migrate(tmp.path("fresh.db"), { migrations: failingRecord(how) }));
      expect(error).toBeInstanceOf(DatabaseError);
      expect(error.reason).toBe("migration_failed");
    }),
  );

  it.effect("leaves no ledger table and no migration row behind", () =>
    Effect.gen(function* () {
      const file = tmp.path("fresh.db");
      yield* Effect.flip(Ledger.migrate(file, { migrations: failingRecord(how) }));
      expect(tableNames(file)).toEqual(["effect_sql_migrations"]);
      expect(recordedMigrations(file)).toEqual([]);
    }),
  );

  it.effect("is followed by a normal migrate that reaches the latest version", () =>
    Effect.gen(function* () {
      const file = tmp.path("fresh.db");
      yield* Effect.flip(Ledger.migrate(file, { migrations: failingRecord(how) }));
      const report = yield* Ledger.migrate(file);
      expect(report).toMatchObject({ toVersion: LATEST, applied: ALL_MIGRATIONS });
      expect(tableNames(file)).toEqual(expect.arrayContaining(ADDED_TABLES));
    }),
  );
});

describe("a failed migration of a host database", () => {
  it.effect("keeps the host rows and the schema at version 1", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file);
      const before = hostRows(file);
      yield* Effect.flip(Ledger.migrate(file, { migrations: failingRecord("die") }));
      expect(hostRows(file)).toEqual(before);
      expect(tableNames(file)).not.toContain("agent_runs");
      expect(recordedMigrations(file)).toEqual([]);
    }),
  );

  it.effect("is retried as a migration from version 1 that backs the file up again", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file);
      yield* Effect.flip(Ledger.migrate(file, { migrations: failingRecord("die") }));
      const report = yield* Ledger.migrate(file);
      expect(report.fromVersion).toBe(1);
      expect(report.backupPath).not.toBeNull();
    }),
  );

  it.effect("gets a second, distinct backup when retried within the same second", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file);
      yield* Effect.flip(Ledger.migrate(file, { migrations: failingRecord("die"), now: NOW }));
      const report = yield* Ledger.migrate(file, { now: NOW });
      expect(report.backupPath).toBe(`${file}.bak-1-${LATEST}-20240506T070809Z-2`);
      expect(listDir(tmp.dir()).filter((name) => name.includes(".bak-"))).toHaveLength(2);
    }),
  );
});

/** The child starts tsx and effect; allow for a loaded machine (this is not a timing assertion). */
const CHILD_TIMEOUT = 120_000;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HANGING_MIGRATION = fileURLToPath(new URL("../support/hangingMigration.ts", import.meta.url));

/** Runs the hanging migration in a child process and SIGKILLs it once it has created a table. */
const killMidMigration = (file: string) =>
  Effect.async<NodeJS.Signals | null>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", HANGING_MIGRATION, file], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
      if (stdout.includes("started")) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    child.on("error", (error) => resume(Effect.die(error)));
    child.on("close", (code, signal) =>
      resume(
        stdout.includes("started")
          ? Effect.succeed(signal)
          : Effect.die(new Error(`the child exited (${code}) before starting: ${stderr}`)),
      ),
    );
    // If the test is interrupted (e.g. timed out), do not leave the child behind.
    return Effect.sync(() => child.kill("SIGKILL"));
  });

describe("a migration killed (SIGKILL) in the middle of 0002", () => {
  it.effect(
    "leaves a fresh file that a normal migrate brings to the latest version",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("fresh.db");
        expect(yield* killMidMigration(file)).toBe("SIGKILL");
        expect(tableNames(file)).not.toContain("agent_runs");
        const report = yield* Ledger.migrate(file);
        expect(report).toMatchObject({ toVersion: LATEST, applied: ALL_MIGRATIONS });
        expect(recordedMigrations(file)).toEqual(ALL_VERSIONS);
      }),
    CHILD_TIMEOUT,
  );

  it.effect(
    "leaves a host database with its rows that a normal migrate brings to the latest version",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("host.db");
        createHostDatabase(file);
        const before = hostRows(file);
        expect(yield* killMidMigration(file)).toBe("SIGKILL");
        expect(tableNames(file)).not.toContain("agent_runs");
        const report = yield* Ledger.migrate(file);
        expect(report).toMatchObject({ fromVersion: 1, toVersion: LATEST });
        expect(hostRows(file)).toEqual(before);
        expect(tableNames(file)).toEqual(expect.arrayContaining(ADDED_TABLES));
      }),
    CHILD_TIMEOUT,
  );
});
