#!/usr/bin/env node
/**
 * `node scripts/ledgerDigest.mjs LEDGER.db`: the ledger's rows with everything that differs from
 * run to run masked (ids, times, durations), as JSON — two ledgers written by the same cassettes
 * compare equal exactly when every run ended the same way with the same rows and receipts.
 * test/host/eval/ledgerDigest.test.ts holds the built-in suite to a committed digest; after a change
 * that is meant to change ledger rows, regenerate it with `npm run digest:update`.
 */
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";

const VOLATILE_KEY =
  /(^|_)(at|ms)$|At$|^(runId|traceId|receiptId|run_id|trace_id|receipt_id|duration_ms|startedAt|finishedAt)$/;
const RUN_ID = /run_[0-9a-f-]{36}/g;
const TRACE = /\b[0-9a-f]{32}\b/g;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const EVAL_INVOCATION = /^eval:[^:]+:/;
/** The outbox channel numbers its messages per process; hashes of outputs that carry them follow. */
const OUTBOX_ID = /outbox-[0-9a-f]{8}-/g;
const HASH_KEY = /^(outputHash|output_sha256)$/;
/** How run_command tracked its processes depends on the host (a cgroup where allowed, else a marker). */
const HOST_KEY = /^process_tracking$/;

function mask(value) {
  if (typeof value === "string") {
    return value
      .replace(RUN_ID, "<run>")
      .replace(TRACE, "<trace>")
      .replace(ISO, "<time>")
      .replace(OUTBOX_ID, "outbox-<id>-");
  }
  if (Array.isArray(value)) return value.map(mask);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [
          key,
          VOLATILE_KEY.test(key) || HASH_KEY.test(key) || HOST_KEY.test(key) ? "<masked>" : mask(inner),
        ]),
    );
  }
  return value;
}

export function ledgerDigest(file) {
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  const runs = db
    .prepare(
      "SELECT run_id, session_id, terminal_state, failure_code, failure_detail, completion_contract_json AS contract_json FROM agent_runs ORDER BY started_at, rowid",
    )
    .all();
  const events = db.prepare(
    "SELECT sequence, event_type, payload_json FROM agent_run_events WHERE run_id = ? ORDER BY sequence",
  );
  const receipts = db.prepare(
    "SELECT call_id, tool_name, status, verification_status, input_fingerprint, evidence_json FROM agent_execution_receipts WHERE run_id = ? ORDER BY call_id",
  );
  const digest = runs.map((run) => ({
    session: run.session_id.replace(EVAL_INVOCATION, "eval:"),
    terminal: [run.terminal_state, run.failure_code, mask(run.failure_detail)],
    contract: mask(JSON.parse(run.contract_json)),
    events: events.all(run.run_id).map((row) => [row.sequence, row.event_type, mask(JSON.parse(row.payload_json))]),
    receipts: receipts
      .all(run.run_id)
      .map((row) => [
        row.call_id,
        row.tool_name,
        row.status,
        row.verification_status,
        row.input_fingerprint,
        mask(JSON.parse(row.evidence_json)),
      ]),
  }));
  // Runs of one session keep no order the digest can rely on (turns that start in the same
  // millisecond); within a session they are ordered by their rows.
  const keyed = digest.map((entry) => [entry.session, JSON.stringify(entry), entry]);
  keyed.sort(([a, aText], [b, bText]) => a.localeCompare(b) || aText.localeCompare(bText));
  digest.splice(0, digest.length, ...keyed.map(([, , entry]) => entry));
  db.close();
  return digest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write("usage: node scripts/ledgerDigest.mjs LEDGER.db\n");
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(ledgerDigest(file), null, 1)}\n`);
}
