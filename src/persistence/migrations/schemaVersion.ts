/**
 * The schema version this agentloop writes and the Migrator's table, apart from the migrations
 * themselves: what inspects a database before connecting needs these two, and the migrations load
 * only when a ledger is migrated (a test checks the version is the last migration's).
 */
export const LATEST_SCHEMA_VERSION = 13;
export const MIGRATIONS_TABLE = "effect_sql_migrations";
