import type Sqlite from "better-sqlite3";
import type { ExecutionReceipt, JsonValue } from "../domain/index.js";
import {
  type EventToAppend,
  LEDGER_REFUSALS,
  LedgerError,
  type LedgerRefusal,
  type NewRun,
  type RunClosure,
} from "./AgentRunStore.js";
import { sanitizedJson } from "./payloadHygiene.js";

/**
 * The ledger's write side as synchronous prepared statements: each batch (a run's opening rows,
 * a step's rows, the terminal rows with the run row) is one `db.transaction` — BEGIN, the inserts,
 * COMMIT in one call, all or nothing. Redaction and the payload cap happen here, on the way in,
 * so nothing unsanitized reaches a row. The triggers of migration 0002 still guard every row.
 */
export interface LedgerWriter {
  /** The run row (`running`) and its first events. */
  readonly open: (run: NewRun, events: ReadonlyArray<EventToAppend>) => void;
  /** Events in order, then receipts. */
  readonly append: (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts: ReadonlyArray<ExecutionReceipt>,
  ) => void;
  /** Leading events, the terminal event, receipts and the run row's terminal state. */
  readonly finish: (runId: string, closure: RunClosure) => void;
}

const refusalSet: ReadonlySet<string> = new Set(LEDGER_REFUSALS);

/**
 * Maps a trigger's `ledger:<reason>` (or a constraint violation) onto a typed LedgerError. `error`
 * is what SQLite threw, directly or wrapped in an SqlError's `cause`.
 */
export function toLedgerError(error: unknown, context: string): LedgerError {
  const wrapped = error as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const cause = wrapped.code !== undefined ? wrapped : (wrapped.cause ?? wrapped);
  const text = cause.message ?? wrapped.message ?? String(error);
  const raised = /ledger:([a-z_]+)/.exec(text)?.[1];
  if (raised && refusalSet.has(raised)) {
    return new LedgerError({
      reason: raised as LedgerRefusal,
      message: `${context}: ledger refused (${raised})`,
      cause: error,
    });
  }
  if (cause.code === "SQLITE_CONSTRAINT_PRIMARYKEY" && context.startsWith("createRun")) {
    return new LedgerError({ reason: "duplicate_run", message: `${context}: run already exists`, cause: error });
  }
  if (cause.code === "SQLITE_CONSTRAINT_UNIQUE" && /agent_run_events/.test(text)) {
    return new LedgerError({
      reason: "duplicate_sequence",
      message: `${context}: ledger refused (duplicate_sequence)`,
      cause: error,
    });
  }
  return new LedgerError({ reason: "storage_failure", message: `${context}: ${text}`, cause: error });
}

/** A receipt's non-ok reason travels inside its evidence JSON under `reason`. */
export function receiptEvidenceJson(receipt: ExecutionReceipt, capBytes: number): string {
  const evidence: Record<string, JsonValue> = { ...receipt.evidence };
  if (receipt.reason) evidence.reason = receipt.reason;
  return sanitizedJson(evidence, capBytes);
}

/** Statements are prepared on first use, so a read-only connection can carry a writer it never uses. */
function lazy<A>(make: () => A): () => A {
  let value: A | undefined;
  return () => {
    if (value === undefined) value = make();
    return value;
  };
}

export function makeLedgerWriter(db: Sqlite.Database, capBytes: number, now: () => string): LedgerWriter {
  const statements = lazy(() => ({
    insertRun: db.prepare(
      `INSERT INTO agent_runs (run_id, session_id, workspace_id, provider_id, model, api_family, terminal_state,
         completion_contract_json, trace_id, started_at, ended_at, failure_code, failure_detail)
       VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, NULL, NULL, NULL)`,
    ),
    insertEvent: db.prepare(
      "INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    insertReceipt: db.prepare(
      `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
         input_fingerprint, evidence_json, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    closeRun: db.prepare(
      `UPDATE agent_runs SET terminal_state = ?, ended_at = ?, failure_code = ?, failure_detail = ?
       WHERE run_id = ?`,
    ),
  }));

  const insertRows = (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts: ReadonlyArray<ExecutionReceipt>,
    createdAt: string,
  ) => {
    const { insertEvent, insertReceipt } = statements();
    for (const event of events) {
      insertEvent.run(runId, event.sequence, event.type, sanitizedJson(event.payload, capBytes), createdAt);
    }
    for (const receipt of receipts) {
      insertReceipt.run(
        receipt.receiptId,
        receipt.runId,
        receipt.callId,
        receipt.toolName,
        receipt.status,
        receipt.verificationStatus,
        receipt.inputFingerprint,
        receiptEvidenceJson(receipt, capBytes),
        receipt.startedAt,
        receipt.finishedAt,
      );
    }
  };

  const open = db.transaction((run: NewRun, events: ReadonlyArray<EventToAppend>) => {
    const startedAt = run.startedAt ?? now();
    statements().insertRun.run(
      run.runId,
      run.sessionId,
      run.workspaceId ?? null,
      run.providerId ?? null,
      run.model ?? null,
      run.apiFamily ?? null,
      JSON.stringify(run.contract),
      run.traceId,
      startedAt,
    );
    insertRows(run.runId, events, [], startedAt);
  });

  const append = db.transaction(
    (runId: string, events: ReadonlyArray<EventToAppend>, receipts: ReadonlyArray<ExecutionReceipt>) =>
      insertRows(runId, events, receipts, now()),
  );

  const finish = db.transaction((runId: string, closure: RunClosure) => {
    const endedAt = now();
    insertRows(
      runId,
      [...(closure.events ?? []), { sequence: closure.sequence, type: "terminal", payload: closure.terminal }],
      closure.receipts ?? [],
      endedAt,
    );
    statements().closeRun.run(
      closure.terminal.terminalState,
      endedAt,
      closure.terminal.reason,
      closure.failureDetail ?? null,
      runId,
    );
  });

  return { open, append, finish };
}
