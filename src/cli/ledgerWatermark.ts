import Sqlite from "better-sqlite3";
import { MEMORY_DB } from "../persistence/database.js";
import { isPostgresUrl } from "../persistence/postgres.js";

/**
 * A run's last durable ledger sequence, read synchronously from a second, read-only connection to
 * a SQLite ledger file (WAL: it sees every committed row). The report's "events written in this
 * state" needs a read inside XState's microstep (see host/charts/pathRecorder.ts), which an Effect
 * over the runtime's own client cannot give. PostgreSQL and in-memory ledgers have none.
 */
export interface LedgerWatermark {
  readonly read: (runId: string) => number | undefined;
  readonly close: () => void;
}

export function sqliteWatermark(db: string): LedgerWatermark | undefined {
  if (db === MEMORY_DB || isPostgresUrl(db)) return undefined;
  let connection: Sqlite.Database | undefined;
  let statement: Sqlite.Statement<[string], { last: number | null }> | undefined;
  let failed = false;
  return {
    read: (runId) => {
      if (failed) return undefined;
      try {
        // Opened on first use: the runtime has created and migrated the file by then.
        connection ??= new Sqlite(db, { readonly: true, fileMustExist: true });
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
