import type * as SqlError from "@effect/sql/SqlError";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { JsonValue, MemoryTurn } from "../domain/index.js";
import { LedgerError } from "./AgentRunStore.js";
import { DEFAULT_PAYLOAD_CAP_BYTES, sanitizeText } from "./payloadHygiene.js";
import * as SqlClient from "./sqlClient.js";

/** A visible turn's content is redacted and capped like a ledger payload. */
export const MEMORY_TURN_CAP_BYTES = DEFAULT_PAYLOAD_CAP_BYTES;

/** The source written on visible turns dual-written by agentloop. */
export const AGENTLOOP_TURN_SOURCE = "agentloop";

export interface NewMemoryTurn {
  readonly sessionId: string;
  readonly role: MemoryTurn["role"];
  readonly content: string;
  readonly source: string;
  readonly metadata?: Readonly<Record<string, JsonValue>>;
  readonly createdAt?: string;
}

/** The host's visible conversation history (`memory_turns`), kept working for session lists and search. */
export interface MemoryTurnStoreShape {
  readonly append: (turns: ReadonlyArray<NewMemoryTurn>) => Effect.Effect<void, LedgerError>;
  readonly listSession: (sessionId: string) => Effect.Effect<ReadonlyArray<MemoryTurn>, LedgerError>;
  readonly listSessions: () => Effect.Effect<
    ReadonlyArray<{ sessionId: string; turns: number; lastAt: string }>,
    LedgerError
  >;
}

export class MemoryTurnStore extends Context.Tag("agentloop/MemoryTurnStore")<
  MemoryTurnStore,
  MemoryTurnStoreShape
>() {}

const storageFailure = (context: string) => (error: SqlError.SqlError) =>
  new LedgerError({ reason: "storage_failure", message: `${context}: ${causeText(error)}`, cause: error });

/** SQLite's own message (e.g. `attempt to write a readonly database`), not the driver's wrapper. */
function causeText(error: SqlError.SqlError): string {
  const cause = error.cause as { message?: unknown } | undefined;
  return typeof cause?.message === "string" && cause.message !== "" ? cause.message : error.message;
}

/** The MemoryTurnStore over whatever SqlClient is provided. */
export const make: Effect.Effect<MemoryTurnStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  /** The main database's file, to name it when a write fails (empty for an in-memory database). */
  const databaseFile = sql<{ file: string | null }>`SELECT file FROM pragma_database_list WHERE name = 'main'`.pipe(
    Effect.map((rows) => rows[0]?.file || ":memory:"),
    Effect.orElseSucceed(() => "the database"),
  );
  const writeFailure = (context: string) => (error: SqlError.SqlError) =>
    Effect.flatMap(databaseFile, (file) =>
      Effect.fail(
        new LedgerError({
          reason: "storage_failure",
          message: `${context}: cannot write ${file}: ${causeText(error)}`,
          cause: error,
        }),
      ),
    );
  return MemoryTurnStore.of({
    append: (turns) =>
      turns.length === 0
        ? Effect.void
        : sql
            .withTransaction(
              sql`INSERT INTO memory_turns ${sql.insert(
                turns.map((turn) => ({
                  session_id: turn.sessionId,
                  role: turn.role,
                  content: sanitizeText(turn.content, MEMORY_TURN_CAP_BYTES),
                  source: turn.source,
                  metadata: JSON.stringify(turn.metadata ?? {}),
                  created_at: turn.createdAt ?? new Date().toISOString(),
                })),
              )}`,
            )
            .pipe(Effect.asVoid, Effect.catchAll(writeFailure("MemoryTurnStore.append"))),
    listSession: (sessionId) =>
      sql<{
        id: number;
        session_id: string;
        role: MemoryTurn["role"];
        content: string;
        source: string;
        metadata: string;
        created_at: string;
      }>`
        SELECT * FROM memory_turns WHERE session_id = ${sessionId} ORDER BY created_at, id`.pipe(
        Effect.map((rows) =>
          rows.map(
            (row): MemoryTurn => ({
              id: row.id,
              sessionId: row.session_id,
              role: row.role,
              content: row.content,
              source: row.source,
              metadata: safeJson(row.metadata),
              createdAt: row.created_at,
            }),
          ),
        ),
        Effect.mapError(storageFailure("MemoryTurnStore.listSession")),
      ),
    listSessions: () =>
      sql<{ session_id: string; turns: number; last_at: string }>`
        SELECT session_id, COUNT(*) AS turns, MAX(created_at) AS last_at FROM memory_turns
        GROUP BY session_id ORDER BY last_at DESC`.pipe(
        Effect.map((rows) => rows.map((row) => ({ sessionId: row.session_id, turns: row.turns, lastAt: row.last_at }))),
        Effect.mapError(storageFailure("MemoryTurnStore.listSessions")),
      ),
  });
});

export const layer: Layer.Layer<MemoryTurnStore, never, SqlClient.SqlClient> = Layer.effect(MemoryTurnStore, make);

function safeJson(text: string): Record<string, JsonValue> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, JsonValue>) : {};
  } catch {
    return {};
  }
}
