import type * as Migrator from "@effect/sql/Migrator";
import * as Effect from "effect/Effect";
import { loadMigrator } from "../sqlClient.js";
import hostSchema from "./0001_host_schema.js";
import runLedger from "./0002_run_ledger.js";
import channelDeliveries from "./0003_channel_deliveries.js";
import memoryProvenance from "./0004_memory_provenance.js";
import ledgerExactChecks from "./0005_ledger_exact_checks.js";
import runOwners from "./0006_run_owners.js";
import runLeases from "./0007_run_leases.js";
import toolApprovals from "./0008_tool_approvals.js";
import toolStartsAndEvidence from "./0009_tool_starts_and_evidence.js";
import toolProcesses from "./0010_tool_processes.js";
import runInsertOrder from "./0011_run_insert_order.js";
import runQueue from "./0012_run_queue.js";
import wakeUps from "./0013_wake_ups.js";

/**
 * SQLite's forward-only migrations, in order (PostgreSQL's are migrations/pg/index.ts, under the
 * same keys). Keys must match `^(\d+)_(.+)$` or the Migrator skips them.
 */
export const MIGRATIONS = {
  "0001_host_schema": hostSchema,
  "0002_run_ledger": runLedger,
  "0003_channel_deliveries": channelDeliveries,
  "0004_memory_provenance": memoryProvenance,
  "0005_ledger_exact_checks": ledgerExactChecks,
  "0006_run_owners": runOwners,
  "0007_run_leases": runLeases.sqlite,
  "0008_tool_approvals": toolApprovals.sqlite,
  "0009_tool_starts_and_evidence": toolStartsAndEvidence.sqlite,
  "0010_tool_processes": toolProcesses,
  "0011_run_insert_order": runInsertOrder.sqlite,
  "0012_run_queue": runQueue.sqlite,
  "0013_wake_ups": wakeUps.sqlite,
} as const;

export { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE } from "./schemaVersion.js";

export const migrationLoader: Migrator.Loader = Effect.flatMap(loadMigrator, (migrator) =>
  migrator.fromRecord(MIGRATIONS),
);
