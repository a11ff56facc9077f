import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { type ApprovalRecord, type ApprovalRequest, HostApprovalDecision, type JsonValue } from "../domain/index.js";
import { LedgerError } from "./AgentRunStore.js";
import { Dialect } from "./engine/Dialect.js";
import { toLedgerError } from "./ledgerWriter.js";
import { sanitizedJson } from "./payloadHygiene.js";
import * as SqlClient from "./sqlClient.js";

/**
 * The approvals of tool calls in the ledger (`agent_approvals`, migration 0008), over SqlClient
 * (SQLite or PostgreSQL). A run writes a call's request before the host hears of it; a decision is
 * written by whoever decides — the host through its runtime, or another process on the same file —
 * and read back by the waiting run. The database refuses a second decision and every change.
 */

interface ApprovalRow {
  readonly run_id: string;
  readonly call_id: string;
  readonly kind: "requested" | "approved" | "denied";
  readonly tool_name: string;
  readonly scope: string | null;
  readonly decided_by: string | null;
  readonly payload_json: string;
  readonly created_at: string;
}

const refuse =
  (context: string) =>
  <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>): Effect.Effect<A, LedgerError, R> =>
    Effect.mapError(effect, (error) => toLedgerError(error, context));

/** The request, once: a resumed run asks again for the same call and finds it there. */
export const recordApprovalRequest = (request: ApprovalRequest & { readonly timeoutMs: number }, at: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const payload = sanitizedJson({
      step: request.step,
      reason: request.reason,
      arguments: request.arguments,
      timeoutMs: request.timeoutMs,
    });
    yield* sql`INSERT INTO agent_approvals (run_id, call_id, kind, tool_name, payload_json, created_at)
      VALUES (${request.runId}, ${request.callId}, 'requested', ${request.toolName}, ${payload}, ${at})
      ON CONFLICT DO NOTHING`;
  }).pipe(refuse(`recordApprovalRequest ${request.runId}/${request.callId}`));

/**
 * A decision; the ledger refuses it when the call has one already or has settled (`already_decided`,
 * `call_already_settled`). A decision over its limits (edited arguments too large or too deep, a
 * control character in who decided) is refused before anything is written (`invalid_payload`).
 * The row holds the decision whole, never a truncated summary: the waiting run applies what it reads
 * back, and the limits keep it bounded.
 */
/** The channel on which a recorded decision is announced (its payload: the run id). */
export const APPROVAL_DECIDED_CHANNEL = "agentloop_approval_decided";

export const recordApprovalDecision = (runId: string, callId: string, input: HostApprovalDecision) =>
  Effect.gen(function* () {
    const checked = HostApprovalDecision.safeParse(input);
    if (!checked.success) {
      return yield* new LedgerError({
        reason: "invalid_payload",
        message: `recordApprovalDecision ${runId}/${callId}: ${checked.error.issues[0]?.message ?? "not a decision"}`,
      });
    }
    const decision = checked.data;
    const sql = yield* SqlClient.SqlClient;
    const [request] = yield* sql<{ tool_name: string }>`SELECT tool_name FROM agent_approvals
      WHERE run_id = ${runId} AND call_id = ${callId} AND kind = 'requested'`.pipe(
      refuse(`recordApprovalDecision ${runId}/${callId}`),
    );
    const payload = sanitizedJson(decision as unknown as JsonValue, Number.POSITIVE_INFINITY);
    const scope = decision.decision === "approved" ? decision.scope : null;
    yield* sql`INSERT INTO agent_approvals (run_id, call_id, kind, tool_name, scope, decided_by, payload_json, created_at)
      VALUES (${runId}, ${callId}, ${decision.decision}, ${request?.tool_name ?? ""}, ${scope},
        ${decision.decidedBy}, ${payload}, ${decision.decidedAt})`.pipe(
      refuse(`recordApprovalDecision ${runId}/${callId}`),
    );
    // Where the engine can announce it, the runtime driving the run reads the decision at once;
    // an announcement that is lost is made up for when that runtime's LISTEN connection is back
    // (it reads every waiting run's decisions then), and on resume.
    yield* (yield* Dialect).notify(APPROVAL_DECIDED_CHANNEL, runId).pipe(Effect.ignore);
    return { toolName: request?.tool_name ?? "" };
  });

const parsed = (text: string): Record<string, JsonValue> => {
  try {
    const value = JSON.parse(text) as JsonValue;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
};

/** Every approval of a run (requests with their decision, if any), in request order. */
export const listApprovals = (runId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const rows = yield* sql<ApprovalRow>`SELECT run_id, call_id, kind, tool_name, scope, decided_by, payload_json,
        created_at FROM agent_approvals WHERE run_id = ${runId} ORDER BY approval_id`;
    const records = new Map<string, ApprovalRecord>();
    for (const row of rows) {
      const payload = parsed(row.payload_json);
      if (row.kind === "requested") {
        records.set(row.call_id, {
          runId: row.run_id,
          callId: row.call_id,
          toolName: row.tool_name,
          step: Number(payload.step ?? 0),
          reason: typeof payload.reason === "string" ? payload.reason : "",
          arguments: payload.arguments ?? {},
          timeoutMs: Number(payload.timeoutMs ?? 0),
          requestedAt: row.created_at,
          decision: null,
        });
        continue;
      }
      const request = records.get(row.call_id);
      const decision = HostApprovalDecision.safeParse(payload);
      if (request && decision.success) records.set(row.call_id, { ...request, decision: decision.data });
    }
    return [...records.values()];
  }).pipe(refuse(`listApprovals ${runId}`));

/**
 * The run's approvals for a reader that may have no SQL access (the serve command's reads only the
 * store): none then, rather than a failure.
 */
export const listApprovalsIfReadable = (runId: string) =>
  Effect.flatMap(Effect.serviceOption(SqlClient.SqlClient), (sql) =>
    Option.isSome(sql)
      ? listApprovals(runId).pipe(Effect.provideService(SqlClient.SqlClient, sql.value))
      : Effect.succeed<ReadonlyArray<ApprovalRecord>>([]),
  );

/**
 * The tools approved with scope `session` in any run of `sessionId`, by any process: a grant is a
 * ledger fact, so every replica that opens a run of the session honours it.
 */
export const sessionGrantsOf = (sessionId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const rows = yield* sql<{ tool_name: string }>`SELECT DISTINCT a.tool_name FROM agent_approvals a
      JOIN agent_runs r ON r.run_id = a.run_id
      WHERE r.session_id = ${sessionId} AND a.kind = 'approved' AND a.scope = 'session'`;
    return rows.map((row) => row.tool_name);
  }).pipe(refuse(`sessionGrantsOf ${sessionId}`));
