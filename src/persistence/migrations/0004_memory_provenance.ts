import * as Effect from "effect/Effect";
import * as SqlClient from "../sqlClient.js";

/**
 * Memory provenance: forward-only columns on `memory_items`. Existing
 * `source = 'consolidation'` items — assistant assertions promoted by the old consolidator — are
 * kept but marked `legacy_unverified` (lower retrieval priority, never deleted).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  for (const statement of [
    "ALTER TABLE memory_items ADD COLUMN provenance TEXT NOT NULL DEFAULT 'legacy'",
    "ALTER TABLE memory_items ADD COLUMN source_ref TEXT",
    "ALTER TABLE memory_items ADD COLUMN verified_at TEXT",
    "ALTER TABLE memory_items ADD COLUMN expires_at TEXT",
    "ALTER TABLE memory_items ADD COLUMN verification_status TEXT NOT NULL DEFAULT 'legacy_unverified'",
    "ALTER TABLE memory_items ADD COLUMN confidence REAL NOT NULL DEFAULT 0.5",
    "ALTER TABLE memory_items ADD COLUMN kind TEXT NOT NULL DEFAULT 'note'",
    "CREATE INDEX IF NOT EXISTS idx_memory_items_status ON memory_items(scope, verification_status)",
    `UPDATE memory_items SET provenance = 'consolidation', verification_status = 'legacy_unverified', confidence = 0.3
       WHERE source = 'consolidation'`,
  ]) {
    yield* sql.unsafe(statement);
  }
});
