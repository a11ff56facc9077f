import { Migrator } from "@effect/sql";
import { Effect } from "effect";
import memoryProvenance from "../0004_memory_provenance.js";
import runOwners from "../0006_run_owners.js";
import runLeases from "../0007_run_leases.js";
import toolApprovals from "../0008_tool_approvals.js";
import toolStartsAndEvidence from "../0009_tool_starts_and_evidence.js";
import toolProcesses from "../0010_tool_processes.js";
import { MIGRATIONS } from "../index.js";
import hostSchema from "./0001_host_schema.js";
import runLedger from "./0002_run_ledger.js";
import channelDeliveries from "./0003_channel_deliveries.js";

/**
 * PostgreSQL's migrations: the same ids and names as SQLite's, so one schema version
 * means the same tables in both engines. Where the SQL is portable (0004 and 0006 to 0010 pick its
 * dialect itself) the migration is shared; 0005 only rewrote SQLite triggers that PostgreSQL's
 * 0002 already has in their final form.
 */
export const PG_MIGRATIONS = {
  "0001_host_schema": hostSchema,
  "0002_run_ledger": runLedger,
  "0003_channel_deliveries": channelDeliveries,
  "0004_memory_provenance": memoryProvenance,
  "0005_ledger_exact_checks": Effect.void,
  "0006_run_owners": runOwners,
  "0007_run_leases": runLeases,
  "0008_tool_approvals": toolApprovals,
  "0009_tool_starts_and_evidence": toolStartsAndEvidence,
  "0010_tool_processes": toolProcesses,
} as const;

if (Object.keys(PG_MIGRATIONS).join() !== Object.keys(MIGRATIONS).join()) {
  throw new Error("the PostgreSQL migrations must reach the same schema version as SQLite's");
}

export const pgMigrationLoader = Migrator.fromRecord(PG_MIGRATIONS);
