import type * as SqlClient from "@effect/sql/SqlClient";
import type * as SqlError from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import type { AgentRunStoreShape, LedgerError } from "./AgentRunStore.js";
import * as LedgerWriter from "./ledgerWriter.js";

/**
 * The process groups tools started (migration 0010): a row before the program runs, marked ended
 * once the call has ended its processes. Rows still open whose run has ended, or whose run's owner
 * is known gone, are what a crash left running: recovery ends those processes (see
 * services/processes/strayProcesses.ts) and marks the rows.
 */

export interface ToolProcessRecord {
  readonly runId: string;
  readonly callId: string;
  /** The host whose processes these are: only that host's recovery touches them. */
  readonly host: string;
  readonly pgid: number;
  readonly startTime: string | null;
  readonly bootId: string | null;
  /** Unique per call: the value of the command's marker environment variable. */
  readonly marker: string;
  readonly cgroup: string | null;
  readonly recordedAt: string;
}

export type ToolProcessEnd = { readonly by: "call" } | { readonly by: "recovery"; readonly how: string };

interface ProcessRow {
  marker: string;
  run_id: string;
  call_id: string;
  host: string;
  pgid: number;
  start_time: string | null;
  boot_id: string | null;
  cgroup: string | null;
  recorded_at: string;
  terminal_state: string | null;
}

const toRecord = (row: ProcessRow): ToolProcessRecord => ({
  runId: row.run_id,
  callId: row.call_id,
  host: row.host,
  pgid: Number(row.pgid),
  startTime: row.start_time,
  bootId: row.boot_id,
  marker: row.marker,
  cgroup: row.cgroup,
  recordedAt: row.recorded_at,
});

export interface ToolProcessOptions {
  readonly sql: SqlClient.SqlClient;
  readonly now: () => string;
  readonly findAbandonedRuns: AgentRunStoreShape["findAbandonedRuns"];
}

export const make = (
  options: ToolProcessOptions,
): Pick<AgentRunStoreShape, "recordToolProcess" | "endToolProcess" | "findStrayToolProcesses"> => {
  const { sql, now } = options;
  const refuse =
    (context: string) =>
    <A, R>(effect: Effect.Effect<A, SqlError.SqlError | LedgerError, R>) =>
      Effect.mapError(effect, (error) => LedgerWriter.toLedgerError(error, context));

  const recordToolProcess: AgentRunStoreShape["recordToolProcess"] = (record) =>
    sql`INSERT INTO agent_tool_processes ${sql.insert({
      marker: record.marker,
      run_id: record.runId,
      call_id: record.callId,
      host: record.host,
      pgid: record.pgid,
      start_time: record.startTime,
      boot_id: record.bootId,
      cgroup: record.cgroup,
      recorded_at: record.recordedAt,
    })}`.pipe(Effect.asVoid, refuse("recordToolProcess"));

  const endToolProcess: AgentRunStoreShape["endToolProcess"] = (marker, end) =>
    sql`UPDATE agent_tool_processes
        SET ended_at = ${now()}, ended_by = ${end.by}, ended_how = ${end.by === "recovery" ? end.how : null}
        WHERE marker = ${marker} AND ended_at IS NULL`.pipe(Effect.asVoid, refuse("endToolProcess"));

  const findStrayToolProcesses: AgentRunStoreShape["findStrayToolProcesses"] = (host) =>
    Effect.gen(function* () {
      const rows = yield* sql<ProcessRow>`
        SELECT p.marker, p.run_id, p.call_id, p.host, p.pgid, p.start_time, p.boot_id, p.cgroup, p.recorded_at,
               r.terminal_state
        FROM agent_tool_processes p LEFT JOIN agent_runs r ON r.run_id = p.run_id
        WHERE p.ended_at IS NULL AND p.host = ${host}
        ORDER BY p.recorded_at, p.marker`.pipe(refuse("findStrayToolProcesses"));
      // A run still open is another process's business unless its owner is known gone (ended, or its
      // pid gone on this host): a heartbeat that is only late does not make its commands strays.
      const open = rows.some((row) => row.terminal_state === "running");
      const abandoned = open
        ? new Set(
            (yield* options.findAbandonedRuns())
              .filter((abandonedRun) => abandonedRun.ownerKnownGone)
              .map((abandonedRun) => abandonedRun.run.runId),
          )
        : new Set<string>();
      return rows.filter((row) => row.terminal_state !== "running" || abandoned.has(row.run_id)).map(toRecord);
    });

  return { recordToolProcess, endToolProcess, findStrayToolProcesses };
};
