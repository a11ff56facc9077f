import type * as Migrator from "@effect/sql/Migrator";
import * as Effect from "effect/Effect";
import { loadMigrator } from "../../sqlClient.js";
import memoryProvenance from "../0004_memory_provenance.js";
import runOwners from "../0006_run_owners.js";
import runLeases from "../0007_run_leases.js";
import toolApprovals from "../0008_tool_approvals.js";
import toolStartsAndEvidence from "../0009_tool_starts_and_evidence.js";
import toolProcesses from "../0010_tool_processes.js";
import runInsertOrder from "../0011_run_insert_order.js";
import runQueue from "../0012_run_queue.js";
import wakeUps from "../0013_wake_ups.js";
import { MIGRATIONS } from "../index.js";
import hostSchema from "./0001_host_schema.js";
import runLedger from "./0002_run_ledger.js";
import channelDeliveries from "./0003_channel_deliveries.js";

/**
 * PostgreSQL's migrations: the same ids and names as SQLite's, so one schema version means the
 * same tables in both engines. Where the SQL is portable (0004, 0006, 0010) the migration is
 * shared; 0007 to 0009 hold each engine's statements side by side; 0005 only rewrote SQLite
 * triggers that PostgreSQL's 0002 already has in their final form; 0011 names the column of the
 * runs' insertion order, which SQLite has as its rowid.
 */
export const PG_MIGRATIONS = {
  "0001_host_schema": hostSchema,
  "0002_run_ledger": runLedger,
  "0003_channel_deliveries": channelDeliveries,
  "0004_memory_provenance": memoryProvenance,
  "0005_ledger_exact_checks": Effect.void,
  "0006_run_owners": runOwners,
  "0007_run_leases": runLeases.pg,
  "0008_tool_approvals": toolApprovals.pg,
  "0009_tool_starts_and_evidence": toolStartsAndEvidence.pg,
  "0010_tool_processes": toolProcesses,
  "0011_run_insert_order": runInsertOrder.pg,
  "0012_run_queue": runQueue.pg,
  "0013_wake_ups": wakeUps.pg,
} as const;

if (Object.keys(PG_MIGRATIONS).join() !== Object.keys(MIGRATIONS).join()) {
  throw new Error("the PostgreSQL migrations must reach the same schema version as SQLite's");
}

export const pgMigrationLoader: Migrator.Loader = Effect.flatMap(loadMigrator, (migrator) =>
  migrator.fromRecord(PG_MIGRATIONS),
);
