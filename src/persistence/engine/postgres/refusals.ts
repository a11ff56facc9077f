import type { LedgerRefusal } from "../../AgentRunStore.js";

/** PostgreSQL's constraint violations (SQLSTATE 23503 / 23505) that stand for a ledger refusal, by the constraint's name. */
const CONSTRAINT_REFUSALS: ReadonlyArray<readonly [code: string, constraint: RegExp, reason: LedgerRefusal]> = [
  ["23503", /^agent_(run_events|execution_receipts|run_owners)_run_id_fkey$|^run_leases_run_id_fkey$/, "unknown_run"],
  ["23505", /^agent_runs_pkey$/, "duplicate_run"],
  ["23505", /^agent_run_events_run_id_sequence_key$/, "duplicate_sequence"],
  ["23505", /^idx_agent_run_events_terminal$/, "event_after_terminal"],
  ["23505", /^agent_execution_receipts_(run_id_call_id_key|pkey)$/, "duplicate_receipt"],
];

/** PostgreSQL refusing a malformed value: a CHECK, text that is not JSON, an out-of-range number. */
const INVALID_INPUT = new Set(["23514", "22P02", "22003", "23502"]);

/** What a PostgreSQL error (SQLSTATE `code`, `constraint` name) says about the row, or nothing it knows. */
export function postgresRefusal(
  code: string | undefined,
  constraint: string | undefined,
): LedgerRefusal | "invalid_payload" | undefined {
  if (code !== undefined && INVALID_INPUT.has(code)) return "invalid_payload";
  return CONSTRAINT_REFUSALS.find(([candidate, name]) => code === candidate && name.test(constraint ?? ""))?.[2];
}
