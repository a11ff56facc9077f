import * as Effect from "effect/Effect";
import * as SqlClient from "../../sqlClient.js";

/** PostgreSQL: the channel delivery log (SQLite migration 0003), append-only by trigger. */
export const PG_DELIVERY_DDL: ReadonlyArray<string> = [
  `CREATE TABLE agent_channel_deliveries (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
  `CREATE FUNCTION agentloop_delivery_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'delivery_log:append_only';
  END $$`,
  `CREATE TRIGGER agent_channel_deliveries_append_only BEFORE UPDATE OR DELETE ON agent_channel_deliveries
    FOR EACH ROW EXECUTE FUNCTION agentloop_delivery_append_only()`,
];

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of PG_DELIVERY_DDL) yield* sql.unsafe(statement);
});
