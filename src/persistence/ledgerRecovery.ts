import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type { ExecutionReceipt, JsonValue, RunRecord } from "../domain/index.js";
import type {
  AbandonedRun,
  AgentRunStoreShape,
  LedgerError,
  LiveRun,
  RecoveredRun,
  RunClosing,
} from "./AgentRunStore.js";
import type { DialectShape } from "./engine/Dialect.js";
import * as LedgerWriter from "./ledgerWriter.js";
import { judgeOwner, type LivenessProbe, openRunOwners, processAlive, thisHost } from "./runOwners.js";
import { queuedRunIds } from "./runQueue.js";
import * as SqlClient from "./sqlClient.js";

/**
 * Start-up recovery over the SqlClient (SQLite or PostgreSQL): which open runs are abandoned
 * (their owner is gone, see runOwners.ts), and closing each of them as failed/interrupted with
 * `cancelled` receipts for its calls that never reported. Closing a run takes its lease over
 * first (a new epoch), so a writer that was only silent, not gone, cannot write into it after.
 */

export interface OwnerLiveness {
  readonly host?: string | undefined;
  readonly processAlive?: ((pid: number) => boolean) | undefined;
  readonly now?: (() => Date) | undefined;
}

export interface RecoveryOptions {
  readonly sql: SqlClient.SqlClient;
  readonly dialect: DialectShape;
  readonly writer: LedgerWriter.LedgerWriter;
  readonly now: () => string;
  readonly ownerId: string | undefined;
  readonly liveness: OwnerLiveness | undefined;
  readonly findOpenRuns: () => Effect.Effect<ReadonlyArray<RunRecord>, LedgerError>;
}

/** Start-up recovery's closing: the process that drove the run is gone. */
const INTERRUPTED: RunClosing = {
  terminal: { terminalState: "failed", reason: "interrupted", finalText: "", steps: 0, correctionTurns: 0 },
  detail: "the process ended before the run reached a terminal state",
  receiptReason: "interrupted",
  neverStarted: "the process ended before this call started: it never ran",
  outcomeUnknown: "the process ended before this call reported; its side effects are unknown",
};

/** A cancel asked for a run nobody drives (parked for approval, or its process gone). */
export const cancelledClosing = (requestedBy: string): RunClosing => ({
  terminal: { terminalState: "cancelled", reason: "cancelled_by_user", finalText: "", steps: 0, correctionTurns: 0 },
  detail: `cancelled by ${requestedBy} while no runtime drove the run`,
  receiptReason: "cancelled_by_user",
  neverStarted: "the run was cancelled before this call started: it never ran",
  outcomeUnknown: "the run was cancelled after its process ended; this call's side effects are unknown",
});

/** Up to ~2.5 s of retries for a recovery that meets another writer's commit. */
const BUSY_RETRY = Schedule.exponential("10 millis").pipe(Schedule.intersect(Schedule.recurs(8)));

export const make = (
  options: RecoveryOptions,
): Pick<AgentRunStoreShape, "recoverInterrupted" | "findLiveRuns" | "findAbandonedRuns" | "closeAbandonedRun"> => {
  const { sql, dialect, writer, now, findOpenRuns } = options;
  const refuse =
    (context: string) =>
    <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>) =>
      Effect.mapError(effect, (error) => LedgerWriter.toLedgerError(error, context));

  // Heartbeats are wall-clock times whatever `now` stamps on rows, so liveness reads the wall clock.
  const probe = (): LivenessProbe => ({
    ownerId: options.ownerId,
    host: options.liveness?.host ?? thisHost(),
    now: options.liveness?.now?.() ?? new Date(),
    processAlive: options.liveness?.processAlive ?? processAlive,
  });

  /** Open runs with the verdict on their owner, oldest first. */
  // One read transaction: the open runs and their owners from the same snapshot (a run that
  // closes in between must not look ownerless).
  const openRunsJudged = () =>
    sql
      .withTransaction(
        Effect.all([
          findOpenRuns(),
          openRunOwners().pipe(Effect.provideService(SqlClient.SqlClient, sql), refuse("openRunOwners")),
          queuedRunIds(sql).pipe(refuse("queuedRuns")),
        ]),
      )
      .pipe(
        LedgerWriter.transactionDefectAsFailure("openRuns"),
        Effect.catchTag("SqlError", (error) => Effect.fail(LedgerWriter.toLedgerError(error, "openRuns"))),
        Effect.map(([open, owners, queued]) => {
          const at = probe();
          // A run still in the queue was never driven: it waits for a worker, not for recovery.
          return open
            .filter((run) => !queued.has(run.runId))
            .map((run) => {
              const owner = owners.get(run.runId) ?? null;
              return { run, owner, verdict: judgeOwner(owner, at) };
            });
        }),
      );

  const recoverRun = (run: RunRecord, closing: RunClosing = INTERRUPTED) =>
    Effect.gen(function* () {
      const tail = yield* sql<{ sequence: number | null }>`
          SELECT MAX(sequence) AS sequence FROM agent_run_events WHERE run_id = ${run.runId}`;
      const dangling = yield* sql<{
        call_id: string;
        tool_name: string;
        fingerprint: string | null;
        created_at: string;
        first_start: string | null;
      }>`
          SELECT ${dialect.jsonText("e.payload_json", "callId")} AS call_id,
                 ${dialect.jsonText("e.payload_json", "toolName")} AS tool_name,
                 ${dialect.jsonText("e.payload_json", "inputFingerprint")} AS fingerprint, e.created_at,
                 (SELECT MIN(s.started_at) FROM agent_tool_starts s
                   WHERE s.run_id = e.run_id AND s.call_id = ${dialect.jsonText("e.payload_json", "callId")}) AS first_start
          FROM agent_run_events e
          WHERE e.run_id = ${run.runId} AND e.event_type IN ('tool_call', 'tool_result') AND e.event_type = 'tool_call'
            AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts r
              WHERE r.run_id = e.run_id AND r.call_id = ${dialect.jsonText("e.payload_json", "callId")})
          ORDER BY e.sequence`;
      const fenced = yield* sql<{ epoch: number }>`
          UPDATE run_leases SET epoch = epoch + 1 WHERE run_id = ${run.runId} RETURNING epoch`;
      if (fenced[0]) writer.leases.hold(run.runId, Number(fenced[0].epoch));
      const endedAt = now();
      const receipts: ExecutionReceipt[] = dangling.map((call) => ({
        receiptId: `${run.runId}:${call.call_id}`,
        runId: run.runId,
        callId: call.call_id,
        toolName: call.tool_name,
        status: "cancelled",
        reason: closing.receiptReason,
        startedAt: call.first_start ?? call.created_at,
        finishedAt: endedAt,
        inputFingerprint: call.fingerprint ?? "0".repeat(64),
        // Whether the call started is what its start record says (migration 0009), never a guess.
        evidence: (call.first_start === null
          ? { started: false, note: closing.neverStarted }
          : { started: true, side_effect_unknown: true, note: closing.outcomeUnknown }) as Record<string, JsonValue>,
        verificationStatus: "unverified",
      }));
      // Inside this transaction the writer's own transaction nests as a savepoint.
      yield* writer.finish(run.runId, {
        sequence: (tail[0]?.sequence ?? 0) + 1,
        receipts,
        terminal: closing.terminal,
        failureDetail: closing.detail,
      });
      const recovered: RecoveredRun = {
        runId: run.runId,
        sessionId: run.sessionId,
        cancelledCallIds: dangling.map((call) => call.call_id),
      };
      return recovered;
    });

  /**
   * Open runs with a call that asked for approval and never started: it waits for a decision, or
   * has one that whoever resumes the run applies. A call with a start record may have run; a
   * denied one never runs, and a resume settles it.
   */
  const parkedRuns = () =>
    sql<{ run_id: string }>`SELECT DISTINCT a.run_id FROM agent_approvals a
        JOIN agent_runs r ON r.run_id = a.run_id AND r.terminal_state = 'running'
        WHERE a.kind = 'requested'
          AND NOT EXISTS (SELECT 1 FROM agent_tool_starts s WHERE s.run_id = a.run_id AND s.call_id = a.call_id)
          AND NOT EXISTS (SELECT 1 FROM agent_execution_receipts x
            WHERE x.run_id = a.run_id AND x.call_id = a.call_id)`.pipe(
      Effect.map((rows) => new Set(rows.map((row) => row.run_id))),
      refuse("parkedRuns"),
    );

  const recoverInterrupted: AgentRunStoreShape["recoverInterrupted"] = () =>
    Effect.gen(function* () {
      const open = yield* openRunsJudged();
      const recovered: RecoveredRun[] = [];
      const parked = yield* parkedRuns();
      for (const { run, verdict } of open) {
        if (!verdict.gone) continue;
        // Waiting for a person is not interrupted work: the run stays open for a resume.
        if (parked.has(run.runId)) continue;
        // Recovery reads before it writes: another process's commit in between makes SQLite
        // refuse the write at once (SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out),
        // so the whole transaction is tried again. One run that cannot be closed must not keep
        // the others open; a run its owner closed meanwhile is no failure.
        const closed = yield* sql.withTransaction(recoverRun(run)).pipe(
          LedgerWriter.transactionDefectAsFailure(`recoverInterrupted ${run.runId}`),
          refuse(`recoverInterrupted ${run.runId}`),
          Effect.retry({
            schedule: BUSY_RETRY,
            while: (error) => /database is locked|SQLITE_BUSY/i.test(error.message),
          }),
          Effect.tapError((error) =>
            error.reason === "run_not_running" ? Effect.void : Effect.logWarning(error.message),
          ),
          Effect.option,
        );
        if (closed._tag === "Some") recovered.push(closed.value);
      }
      return recovered;
    }).pipe(Effect.withSpan("AgentRunStore.recoverInterrupted"));

  const closeAbandonedRun: AgentRunStoreShape["closeAbandonedRun"] = (runId, closing) =>
    Effect.gen(function* () {
      const judged = (yield* openRunsJudged()).find(({ run }) => run.runId === runId);
      // Driven by a live runtime (it acts on what was asked of it), or no longer open. Only an
      // owner known to have ended or gone counts: a run without an owner row is left alone.
      if (!judged?.verdict.gone || judged.verdict.why === "no_owner") return undefined;
      return yield* sql.withTransaction(recoverRun(judged.run, closing)).pipe(
        LedgerWriter.transactionDefectAsFailure(`closeAbandonedRun ${runId}`),
        refuse(`closeAbandonedRun ${runId}`),
        Effect.retry({
          schedule: BUSY_RETRY,
          while: (error) => /database is locked|SQLITE_BUSY/i.test(error.message),
        }),
        // Closed by someone else meanwhile (its runtime acted on the request): nothing to do.
        Effect.catchIf(
          (error) => error.reason === "run_not_running",
          () => Effect.succeed(undefined),
        ),
      );
    });

  const findLiveRuns: AgentRunStoreShape["findLiveRuns"] = () =>
    openRunsJudged().pipe(
      Effect.map((open) =>
        open.flatMap(({ run, owner, verdict }): LiveRun[] =>
          !verdict.gone && owner
            ? [
                {
                  runId: run.runId,
                  sessionId: run.sessionId,
                  pid: owner.pid,
                  host: owner.host,
                  heartbeatAt: owner.heartbeatAt,
                },
              ]
            : [],
        ),
      ),
    );

  const findAbandonedRuns: AgentRunStoreShape["findAbandonedRuns"] = () =>
    openRunsJudged().pipe(
      Effect.map((open) =>
        open.flatMap(({ run, verdict }): AbandonedRun[] =>
          verdict.gone ? [{ run, ownerKnownGone: verdict.why !== "heartbeat_expired" }] : [],
        ),
      ),
    );

  return { recoverInterrupted, findLiveRuns, findAbandonedRuns, closeAbandonedRun };
};
