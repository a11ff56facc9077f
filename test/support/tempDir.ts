/**
 * Test support: a fresh temp directory per test (removed afterwards) and the shared fixtures of
 * the persistence and CLI tests — a hand-built 0001 host database, table dumps, and run/event
 * builders for the ledger.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { afterEach, beforeEach } from "vitest";
import type { ExecutionReceipt, JsonValue, ReasonCode, TerminalState } from "../../src/domain/index.js";
import { NONE_CONTRACT } from "../../src/domain/index.js";
import type { EventToAppend, NewRun, RunClosure } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";

export interface TempDir {
  /** The directory of the current test. */
  readonly dir: () => string;
  /** A path inside the directory of the current test. */
  readonly path: (...parts: string[]) => string;
}

/** Registers hooks that give every test of the calling file its own directory under os.tmpdir(). */
export function useTempDir(prefix = "agentloop-test-"): TempDir {
  let current: string | undefined;
  beforeEach(() => {
    current = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    if (current) rmSync(current, { recursive: true, force: true });
    current = undefined;
  });
  const dir = () => {
    if (!current) throw new Error("useTempDir: no test is running");
    return current;
  };
  return { dir, path: (...parts) => join(dir(), ...parts) };
}

export const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
export const fileSha256 = (file: string) => sha256(readFileSync(file));
/** Every file and directory under `dir`, recursively, as sorted relative paths. */
export const listDir = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

/** The 0001 host schema exactly as a pre-agentloop host created it, without the Migrator. */
export const HOST_SCHEMA_0001 = `
  CREATE TABLE memory_turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'chat',
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
  );
  CREATE INDEX idx_memory_turns_session ON memory_turns(session_id, created_at);
  CREATE TABLE memory_items (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    content TEXT NOT NULL,
    source TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT
  );
  CREATE INDEX idx_memory_items_scope ON memory_items(scope);`;

/** The @effect/sql Migrator's table (SQLite dialect). */
export const MIGRATIONS_TABLE_DDL = `CREATE TABLE effect_sql_migrations (
  migration_id integer PRIMARY KEY NOT NULL,
  created_at datetime NOT NULL DEFAULT current_timestamp,
  name VARCHAR(255) NOT NULL
)`;

/**
 * A host database at schema 0001 with rows in memory_turns and memory_items (unicode, JSON
 * metadata). `recorded: true` adds the migrations table with only 0001 in it.
 */
export function createHostDatabase(file: string, options: { recorded?: boolean } = {}): void {
  const db = new Sqlite(file);
  try {
    db.exec(HOST_SCHEMA_0001);
    if (options.recorded) {
      db.exec(MIGRATIONS_TABLE_DDL);
      db.prepare("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (1, 'host_schema')").run();
    }
    const turn = db.prepare(
      "INSERT INTO memory_turns (session_id, role, content, source, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    turn.run("s-1", "user", "Grüße aus Köln — 你好 👋", "chat", JSON.stringify({ lang: "de", tags: ["a", "b"] }), "t1");
    turn.run("s-1", "assistant", "Hallo!\nZweite Zeile\t\u00e9", "chat", "{}", "t2");
    turn.run("s-2", "system", "", "import", JSON.stringify({ nested: { n: 1.5, ok: true, none: null } }), "t3");
    const item = db.prepare(
      "INSERT INTO memory_items (id, scope, content, source, evidence, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    item.run("m-1", "user", "likes ☕ and 🍰", "chat", JSON.stringify({ turnIds: [1, 2] }), "t1", null);
    item.run("m-2", "workspace", "quote ' and \" chars", "manual", "{}", "t2", "t3");
  } finally {
    db.close();
  }
}

export function tableNames(file: string): string[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    return (rows as Array<{ name: string }>).map((row) => row.name);
  } finally {
    db.close();
  }
}

/** Every row of `table` in primary-key order, as `SELECT *` returns it. */
export function dumpTable(file: string, table: string, orderBy = "rowid"): unknown[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} ORDER BY ${orderBy}`).all();
  } finally {
    db.close();
  }
}

/** Every table of the file (bookkeeping included) with all its rows. */
export function dumpAll(file: string): Record<string, unknown[]> {
  const dump: Record<string, unknown[]> = {};
  for (const table of tableNames(file)) dump[table] = dumpTable(file, table);
  return dump;
}

// --- Ledger builders ---------------------------------------------------------------------------

export const FINGERPRINT = "a".repeat(64);

/** Provides the AgentRunStore (and SqlClient) over a migrated `filename`. */
/**
 * The ledger on a file for one test. Its store stands in for a process that may "crash": it
 * registers no owner (so recovery closes its open runs) unless the test passes `owner`.
 */
export const withLedger =
  (options: Ledger.LedgerOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provide(effect, Ledger.layer({ owner: false, ...options }));

export const newRun = (runId: string, overrides: Partial<NewRun> = {}): NewRun => ({
  runId,
  sessionId: "session-1",
  traceId: `trace-${runId}`,
  contract: NONE_CONTRACT,
  ...overrides,
});

export const userInput = (sequence: number, text = "hello"): EventToAppend => ({
  sequence,
  type: "user_input",
  payload: { text },
});

export const toolCall = (sequence: number, callId: string, toolName = "read_file"): EventToAppend => ({
  sequence,
  type: "tool_call",
  payload: { step: 1, callId, toolName, arguments: { path: "README.md" }, inputFingerprint: FINGERPRINT },
});

export const toolResult = (sequence: number, callId: string, output: JsonValue = "ok"): EventToAppend => ({
  sequence,
  type: "tool_result",
  payload: { step: 1, callId, toolName: "read_file", status: "ok", output, outputHash: "b".repeat(64) },
});

export const receipt = (
  runId: string,
  callId: string,
  overrides: Partial<ExecutionReceipt> = {},
): ExecutionReceipt => ({
  receiptId: `${runId}:${callId}`,
  runId,
  callId,
  toolName: "read_file",
  status: "ok",
  startedAt: "2024-01-01T00:00:00.000Z",
  finishedAt: "2024-01-01T00:00:01.000Z",
  inputFingerprint: FINGERPRINT,
  evidence: { bytes: 42 },
  verificationStatus: "verified",
  ...overrides,
});

export const closure = (
  sequence: number,
  terminalState: TerminalState = "completed",
  reason: ReasonCode = "answered",
  finalText = "done",
): RunClosure => ({
  sequence,
  terminal: { terminalState, reason, finalText, steps: 1, correctionTurns: 0 },
});
