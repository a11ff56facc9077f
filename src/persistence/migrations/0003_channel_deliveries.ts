import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * The channel delivery log: one row per attempt to send one message of a run to
 * one channel. Kept apart from `agent_run_events`, which refuses rows after the terminal: a final is
 * delivered after it, and a delivery failure never changes the run. Append-only, like the ledger;
 * a message is `sent` at most once per channel (its idempotency key is unique among sent rows).
 */
export const DELIVERY_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_channel_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('progress', 'final', 'message')),
    status TEXT NOT NULL CHECK (status IN ('sent', 'failed', 'dropped')),
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    message_id TEXT,
    error TEXT,
    idempotency_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    CHECK ((status = 'sent') = (message_id IS NOT NULL)),
    CHECK ((status = 'sent') = (error IS NULL))
  )`,
  "CREATE INDEX idx_agent_channel_deliveries_run ON agent_channel_deliveries(run_id, channel_id, id)",
  `CREATE UNIQUE INDEX idx_agent_channel_deliveries_sent_once ON agent_channel_deliveries(channel_id, idempotency_key)
    WHERE status = 'sent'`,
  `CREATE TRIGGER agent_channel_deliveries_no_update BEFORE UPDATE ON agent_channel_deliveries
  BEGIN SELECT RAISE(ABORT, 'delivery_log:append_only'); END`,
  `CREATE TRIGGER agent_channel_deliveries_no_delete BEFORE DELETE ON agent_channel_deliveries
  BEGIN SELECT RAISE(ABORT, 'delivery_log:append_only'); END`,
];

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of DELIVERY_DDL) yield* sql.unsafe(statement);
});
