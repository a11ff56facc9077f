import * as Effect from "effect/Effect";
import type { LedgerError } from "./AgentRunStore.js";
import { Dialect } from "./engine/Dialect.js";
import { toLedgerError } from "./ledgerWriter.js";
import * as SqlClient from "./sqlClient.js";

/**
 * Whether the database finds a run's receipts meeting its stored contract — the very check its
 * triggers apply to a `completed` terminal (migration 0009). Inspection and the tests that hold
 * the database to the runtime's verifier read it here; undefined for an unknown run.
 */
export const runEvidenceMet = (
  runId: string,
): Effect.Effect<boolean | undefined, LedgerError, SqlClient.SqlClient | Dialect> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const dialect = yield* Dialect;
    const rows = yield* sql<{
      met: boolean | number;
    }>`SELECT ${dialect.evidenceMet} AS met FROM agent_runs r WHERE r.run_id = ${runId}`;
    const met = rows[0]?.met;
    return met === undefined ? undefined : met === true || Number(met) === 1;
  }).pipe(Effect.mapError((error) => toLedgerError(error, `runEvidenceMet ${runId}`)));
