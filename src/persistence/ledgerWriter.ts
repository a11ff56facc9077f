import type * as SqlError from "@effect/sql/SqlError";
import type { Statement } from "@effect/sql/Statement";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { type ExecutionReceipt, hasEvidence, type JsonValue, STABLE_ID_KEYS } from "../domain/index.js";
import {
  type EventToAppend,
  LEDGER_REFUSALS,
  LedgerError,
  type LedgerRefusal,
  type NewRun,
  type RunClosure,
  type ToolStart,
} from "./AgentRunStore.js";
import { Dialect } from "./engine/Dialect.js";
import { postgresRefusal } from "./engine/postgres/refusals.js";
import { sqliteRefusal } from "./engine/sqlite/refusals.js";
import { WriteBatch } from "./engine/WriteBatch.js";
import { type LeaseBook, makeLeaseBook } from "./leaseBook.js";
import { sanitizedJson, sanitizeText } from "./payloadHygiene.js";
import * as SqlClient from "./sqlClient.js";

/**
 * The ledger's write side, written once over @effect/sql's `SqlClient` (no driver handle), so the
 * same code serves any SqlClient. Each batch — a run's opening rows, a step's rows, the terminal
 * rows with the run row — is one transaction holding at most one statement per table: a multi-row
 * INSERT of the events, one of the receipts, and for the terminal the run row's UPDATE. A batch
 * that comes down to a single statement runs it on its own: one statement is one transaction
 * already (all rows or none), so BEGIN/COMMIT would add nothing but their cost. The SQL text only
 * depends on the number of rows, so each shape is prepared once and then served from the client's
 * statement cache.
 *
 * Redaction and the payload cap happen here, on the way in, so nothing unsanitized reaches a row.
 * The database's triggers and constraints still guard every row (migrations 0002 and 0005);
 * `toLedgerError` turns their refusals into typed LedgerErrors.
 *
 * A batch, once started, is not interrupted half-way: it commits or rolls back as a whole. It is
 * traced by its caller's span alone (no span per statement or transaction beneath it).
 */
export interface LedgerWriter {
  /** The run row (`running`) and its first events. */
  readonly open: (run: NewRun, events: ReadonlyArray<EventToAppend>) => Effect.Effect<void, WriteFailure>;
  /** Events in order, then receipts. */
  readonly append: (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts: ReadonlyArray<ExecutionReceipt>,
  ) => Effect.Effect<void, WriteFailure>;
  /** Leading events, the terminal event, receipts and the run row's terminal state. */
  readonly finish: (runId: string, closure: RunClosure) => Effect.Effect<void, WriteFailure>;
  /**
   * Records that calls are about to start (migration 0009), in one transaction fenced by the
   * run's lease: refused — and so never started — when this writer lost the lease, when the lease
   * expired, when a call that may not repeat started before, or when a call still waits for its
   * approval. `events` (the step's tool_call rows) are written first, in the same transaction.
   */
  readonly start: (
    runId: string,
    starts: ReadonlyArray<ToolStart>,
    events?: ReadonlyArray<EventToAppend>,
  ) => Effect.Effect<void, WriteFailure>;
  /**
   * The lease epoch this writer holds for a run (see migration 0007): every row it writes for
   * the run carries it, and the database refuses them once another writer took the run over.
   */
  readonly leases: LeaseBook;
}

export interface LedgerWriterOptions {
  /** Payloads larger than this (after redaction) are stored as summary + sha256 + size. */
  readonly capBytes: number;
  readonly now: () => string;
  /** The runtime that drives the runs this writer opens (agent_run_owners); none: no owner row. */
  readonly ownerId?: string | undefined;
  /** With an owner, each run it opens gets a lease this long (ms; renewed by the owner's heartbeat). */
  readonly leaseMs?: number | undefined;
  /** The epochs this writer holds, shared with the owner's heartbeat (a new book when absent). */
  readonly leases?: LeaseBook | undefined;
  /** The rollout mode of receipt verification the runs it opens are driven with (default `enforce`). */
  readonly verificationMode?: "off" | "observe" | "enforce" | undefined;
}

const refusalSet: ReadonlySet<string> = new Set(LEDGER_REFUSALS);

/** A statement built with a SqlClient's template, which an engine's WriteBatch can compile and run. */
const isStatement = (write: Effect.Effect<unknown, unknown>): write is Statement<unknown> =>
  typeof (write as { compile?: unknown }).compile === "function";

/**
 * What a write fails with: the SQL client's error, or a LedgerError the writer already read (a
 * batch that cannot be serialized, a transaction that died); `toLedgerError` reads either.
 */
export type WriteFailure = SqlError.SqlError | LedgerError;

/** How long a run's lease lasts without a renewal, unless the owner's settings say otherwise. */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * Maps a trigger's `ledger:<reason>` or a constraint violation onto a typed LedgerError. `error` is
 * what the driver threw, directly or (as @effect/sql reports it) in an SqlError's `cause`. The
 * engines' error codes do not overlap (SQLite's are names, PostgreSQL's SQLSTATE digits), so each
 * engine's reading is asked in turn.
 */
export function toLedgerError(error: unknown, context: string): LedgerError {
  // Already read: a failure the writer itself reported (a batch that cannot be serialized, a
  // transaction that died) keeps its reason and message through every caller's mapping.
  if (error instanceof LedgerError) return error;
  const wrapped = error as {
    message?: string;
    code?: string;
    cause?: { message?: string; code?: string; constraint?: string };
  };
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
  const reason =
    sqliteRefusal(cause.code, text) ?? postgresRefusal(cause.code, (cause as { constraint?: string }).constraint);
  if (reason === "invalid_payload") {
    return new LedgerError({ reason, message: `${context}: ${text}`, cause: error });
  }
  if (reason) {
    return new LedgerError({ reason, message: `${context}: ledger refused (${reason})`, cause: error });
  }
  return new LedgerError({ reason: "storage_failure", message: `${context}: ${text}`, cause: error });
}

/**
 * @effect/sql turns a failed BEGIN/SAVEPOINT (whose ROLLBACK then fails) or COMMIT into a defect;
 * for the ledger it is a storage failure like any other (nothing was committed).
 */
export const transactionDefectAsFailure =
  (context: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | LedgerError, R> =>
    Effect.catchAllDefect(effect, (defect) => Effect.fail(toLedgerError(defect, context)));

/** A receipt's non-ok reason travels inside its evidence JSON under `reason`. */
export function receiptEvidenceJson(receipt: ExecutionReceipt, capBytes: number): string {
  const evidence: Record<string, JsonValue> = { ...receipt.evidence };
  if (receipt.reason) evidence.reason = receipt.reason;
  return sanitizedJson(evidence, capBytes);
}

/**
 * What the database's evidence check reads (migration 0009), taken from the receipt's whole
 * evidence before any payload cap: the tool's kind, the first stable external id, and the keys
 * that carry a value.
 */
export function evidenceColumns(receipt: ExecutionReceipt) {
  const key = STABLE_ID_KEYS.find((candidate) => hasEvidence(receipt, [candidate]));
  const value = key === undefined ? undefined : receipt.evidence[key];
  return {
    tool_kind: receipt.toolKind ?? null,
    external_id: value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value),
    evidence_keys_json: JSON.stringify(Object.keys(receipt.evidence).filter((name) => hasEvidence(receipt, [name]))),
  };
}

export const make = (options: LedgerWriterOptions): Effect.Effect<LedgerWriter, never, SqlClient.SqlClient | Dialect> =>
  Effect.map(Effect.all([SqlClient.SqlClient, Dialect, Effect.serviceOption(WriteBatch)]), ([sql, dialect, fast]) => {
    const { capBytes, now } = options;
    type Write = Effect.Effect<unknown, SqlError.SqlError>;
    const leases = options.leases ?? makeLeaseBook();
    const epochs = { get: leases.epochOf, has: (runId: string) => leases.epochOf(runId) !== undefined };

    // The engine's own way to run a batch (SQLite: in one synchronous step, which makes no span and
    // that nothing can interrupt half-way), for batches made of statements alone.
    const fastBatch = Option.getOrUndefined(fast);

    /**
     * With the engine's WriteBatch, the SQL text of each statement shape (an insert of n rows, a
     * start) is compiled once by the client's own compiler and then reused with the statement's
     * values: the same text and values the statement would compile to, without building and
     * compiling it again for every row, and the connection finds its prepared statement under the
     * very same string. A shape is kept only if its first compile bound exactly `values`, in order.
     */
    const shapes = new Map<string, string>();
    const reusable = (shape: string, values: ReadonlyArray<unknown>, build: () => Statement<unknown>): Write => {
      const text = fastBatch === undefined ? undefined : shapes.get(shape);
      if (text !== undefined) return sql.unsafe(text, values);
      const statement = build();
      if (fastBatch !== undefined) {
        const [compiled, bound] = statement.compile();
        if (bound.length === values.length && bound.every((value, index) => value === values[index])) {
          shapes.set(shape, compiled);
        }
      }
      return statement;
    };

    /** A multi-row INSERT; the insert helper binds each row's values in the order of the first row's keys. */
    const insertRows = (
      table: "agent_run_events" | "agent_execution_receipts",
      rows: ReadonlyArray<Record<string, unknown>>,
    ): Write => {
      const columns = Object.keys(rows[0]!);
      const values: unknown[] = [];
      // The helper binds a missing value as NULL.
      for (const row of rows) for (const column of columns) values.push(row[column] ?? null);
      // (The columns are part of the shape: a row of other keys never meets a text compiled for these.)
      return reusable(
        `${table}:${rows.length}:${columns.join(",")}`,
        values,
        () => sql`INSERT INTO ${sql.literal(table)} ${sql.insert(rows)}`,
      );
    };

    const insertEvents = (runId: string, events: ReadonlyArray<EventToAppend>, createdAt: string): Write =>
      insertRows(
        "agent_run_events",
        events.map((event) => ({
          run_id: runId,
          sequence: event.sequence,
          event_type: event.type,
          payload_json: sanitizedJson(event.payload, capBytes),
          created_at: createdAt,
          lease_epoch: epochs.get(runId) ?? null,
        })),
      );

    const insertReceipts = (receipts: ReadonlyArray<ExecutionReceipt>): Write =>
      insertRows(
        "agent_execution_receipts",
        receipts.map((receipt) => ({
          receipt_id: receipt.receiptId,
          run_id: receipt.runId,
          call_id: receipt.callId,
          tool_name: receipt.toolName,
          status: receipt.status,
          verification_status: receipt.verificationStatus,
          input_fingerprint: receipt.inputFingerprint,
          evidence_json: receiptEvidenceJson(receipt, capBytes),
          started_at: receipt.startedAt,
          finished_at: receipt.finishedAt,
          lease_epoch: epochs.get(receipt.runId) ?? null,
          ...evidenceColumns(receipt),
        })),
      );

    const rows = (
      runId: string,
      events: ReadonlyArray<EventToAppend>,
      receipts: ReadonlyArray<ExecutionReceipt>,
      createdAt: string,
    ): Write[] => [
      ...(events.length > 0 ? [insertEvents(runId, events, createdAt)] : []),
      ...(receipts.length > 0 ? [insertReceipts(receipts)] : []),
    ];

    const runAll = (statements: ReadonlyArray<Write>) =>
      Effect.forEach(statements, (statement) => statement, { discard: true });

    /** Statement by statement through SqlClient, as one transaction when there are several. */
    const throughClient = (context: string, statements: ReadonlyArray<Write>): Effect.Effect<void, WriteFailure> =>
      (statements.length === 1 ? Effect.asVoid(statements[0]!) : sql.withTransaction(runAll(statements))).pipe(
        transactionDefectAsFailure(context),
        // The caller's span (the runtime's one span per ledger write) stands for the batch: no
        // `sql.transaction` / `sql.execute` spans beneath it, and none of their cost per statement.
        Effect.withTracerEnabled(false),
      );

    /**
     * Builds the batch's statements (redacting and capping the payloads: a payload that cannot be
     * serialized fails the batch before anything is written), then runs them as one transaction.
     */
    const batch = (context: string, build: () => ReadonlyArray<Write>): Effect.Effect<void, WriteFailure> =>
      Effect.suspend(() => {
        let statements: ReadonlyArray<Write>;
        try {
          statements = build();
        } catch (cause) {
          return Effect.fail(toLedgerError(cause, `${context}: cannot serialize the rows`));
        }
        if (statements.length === 0) return Effect.void;
        if (fastBatch === undefined || !statements.every(isStatement)) return throughClient(context, statements);
        return fastBatch.runBatch(
          statements,
          Effect.suspend(() => throughClient(context, statements)),
        );
      }).pipe(
        // Built and written as one: a batch once started (its lease held, say) is not left half-way.
        Effect.uninterruptible,
      );

    const open: LedgerWriter["open"] = (run, events) =>
      batch("open", () => {
        const startedAt = run.startedAt ?? now();
        // The run's first rows already carry the lease they open with (epoch 1); a queued run has
        // none until a worker takes it.
        const owned = options.ownerId !== undefined && run.queued !== true;
        if (owned) leases.hold(run.runId, 1);
        return [
          sql`INSERT INTO agent_runs ${sql.insert({
            run_id: run.runId,
            session_id: run.sessionId,
            workspace_id: run.workspaceId ?? null,
            provider_id: run.providerId ?? null,
            model: run.model ?? null,
            api_family: run.apiFamily ?? null,
            terminal_state: "running",
            completion_contract_json: JSON.stringify(run.contract),
            trace_id: run.traceId,
            started_at: startedAt,
            verification_mode: run.verificationMode ?? options.verificationMode ?? "enforce",
            agent_name: run.agentName ?? null,
          })}`,
          ...(run.queued
            ? [
                sql`INSERT INTO agent_run_queue ${sql.insert({
                  run_id: run.runId,
                  agent_name: run.agentName ?? "",
                  enqueued_at: startedAt,
                })}`,
                ...(dialect.queueJob ? [dialect.queueJob(run.runId)] : []),
              ]
            : []),
          ...(owned
            ? [
                sql`INSERT INTO agent_run_owners ${sql.insert({ run_id: run.runId, owner_id: options.ownerId })}`,
                sql`INSERT INTO run_leases (run_id, owner_id, epoch, expires_at)
                    VALUES (${run.runId}, ${options.ownerId}, 1, ${dialect.nowMillis} + ${options.leaseMs ?? DEFAULT_LEASE_MS})`,
              ]
            : []),
          ...rows(run.runId, events, [], startedAt),
        ];
      }).pipe(Effect.tapError(() => Effect.sync(() => leases.drop(run.runId))));

    const start: LedgerWriter["start"] = (runId, starts, events = []) =>
      batch("start", () => [
        ...(events.length > 0 ? [insertEvents(runId, events, now())] : []),
        ...starts.map((call) => {
          const mayRepeat = call.mayRepeat ? 1 : 0;
          const epoch = epochs.get(runId) ?? null;
          return reusable(
            "agent_tool_starts",
            [runId, call.callId, call.toolName, mayRepeat, epoch, call.startedAt, runId, call.callId],
            () => sql`INSERT INTO agent_tool_starts
                (run_id, call_id, attempt, tool_name, may_repeat, lease_epoch, started_at)
              SELECT ${runId}, ${call.callId}, COALESCE(MAX(attempt), 0) + 1, ${call.toolName}, ${mayRepeat},
                ${epoch}, ${call.startedAt}
              FROM agent_tool_starts WHERE run_id = ${runId} AND call_id = ${call.callId}`,
          );
        }),
      ]);

    const append: LedgerWriter["append"] = (runId, events, receipts) =>
      batch("append", () => rows(runId, events, receipts, now()));

    const finish: LedgerWriter["finish"] = (runId, closure) =>
      batch("finish", () => {
        const endedAt = now();
        const terminal: EventToAppend = { sequence: closure.sequence, type: "terminal", payload: closure.terminal };
        // A provider's error text can carry the key it refused: the detail is redacted and capped too.
        const detail = closure.failureDetail == null ? null : sanitizeText(closure.failureDetail, capBytes);
        return [
          ...rows(runId, [...(closure.events ?? []), terminal], closure.receipts ?? [], endedAt),
          sql`UPDATE agent_runs SET terminal_state = ${closure.terminal.terminalState}, ended_at = ${endedAt},
                failure_code = ${closure.terminal.reason}, failure_detail = ${detail}
              WHERE run_id = ${runId}`,
          // A closed run needs no lease: its rows are refused by the run's state from now on.
          ...(epochs.has(runId) ? [sql`DELETE FROM run_leases WHERE run_id = ${runId}`] : []),
        ];
      }).pipe(Effect.tap(() => Effect.sync(() => leases.drop(runId))));

    return { open, append, finish, start, leases };
  });
