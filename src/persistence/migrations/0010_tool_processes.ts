import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * The process groups tools started (`run_command`), for SQLite and PostgreSQL. Forward-only: one
 * table of its own beside the ledger, written before the program runs and marked ended when the
 * call has ended every process it started. When the host dies first, recovery finds the rows
 * still open and ends what is left of those processes — only on the host that recorded them, and
 * only when the group's leader is still the same process (its start time in the same boot) or a
 * process still carries the call's marker.
 *
 * - `marker`: the random value of the command's marker environment variable, one per call.
 * - `start_time`: the leader's start in clock ticks after boot (/proc/<pid>/stat), with `boot_id`;
 *   null where the host has no /proc.
 * - `cgroup`: the cgroup v2 leaf that held the command, when one did.
 * - `ended_by`: `call` (the call ended them itself) or `recovery`, with `ended_how` saying what
 *   recovery found.
 */

const COLUMNS = `
    marker TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES agent_runs(run_id),
    call_id TEXT NOT NULL,
    host TEXT NOT NULL,
    pgid INTEGER NOT NULL CHECK (pgid > 0),
    start_time TEXT,
    boot_id TEXT,
    cgroup TEXT,
    recorded_at TEXT NOT NULL,
    ended_at TEXT,
    ended_by TEXT CHECK (ended_by IN ('call', 'recovery')),
    ended_how TEXT`;

const DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_tool_processes (${COLUMNS}
  )`,
  "CREATE INDEX idx_agent_tool_processes_open ON agent_tool_processes(host) WHERE ended_at IS NULL",
  "CREATE INDEX idx_agent_tool_processes_run ON agent_tool_processes(run_id, call_id)",
];

export const TOOL_PROCESSES_DDL = DDL;

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  // The same statements are valid in both engines.
  for (const statement of DDL) yield* sql.unsafe(statement);
});
