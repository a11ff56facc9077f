import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * The host schema that existed before agentloop: visible turns and memory items. Written with
 * IF NOT EXISTS so a host database that already has it (but no migration record) is adopted
 * without touching its rows.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  yield* sql`CREATE TABLE IF NOT EXISTS memory_turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'chat',
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
  )`;
  yield* sql`CREATE INDEX IF NOT EXISTS idx_memory_turns_session ON memory_turns(session_id, created_at)`;
  yield* sql`CREATE TABLE IF NOT EXISTS memory_items (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    content TEXT NOT NULL,
    source TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT
  )`;
  yield* sql`CREATE INDEX IF NOT EXISTS idx_memory_items_scope ON memory_items(scope)`;
});
