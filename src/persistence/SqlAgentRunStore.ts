import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import {
  CompletionContract,
  type ExecutionReceipt,
  type JsonValue,
  type LedgerEvent,
  ReceiptReason,
  type RunRecord,
  RunStatus,
} from "../domain/index.js";
import { isoNow } from "../domain/isoNow.js";
import {
  AgentRunStore,
  type AgentRunStoreShape,
  LedgerError,
  type NewRun,
  type RunListFilter,
} from "./AgentRunStore.js";
import { Dialect } from "./engine/Dialect.js";
import type { LeaseBook } from "./leaseBook.js";
import * as LedgerRecovery from "./ledgerRecovery.js";
import * as LedgerWriter from "./ledgerWriter.js";
import { DEFAULT_PAYLOAD_CAP_BYTES } from "./payloadHygiene.js";
import * as RunLeases from "./runLeases.js";
import * as RunQueue from "./runQueue.js";
import * as SqlClient from "./sqlClient.js";
import * as ToolProcesses from "./toolProcesses.js";

export interface SqlAgentRunStoreOptions {
  /** Payloads larger than this (after redaction) are stored as summary + sha256 + size. */
  readonly payloadCapBytes?: number;
  readonly now?: () => string;
  /** The owner registered for this store's runtime (see runOwners.ts); none: runs get no owner row. */
  readonly ownerId?: string | undefined;
  /** How long a lease of this owner lasts without renewal (ms; default 30 s). */
  readonly leaseMs?: number | undefined;
  /** The epochs this store's writer holds, shared with the owner's heartbeat. */
  readonly leases?: LeaseBook | undefined;
  /** The receipt-verification rollout mode of the runs this store opens (default `enforce`). */
  readonly verificationMode?: "off" | "observe" | "enforce" | undefined;
  /** How recovery tells whether an owner is alive: this host, a pid probe, the wall clock (tests replace them). */
  readonly liveness?: LedgerRecovery.OwnerLiveness | undefined;
}

interface RunRow {
  run_id: string;
  session_id: string;
  workspace_id: string | null;
  provider_id: string | null;
  model: string | null;
  api_family: string | null;
  terminal_state: string;
  completion_contract_json: string;
  trace_id: string | null;
  started_at: string;
  ended_at: string | null;
  failure_code: string | null;
  failure_detail: string | null;
  /** Absent on a ledger read before migration 0012 (the CLI reads older files too). */
  agent_name?: string | null;
}

interface ReceiptRow {
  receipt_id: string;
  run_id: string;
  call_id: string;
  tool_name: string;
  status: ExecutionReceipt["status"];
  verification_status: ExecutionReceipt["verificationStatus"];
  input_fingerprint: string;
  evidence_json: string;
  started_at: string;
  finished_at: string | null;
  tool_kind?: string | null;
}

function toRunRecord(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    sessionId: row.session_id,
    workspaceId: row.workspace_id,
    providerId: row.provider_id,
    model: row.model,
    apiFamily: row.api_family,
    terminalState: RunStatus.parse(row.terminal_state),
    contract: CompletionContract.parse(JSON.parse(row.completion_contract_json)),
    traceId: row.trace_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    failureCode: row.failure_code,
    failureDetail: row.failure_detail,
    agentName: row.agent_name ?? null,
  };
}

function toReceipt(row: ReceiptRow): ExecutionReceipt {
  const evidence = JSON.parse(row.evidence_json) as Record<string, JsonValue>;
  const reason = row.status === "ok" ? undefined : ReceiptReason.safeParse(evidence.reason).data;
  if (reason) delete evidence.reason;
  return {
    receiptId: row.receipt_id,
    runId: row.run_id,
    callId: row.call_id,
    toolName: row.tool_name,
    status: row.status,
    ...(reason ? { reason } : {}),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    inputFingerprint: row.input_fingerprint,
    evidence,
    verificationStatus: row.verification_status,
    ...(row.tool_kind === "observe" || row.tool_kind === "mutate" || row.tool_kind === "deliver"
      ? { toolKind: row.tool_kind }
      : {}),
  };
}

/**
 * The AgentRunStore over whatever SqlClient is provided — SQLite (`engine/sqlite`: a file or
 * `:memory:`) or PostgreSQL (`engine/postgres`); the few differences come from the Dialect
 * provided beside the client. Writes go through the ledger writer (one transaction per batch);
 * reads are plain queries.
 */
export const make = (
  options: SqlAgentRunStoreOptions = {},
): Effect.Effect<AgentRunStoreShape, never, SqlClient.SqlClient | Dialect> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const dialect = yield* Dialect;
    const capBytes = options.payloadCapBytes ?? DEFAULT_PAYLOAD_CAP_BYTES;
    const now = options.now ?? isoNow;
    const leaseMs = options.leaseMs ?? LedgerWriter.DEFAULT_LEASE_MS;
    const writer = yield* LedgerWriter.make({
      capBytes,
      now,
      ownerId: options.ownerId,
      leaseMs,
      leases: options.leases,
      verificationMode: options.verificationMode,
    });
    const refuse =
      (context: string) =>
      <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>) =>
        Effect.mapError(effect, (error) => LedgerWriter.toLedgerError(error, context));

    /**
     * A refusal of a write to a run that does not exist says so: the triggers' other checks (a
     * sequence gap, an orphan result) fire before the foreign key, which SQLite checks last.
     */
    const refuseForRun =
      (runId: string, context: string) =>
      <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>) =>
        effect.pipe(
          refuse(context),
          Effect.catchAll((error) =>
            error.reason === "storage_failure"
              ? Effect.fail(error)
              : sql<{ found: number }>`SELECT 1 AS found FROM agent_runs WHERE run_id = ${runId}`.pipe(
                  Effect.orElseSucceed(() => [{ found: 1 }]),
                  Effect.flatMap((rows) =>
                    Effect.fail(
                      rows.length > 0
                        ? error
                        : new LedgerError({
                            reason: "unknown_run",
                            message: `${context}: ledger refused (unknown_run)`,
                            cause: error,
                          }),
                    ),
                  ),
                ),
          ),
        );

    const terminalRefused = (context: string) =>
      Effect.fail(
        new LedgerError({
          reason: "invalid_payload",
          message: `${context}: a terminal event is written only by finishRun, with the run row`,
        }),
      );

    const createRun: AgentRunStoreShape["createRun"] = (run: NewRun, events = []) =>
      events.some((event) => event.type === "terminal")
        ? terminalRefused(`createRun ${run.runId}`)
        : writer.open(run, events).pipe(refuse(`createRun ${run.runId}`));

    const foreignReceipt = (runId: string, receipts: ReadonlyArray<ExecutionReceipt>, context: string) =>
      receipts.some((receipt) => receipt.runId !== runId)
        ? Effect.fail(new LedgerError({ reason: "invalid_payload", message: `${context}: a receipt of another run` }))
        : undefined;

    const appendEvents: AgentRunStoreShape["appendEvents"] = (runId, events, receipts = []) =>
      events.some((event) => event.type === "terminal")
        ? terminalRefused(`appendEvents ${runId}`)
        : (foreignReceipt(runId, receipts, `appendEvents ${runId}`) ??
          writer.append(runId, events, receipts).pipe(refuseForRun(runId, `appendEvents ${runId}`)));

    const recordReceipt: AgentRunStoreShape["recordReceipt"] = (receipt) =>
      writer
        .append(receipt.runId, [], [receipt])
        .pipe(refuseForRun(receipt.runId, `recordReceipt ${receipt.runId}/${receipt.callId}`));

    const startCalls: AgentRunStoreShape["startCalls"] = (runId, starts, events = []) =>
      writer.leases.lost(runId)
        ? Effect.fail(
            new LedgerError({
              reason: "stale_lease",
              message: `startCalls ${runId}: this runtime lost the run's lease (another owner took it over)`,
            }),
          )
        : events.some((event) => event.type === "terminal")
          ? terminalRefused(`startCalls ${runId}`)
          : writer.start(runId, starts, events).pipe(refuseForRun(runId, `startCalls ${runId}`));

    const listStarts: AgentRunStoreShape["listStarts"] = (runId) =>
      sql<{ call_id: string; attempt: number; started_at: string }>`
        SELECT call_id, attempt, started_at FROM agent_tool_starts WHERE run_id = ${runId} ORDER BY call_id, attempt`.pipe(
        Effect.map((rows) =>
          rows.map((row) => ({ callId: row.call_id, attempt: Number(row.attempt), startedAt: row.started_at })),
        ),
        refuse(`listStarts ${runId}`),
      );

    const finishRun: AgentRunStoreShape["finishRun"] = (runId, closure) =>
      foreignReceipt(runId, closure.receipts ?? [], `finishRun ${runId}`) ??
      writer.finish(runId, closure).pipe(refuseForRun(runId, `finishRun ${runId}`));

    const getRun: AgentRunStoreShape["getRun"] = (runId) =>
      sql<RunRow>`SELECT * FROM agent_runs WHERE run_id = ${runId}`.pipe(
        Effect.map((rows) => (rows[0] ? toRunRecord(rows[0]) : undefined)),
        refuse(`getRun ${runId}`),
      );

    const findRunByTrace: AgentRunStoreShape["findRunByTrace"] = (traceId) =>
      sql<RunRow>`SELECT * FROM agent_runs WHERE trace_id = ${traceId} ORDER BY started_at LIMIT 1`.pipe(
        Effect.map((rows) => (rows[0] ? toRunRecord(rows[0]) : undefined)),
        refuse(`findRunByTrace ${traceId}`),
      );

    const listRunEvents: AgentRunStoreShape["listRunEvents"] = (runId) =>
      sql<{
        run_id: string;
        sequence: number;
        event_type: LedgerEvent["type"];
        payload_json: string;
        created_at: string;
      }>`
        SELECT run_id, sequence, event_type, payload_json, created_at FROM agent_run_events
        WHERE run_id = ${runId} ORDER BY sequence`.pipe(
        Effect.map((rows) =>
          rows.map(
            (row): LedgerEvent => ({
              runId: row.run_id,
              sequence: row.sequence,
              type: row.event_type,
              payload: JSON.parse(row.payload_json) as JsonValue,
              createdAt: row.created_at,
            }),
          ),
        ),
        refuse(`listRunEvents ${runId}`),
      );

    // In the order of their calls: the database refuses a receipt without its tool_call event and a
    // second tool_call of one call id (migration 0002), so each receipt has exactly one sequence.
    const listReceipts: AgentRunStoreShape["listReceipts"] = (runId) =>
      sql<ReceiptRow>`
        SELECT r.* FROM agent_execution_receipts r
        LEFT JOIN agent_run_events e ON e.run_id = r.run_id AND e.event_type IN ('tool_call', 'tool_result')
          AND e.event_type = 'tool_call' AND ${dialect.jsonText("e.payload_json", "callId")} = r.call_id
        WHERE r.run_id = ${runId} ORDER BY e.sequence, r.call_id`.pipe(
        Effect.map((rows) => rows.map(toReceipt)),
        refuse(`listReceipts ${runId}`),
      );

    const listRuns: AgentRunStoreShape["listRuns"] = (filter: RunListFilter = {}) => {
      const conditions = [
        ...(filter.sessionId ? [sql`session_id = ${filter.sessionId}`] : []),
        ...(filter.terminalState ? [sql`terminal_state = ${filter.terminalState}`] : []),
        ...(filter.startedBefore ? [sql`started_at < ${filter.startedBefore}`] : []),
        ...(filter.startedAfter ? [sql`started_at >= ${filter.startedAfter}`] : []),
        ...(filter.reason ? [sql`failure_code = ${filter.reason}`] : []),
        ...(filter.endedOnly ? [sql`terminal_state <> 'running'`] : []),
      ];
      const order = filter.newestFirst
        ? sql`started_at DESC, ${dialect.runInsertOrder} DESC`
        : sql`started_at, ${dialect.runInsertOrder}`;
      return sql<RunRow>`SELECT * FROM agent_runs WHERE ${sql.and(conditions)}
        ORDER BY ${order} ${dialect.limit(filter.limit)}`.pipe(
        Effect.map((rows) => rows.map(toRunRecord)),
        refuse("listRuns"),
      );
    };

    const listSessionRuns: AgentRunStoreShape["listSessionRuns"] = (sessionId) => listRuns({ sessionId });

    const findOpenRuns: AgentRunStoreShape["findOpenRuns"] = () =>
      sql<RunRow>`SELECT * FROM agent_runs WHERE terminal_state = 'running'
        ORDER BY started_at, ${dialect.runInsertOrder}`.pipe(
        Effect.map((rows) => rows.map(toRunRecord)),
        refuse("findOpenRuns"),
      );

    const loadRunLedgers: AgentRunStoreShape["loadRunLedgers"] = (runs) =>
      Effect.gen(function* () {
        if (runs.length === 0) return [];
        const ids = runs.map((run) => run.runId);
        const eventRows = yield* sql<{
          run_id: string;
          sequence: number;
          event_type: LedgerEvent["type"];
          payload_json: string;
          created_at: string;
        }>`SELECT run_id, sequence, event_type, payload_json, created_at FROM agent_run_events
            WHERE ${sql.in("run_id", ids)} ORDER BY run_id, sequence`;
        const receiptRows =
          yield* sql<ReceiptRow>`SELECT * FROM agent_execution_receipts WHERE ${sql.in("run_id", ids)}`;
        const events = new Map<string, LedgerEvent[]>();
        for (const row of eventRows) {
          const list = events.get(row.run_id) ?? [];
          list.push({
            runId: row.run_id,
            sequence: row.sequence,
            type: row.event_type,
            payload: JSON.parse(row.payload_json) as JsonValue,
            createdAt: row.created_at,
          });
          events.set(row.run_id, list);
        }
        const receipts = new Map<string, ExecutionReceipt[]>();
        for (const row of receiptRows) receipts.set(row.run_id, [...(receipts.get(row.run_id) ?? []), toReceipt(row)]);
        return runs.map((run) => ({
          run,
          events: events.get(run.runId) ?? [],
          receipts: receipts.get(run.runId) ?? [],
        }));
      }).pipe(refuse("loadRunLedgers"));

    const { acquireLease } = RunLeases.make({ sql, dialect, writer, ownerId: options.ownerId, leaseMs });
    const { recoverInterrupted, findLiveRuns, findAbandonedRuns, closeAbandonedRun } = LedgerRecovery.make({
      sql,
      dialect,
      writer,
      now,
      ownerId: options.ownerId,
      liveness: options.liveness,
      findOpenRuns,
    });
    const toolProcesses = ToolProcesses.make({ sql, now, findAbandonedRuns });
    const queue = RunQueue.make(sql);

    return AgentRunStore.of({
      ...toolProcesses,
      ...queue,
      findLiveRuns,
      findAbandonedRuns,
      closeAbandonedRun,
      acquireLease,
      startCalls,
      listStarts,
      createRun,
      appendEvents,
      recordReceipt,
      finishRun,
      getRun,
      findRunByTrace,
      listRunEvents,
      listReceipts,
      listSessionRuns,
      listRuns,
      findOpenRuns,
      loadRunLedgers,
      recoverInterrupted,
    });
  });

/** The store as a layer over whatever SqlClient is provided. */
export const layer = (
  options: SqlAgentRunStoreOptions = {},
): Layer.Layer<AgentRunStore, never, SqlClient.SqlClient | Dialect> => Layer.effect(AgentRunStore, make(options));
