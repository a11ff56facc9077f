import BetterSqlite from "better-sqlite3";
import type { LedgerWatermark } from "../Engine.js";

/**
 * A run's last durable ledger sequence, read synchronously from a second, read-only connection to
 * a SQLite ledger file (WAL: it sees every committed row). The report's "events written in this
 * state" needs a read inside XState's microstep (see host/charts/pathRecorder.ts), which an Effect
 * over the runtime's own client cannot give.
 */
export function sqliteWatermark(filename: string): LedgerWatermark {
  let connection: BetterSqlite.Database | undefined;
  let statement: BetterSqlite.Statement<[string], { last: number | null }> | undefined;
  let failed = false;
  return {
    read: (runId) => {
      if (failed) return undefined;
      try {
        // Opened on first use: the runtime has created and migrated the file by then.
        connection ??= new BetterSqlite(filename, { readonly: true, fileMustExist: true });
        statement ??= connection.prepare<[string], { last: number | null }>(
          "SELECT MAX(sequence) AS last FROM agent_run_events WHERE run_id = ?",
        );
        return statement.get(runId)?.last ?? 0;
      } catch {
        // No watermark is no events per state in the report, never a failed evaluation.
        failed = true;
        return undefined;
      }
    },
    close: () => connection?.close(),
  };
}
