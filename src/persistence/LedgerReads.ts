import type * as SqlError from "@effect/sql/SqlError";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { LedgerError } from "./AgentRunStore.js";
import { Dialect } from "./engine/Dialect.js";
import { toLedgerError } from "./ledgerWriter.js";
import * as SqlClient from "./sqlClient.js";

/**
 * The ledger read whole, for those who look at it rather than drive runs: the metrics and health
 * checks computed from the ledger alone, the serve app's live signature, the trace of a run. The
 * queries live here, beside the tables; their callers get plain records. Every method only reads,
 * so it serves a read-only connection as well as the runtime's own.
 */

/** Closed runs ended within (endedAfter, endedAtOrBefore]; either bound may be absent. */
export interface EndedWindow {
  readonly endedAfter?: string | undefined;
  readonly endedAtOrBefore?: string | undefined;
}

/** A closed run with what its events add up to. */
export interface ClosedRunRow {
  readonly runId: string;
  readonly traceId: string | null;
  readonly sessionId: string;
  readonly terminalState: string;
  readonly failureCode: string | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  /** The stored completion contract, as JSON text. */
  readonly contractJson: string;
  /** The terminal event's payload, as JSON text (null without one). */
  readonly terminalJson: string | null;
  readonly toolCalls: number;
  /** provider_anomaly events with the code asked about. */
  readonly anomalies: number;
}

/** A pairing the replay relies on that is missing in a closed run. */
export interface OrphanRow {
  readonly runId: string;
  readonly callId: string | null;
  readonly kind:
    | "tool_call without receipt"
    | "tool_call without tool_result"
    | "tool_result without tool_call"
    | "receipt without tool_call";
}

export interface OkReceiptRow {
  readonly runId: string;
  readonly callId: string;
  readonly toolName: string;
  readonly evidenceJson: string;
}

export interface MemoryItemCounts {
  /** Items agentloop created, by provenance and current status. */
  readonly candidates: ReadonlyArray<{ readonly provenance: string; readonly status: string; readonly count: number }>;
  /** Items `rejected` or still `pending`, by status. */
  readonly rejectedOrPending: ReadonlyArray<{ readonly status: string; readonly count: number }>;
  /** Items the observe-mode gate marked `would_block`. */
  readonly wouldBlock: number;
}

export interface DeliveryCounts {
  /** Send attempts by channel and outcome. */
  readonly attempts: ReadonlyArray<{ readonly channelId: string; readonly status: string; readonly count: number }>;
  /** Final messages no recorded attempt delivered (failed attempts, none sent), by channel. */
  readonly undeliverableFinals: ReadonlyArray<{ readonly channelId: string; readonly count: number }>;
}

export interface DeliveryRow {
  readonly channel_id: string;
  readonly kind: string;
  readonly status: string;
  readonly attempt: number;
  readonly message_id: string | null;
  readonly error: string | null;
  readonly created_at: string;
}

export interface LedgerReadsShape {
  /** The names of the database's tables: what a ledger of an older schema has. */
  readonly tableNames: () => Effect.Effect<ReadonlySet<string>, LedgerError>;
  /** Closed runs (optionally ended within a window), counting provider anomalies with `anomalyCode`. */
  readonly closedRuns: (
    window: EndedWindow,
    anomalyCode: string,
  ) => Effect.Effect<ReadonlyArray<ClosedRunRow>, LedgerError>;
  /** Dangling calls, orphan results and receipts without a call in runs that ended within the window. */
  readonly replayOrphans: (window: EndedWindow) => Effect.Effect<ReadonlyArray<OrphanRow>, LedgerError>;
  /** The `ok` receipts of runs that ended within the window. */
  readonly okReceipts: (window: EndedWindow) => Effect.Effect<ReadonlyArray<OkReceiptRow>, LedgerError>;
  /** Counts of `memory_items` (empty where its provenance columns are missing: a schema before 0004). */
  readonly memoryItemCounts: () => Effect.Effect<MemoryItemCounts, LedgerError>;
  /** Counts of `agent_channel_deliveries`. */
  readonly deliveryCounts: () => Effect.Effect<DeliveryCounts, LedgerError>;
  /**
   * A cheap fingerprint of the whole ledger: it changes whenever a run starts, a row is appended
   * (event ids only grow) or a run closes.
   */
  readonly signature: () => Effect.Effect<string, LedgerError>;
  /** The visible turns a run dual-wrote to `memory_turns`; null without that table. */
  readonly visibleTurns: (runId: string) => Effect.Effect<number | null, LedgerError>;
  /** A run's channel deliveries in the order they were recorded; null without that table. */
  readonly runDeliveries: (runId: string) => Effect.Effect<ReadonlyArray<DeliveryRow> | null, LedgerError>;
}

export class LedgerReads extends Context.Tag("agentloop/LedgerReads")<LedgerReads, LedgerReadsShape>() {}

const refused =
  (context: string) =>
  <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>): Effect.Effect<A, LedgerError, R> =>
    Effect.mapError(effect, (error) => (error instanceof LedgerError ? error : toLedgerError(error, context)));

export const layer: Layer.Layer<LedgerReads, never, SqlClient.SqlClient | Dialect> = Layer.effect(
  LedgerReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const dialect = yield* Dialect;

    const tableNames = Effect.fn("LedgerReads.tableNames")(function* () {
      const rows = yield* sql<{ name: string }>`${dialect.tableNames}`;
      return new Set(rows.map((row) => row.name)) as ReadonlySet<string>;
    }, refused("tableNames"));

    /** Runs `r` that are closed and ended within the window. */
    const closedIn = (window: EndedWindow) =>
      sql.and([
        sql`r.terminal_state <> 'running'`,
        ...(window.endedAfter ? [sql`r.ended_at > ${window.endedAfter}`] : []),
        ...(window.endedAtOrBefore ? [sql`r.ended_at <= ${window.endedAtOrBefore}`] : []),
      ]);

    const closedRuns = Effect.fn("LedgerReads.closedRuns")(function* (window: EndedWindow, anomalyCode: string) {
      const rows = yield* sql<{
        run_id: string;
        trace_id: string | null;
        session_id: string;
        terminal_state: string;
        failure_code: string | null;
        started_at: string;
        ended_at: string | null;
        contract: string;
        terminal: string | null;
        tool_calls: number;
        anomalies: number;
      }>`
        SELECT r.run_id, r.trace_id, r.session_id, r.terminal_state, r.failure_code, r.started_at, r.ended_at,
          r.completion_contract_json AS contract, t.payload_json AS terminal,
          (SELECT COUNT(*) FROM agent_run_events e
            WHERE e.run_id = r.run_id AND e.event_type = 'tool_call') AS tool_calls,
          (SELECT COUNT(*) FROM agent_run_events e
            WHERE e.run_id = r.run_id AND e.event_type = 'provider_anomaly'
              AND ${dialect.jsonText("e.payload_json", "code")} = ${anomalyCode}) AS anomalies
        FROM agent_runs r
        LEFT JOIN agent_run_events t ON t.run_id = r.run_id AND t.event_type = 'terminal'
        WHERE ${closedIn(window)}
        ORDER BY r.ended_at, r.run_id`;
      return rows.map(
        (row): ClosedRunRow => ({
          runId: row.run_id,
          traceId: row.trace_id,
          sessionId: row.session_id,
          terminalState: row.terminal_state,
          failureCode: row.failure_code,
          startedAt: row.started_at,
          endedAt: row.ended_at,
          contractJson: row.contract,
          terminalJson: row.terminal,
          toolCalls: Number(row.tool_calls),
          anomalies: Number(row.anomalies),
        }),
      );
    }, refused("closedRuns"));

    const replayOrphans = Effect.fn("LedgerReads.replayOrphans")(function* (window: EndedWindow) {
      const callIdOf = (alias: string) => dialect.jsonText(`${alias}.payload_json`, "callId");
      const inWindow = closedIn(window);
      const rows = yield* sql<{ run_id: string; call_id: string | null; kind: OrphanRow["kind"] }>`
        SELECT r.run_id, ${callIdOf("c")} AS call_id, 'tool_call without receipt' AS kind
          FROM agent_runs r JOIN agent_run_events c ON c.run_id = r.run_id AND c.event_type = 'tool_call'
          WHERE ${inWindow} AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
            WHERE x.run_id = r.run_id AND x.call_id = ${callIdOf("c")})
        UNION ALL
        SELECT r.run_id, ${callIdOf("c")}, 'tool_call without tool_result'
          FROM agent_runs r JOIN agent_run_events c ON c.run_id = r.run_id AND c.event_type = 'tool_call'
          WHERE ${inWindow} AND NOT EXISTS (SELECT 1 FROM agent_run_events t
            WHERE t.run_id = r.run_id AND t.event_type = 'tool_result'
              AND ${callIdOf("t")} = ${callIdOf("c")})
        UNION ALL
        SELECT r.run_id, ${callIdOf("t")}, 'tool_result without tool_call'
          FROM agent_runs r JOIN agent_run_events t ON t.run_id = r.run_id AND t.event_type = 'tool_result'
          WHERE ${inWindow} AND NOT EXISTS (SELECT 1 FROM agent_run_events c
            WHERE c.run_id = r.run_id AND c.event_type = 'tool_call'
              AND ${callIdOf("c")} = ${callIdOf("t")})
        UNION ALL
        SELECT r.run_id, x.call_id, 'receipt without tool_call'
          FROM agent_runs r JOIN agent_execution_receipts x ON x.run_id = r.run_id
          WHERE ${inWindow} AND NOT EXISTS (SELECT 1 FROM agent_run_events c
            WHERE c.run_id = r.run_id AND c.event_type = 'tool_call'
              AND ${callIdOf("c")} = x.call_id)`;
      return rows.map((row): OrphanRow => ({ runId: row.run_id, callId: row.call_id, kind: row.kind }));
    }, refused("replayOrphans"));

    const okReceipts = Effect.fn("LedgerReads.okReceipts")(function* (window: EndedWindow) {
      const rows = yield* sql<{ run_id: string; call_id: string; tool_name: string; evidence_json: string }>`
        SELECT x.run_id, x.call_id, x.tool_name, x.evidence_json
          FROM agent_runs r JOIN agent_execution_receipts x ON x.run_id = r.run_id
          WHERE ${closedIn(window)} AND x.status = 'ok'`;
      return rows.map(
        (row): OkReceiptRow => ({
          runId: row.run_id,
          callId: row.call_id,
          toolName: row.tool_name,
          evidenceJson: row.evidence_json,
        }),
      );
    }, refused("okReceipts"));

    const memoryItemCounts = Effect.fn("LedgerReads.memoryItemCounts")(function* () {
      const columns = new Set(
        (yield* sql<{ name: string }>`${dialect.columnNamesOf("memory_items")}`).map((row) => row.name),
      );
      if (!columns.has("provenance") || !columns.has("verification_status")) {
        return { candidates: [], rejectedOrPending: [], wouldBlock: 0 } satisfies MemoryItemCounts;
      }
      const candidates = yield* sql<{ provenance: string; status: string; n: number }>`
        SELECT provenance, verification_status AS status, COUNT(*) AS n FROM memory_items
        WHERE source = 'agentloop' GROUP BY provenance, verification_status`;
      const states = yield* sql<{ status: string; n: number }>`
        SELECT verification_status AS status, COUNT(*) AS n FROM memory_items
        WHERE verification_status IN ('rejected', 'pending') GROUP BY verification_status`;
      const [gated] = yield* sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM memory_items
        WHERE ${dialect.jsonTextIfValid("evidence", "gate")} = 'would_block'`;
      return {
        candidates: candidates.map((row) => ({ provenance: row.provenance, status: row.status, count: Number(row.n) })),
        rejectedOrPending: states.map((row) => ({ status: row.status, count: Number(row.n) })),
        wouldBlock: Number(gated?.n ?? 0),
      } satisfies MemoryItemCounts;
    }, refused("memoryItemCounts"));

    const deliveryCounts = Effect.fn("LedgerReads.deliveryCounts")(function* () {
      const attempts = yield* sql<{ channel_id: string; status: string; n: number }>`
        SELECT channel_id, status, COUNT(*) AS n FROM agent_channel_deliveries GROUP BY channel_id, status`;
      const finals = yield* sql<{ channel_id: string; n: number }>`
        SELECT channel_id, COUNT(*) AS n FROM (
          SELECT run_id, channel_id FROM agent_channel_deliveries WHERE kind = 'final'
          GROUP BY run_id, channel_id
          HAVING SUM(CASE WHEN status = 'sent' THEN 1 ELSE 0 END) = 0
            AND SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) > 0) AS finals
        GROUP BY channel_id`;
      return {
        attempts: attempts.map((row) => ({ channelId: row.channel_id, status: row.status, count: Number(row.n) })),
        undeliverableFinals: finals.map((row) => ({ channelId: row.channel_id, count: Number(row.n) })),
      } satisfies DeliveryCounts;
    }, refused("deliveryCounts"));

    const signature = Effect.fn("LedgerReads.signature")(function* () {
      const [row] = yield* sql<{ runs: number | string; open: number | string; last_event: number | string | null }>`
        SELECT (SELECT COUNT(*) FROM agent_runs) AS runs,
          (SELECT COUNT(*) FROM agent_runs WHERE terminal_state = 'running') AS open,
          (SELECT MAX(event_id) FROM agent_run_events) AS last_event`;
      return row ? `${row.runs}/${row.open}/${row.last_event ?? 0}` : "0/0/0";
    }, refused("signature"));

    const visibleTurns = Effect.fn("LedgerReads.visibleTurns")(function* (runId: string) {
      if (!(yield* tableNames()).has("memory_turns")) return null;
      const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM memory_turns
        WHERE ${dialect.jsonTextIfValid("metadata", "runId")} = ${runId}`;
      return Number(row?.n ?? 0);
    }, refused("visibleTurns"));

    const runDeliveries = Effect.fn("LedgerReads.runDeliveries")(function* (runId: string) {
      if (!(yield* tableNames()).has("agent_channel_deliveries")) return null;
      return yield* sql<DeliveryRow>`SELECT channel_id, kind, status, attempt, message_id, error, created_at
        FROM agent_channel_deliveries WHERE run_id = ${runId} ORDER BY id`;
    }, refused("runDeliveries"));

    return LedgerReads.of({
      tableNames,
      closedRuns,
      replayOrphans,
      okReceipts,
      memoryItemCounts,
      deliveryCounts,
      signature,
      visibleTurns,
      runDeliveries,
    });
  }),
);
