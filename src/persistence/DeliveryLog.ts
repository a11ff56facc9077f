import type * as SqlError from "@effect/sql/SqlError";
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { type DeliveryAttempt, DeliveryStatus, MessageKind } from "../domain/delivery.js";
import { redactText } from "./payloadHygiene.js";
import * as SqlClient from "./sqlClient.js";

/**
 * The channel delivery log (`agent_channel_deliveries`, migration 0003): every attempt to send a
 * run's message to a channel, `sent`, `failed` or `dropped`. Not part of the run ledger: it is
 * written after the terminal too, and nothing in it changes a run's terminal state.
 */

export class DeliveryLogError extends Data.TaggedError("DeliveryLogError")<{
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** A stored row. */
export interface DeliveryLogRow extends DeliveryAttempt {
  readonly id: number;
  readonly createdAt: string;
}

export interface DeliveryLogShape {
  /** Appends one attempt; its error is cut to one line and redacted first. */
  readonly record: (attempt: DeliveryAttempt) => Effect.Effect<void, DeliveryLogError>;
  /** A run's attempts in the order they were recorded (all channels, or one). */
  readonly listRunDeliveries: (
    runId: string,
    channelId?: string,
  ) => Effect.Effect<ReadonlyArray<DeliveryLogRow>, DeliveryLogError>;
}

export class DeliveryLog extends Context.Tag("agentloop/DeliveryLog")<DeliveryLog, DeliveryLogShape>() {}

const MAX_ERROR_CHARS = 500;

/** One line, redacted, bounded: what the `error` column holds. */
export function logErrorText(error: string): string {
  const line = (error.split(/\r?\n/)[0] ?? "").trim();
  return redactText(line).slice(0, MAX_ERROR_CHARS);
}

interface Row {
  id: number;
  run_id: string;
  channel_id: string;
  kind: string;
  status: string;
  attempt: number;
  message_id: string | null;
  error: string | null;
  idempotency_key: string;
  created_at: string;
}

const toRow = (row: Row): DeliveryLogRow => ({
  id: row.id,
  runId: row.run_id,
  channelId: row.channel_id,
  kind: MessageKind.parse(row.kind),
  idempotencyKey: row.idempotency_key,
  status: DeliveryStatus.parse(row.status),
  attempt: row.attempt,
  messageId: row.message_id,
  error: row.error,
  createdAt: row.created_at,
});

const failWith = (context: string) => (error: SqlError.SqlError) =>
  new DeliveryLogError({
    message: `${context}: ${(error.cause as { message?: string } | undefined)?.message ?? error.message}`,
    cause: error,
  });

/** The log over whatever SqlClient is provided (the runtime's: `runtime.run(...)` provides one). */
export const make = (
  options: { readonly now?: () => string } = {},
): Effect.Effect<DeliveryLogShape, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const now = options.now ?? (() => new Date().toISOString());

    const record: DeliveryLogShape["record"] = (attempt) =>
      sql`INSERT INTO agent_channel_deliveries ${sql.insert({
        run_id: attempt.runId,
        channel_id: attempt.channelId,
        kind: attempt.kind,
        status: attempt.status,
        attempt: attempt.attempt,
        message_id: attempt.status === "sent" ? attempt.messageId : null,
        error: attempt.status === "sent" ? null : logErrorText(attempt.error ?? "send failed") || "send failed",
        idempotency_key: attempt.idempotencyKey,
        created_at: now(),
      })}`.pipe(
        Effect.asVoid,
        Effect.mapError(failWith(`record ${attempt.runId}/${attempt.channelId}/${attempt.idempotencyKey}`)),
        Effect.withSpan("DeliveryLog.record"),
      );

    const listRunDeliveries: DeliveryLogShape["listRunDeliveries"] = (runId, channelId) =>
      (channelId === undefined
        ? sql<Row>`SELECT * FROM agent_channel_deliveries WHERE run_id = ${runId} ORDER BY id`
        : sql<Row>`SELECT * FROM agent_channel_deliveries WHERE run_id = ${runId} AND channel_id = ${channelId}
            ORDER BY id`
      ).pipe(
        Effect.map((rows) => rows.map(toRow)),
        Effect.mapError(failWith(`listRunDeliveries ${runId}`)),
      );

    return DeliveryLog.of({ record, listRunDeliveries });
  });
