/**
 * The ledger through raw better-sqlite3 prepared statements: a file migrated by the project's own
 * `Ledger.migrate` (so the same tables and triggers apply), the runtime's pragmas (WAL,
 * synchronous NORMAL, foreign keys on). The physical reference the runtime is compared with.
 */
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import type { ExecutionReceipt, TerminalPayload } from "../../src/domain/index.js";
import type { EventToAppend, NewRun } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";

export async function migrateFile(filename: string): Promise<void> {
  await Effect.runPromise(Ledger.migrate(filename));
}

export interface RawLedger {
  readonly db: Sqlite.Database;
  readonly createRun: (run: NewRun, startedAt: string) => void;
  readonly appendEvents: (runId: string, events: ReadonlyArray<EventToAppend>, createdAt: string) => void;
  readonly insertReceipts: (receipts: ReadonlyArray<ExecutionReceipt>) => void;
  readonly closeRun: (runId: string, terminal: TerminalPayload, endedAt: string) => void;
  /** `fn` inside BEGIN … COMMIT (better-sqlite3's `transaction`). */
  readonly transaction: <A>(fn: () => A) => A;
  readonly close: () => void;
}

/** Opens a file that `migrateFile` has migrated. */
export function openRawLedger(filename: string): RawLedger {
  const db = new Sqlite(filename);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  const insertRun = db.prepare(
    `INSERT INTO agent_runs (run_id, session_id, workspace_id, provider_id, model, api_family, terminal_state,
       completion_contract_json, trace_id, started_at, ended_at, failure_code, failure_detail)
     VALUES (?, ?, NULL, ?, ?, ?, 'running', ?, ?, ?, NULL, NULL, NULL)`,
  );
  const insertEvent = db.prepare(
    "INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const insertReceipt = db.prepare(
    `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
       input_fingerprint, evidence_json, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateRun = db.prepare(
    `UPDATE agent_runs SET terminal_state = ?, ended_at = ?, failure_code = ?, failure_detail = NULL
     WHERE run_id = ?`,
  );
  const createRun = (run: NewRun, startedAt: string) => {
    insertRun.run(
      run.runId,
      run.sessionId,
      run.providerId ?? null,
      run.model ?? null,
      run.apiFamily ?? null,
      JSON.stringify(run.contract),
      run.traceId,
      startedAt,
    );
  };
  const appendEvents = (runId: string, events: ReadonlyArray<EventToAppend>, createdAt: string) => {
    for (const event of events)
      insertEvent.run(runId, event.sequence, event.type, JSON.stringify(event.payload), createdAt);
  };
  const insertReceipts = (receipts: ReadonlyArray<ExecutionReceipt>) => {
    for (const receipt of receipts)
      insertReceipt.run(
        receipt.receiptId,
        receipt.runId,
        receipt.callId,
        receipt.toolName,
        receipt.status,
        receipt.verificationStatus,
        receipt.inputFingerprint,
        JSON.stringify(receipt.evidence),
        receipt.startedAt,
        receipt.finishedAt,
      );
  };
  const closeRun = (runId: string, terminal: TerminalPayload, endedAt: string) => {
    updateRun.run(terminal.terminalState, endedAt, terminal.reason, runId);
  };
  const begin = db.prepare("BEGIN");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const transaction = <A>(fn: () => A): A => {
    begin.run();
    try {
      const value = fn();
      commit.run();
      return value;
    } catch (error) {
      if (db.inTransaction) rollback.run();
      throw error;
    }
  };
  return { db, createRun, appendEvents, insertReceipts, closeRun, transaction, close: () => db.close() };
}

/** Ledger rows of the runs whose id starts with `prefix`. */
export function countEvents(filename: string, prefix: string): number {
  const db = new Sqlite(filename, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare("SELECT COUNT(*) AS n FROM agent_run_events WHERE run_id >= ? AND run_id < ?")
      .get(prefix, `${prefix}\uffff`) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}
