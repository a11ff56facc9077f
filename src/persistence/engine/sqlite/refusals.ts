import type { LedgerRefusal } from "../../AgentRunStore.js";

/**
 * SQLite's constraint violations that stand for a ledger refusal: the schema enforces these
 * itself, so the triggers do not repeat them (migration 0005). Matched on SQLite's extended result
 * code and its message, which names the constraint's columns.
 */
const CONSTRAINT_REFUSALS: ReadonlyArray<readonly [code: string, message: RegExp, reason: LedgerRefusal]> = [
  // The only foreign keys are the ledger tables' run_id → agent_runs(run_id).
  ["SQLITE_CONSTRAINT_FOREIGNKEY", /./, "unknown_run"],
  ["SQLITE_CONSTRAINT_PRIMARYKEY", /\bagent_runs\.run_id\b/, "duplicate_run"],
  ["SQLITE_CONSTRAINT_UNIQUE", /\bagent_run_events\.run_id, agent_run_events\.sequence\b/, "duplicate_sequence"],
  // The unique partial index of terminal events: a second terminal event of a run.
  ["SQLITE_CONSTRAINT_UNIQUE", /\bagent_run_events\.run_id$/, "event_after_terminal"],
  [
    "SQLITE_CONSTRAINT_UNIQUE",
    /\bagent_execution_receipts\.run_id, agent_execution_receipts\.call_id\b/,
    "duplicate_receipt",
  ],
  ["SQLITE_CONSTRAINT_PRIMARYKEY", /\bagent_execution_receipts\.receipt_id\b/, "duplicate_receipt"],
];

/**
 * What a SQLite error (`code`, `text`) says about the row: a refusal, a malformed value (a CHECK
 * such as `sequence >= 1` refuses the caller's input, not the disk), or nothing it knows.
 */
export function sqliteRefusal(code: string | undefined, text: string): LedgerRefusal | "invalid_payload" | undefined {
  if (code === "SQLITE_CONSTRAINT_CHECK") return "invalid_payload";
  return CONSTRAINT_REFUSALS.find(([candidate, message]) => code === candidate && message.test(text))?.[2];
}
