import type { ChannelReceipt, OutgoingMessage } from "../../domain/delivery.js";
import { type Channel, ChannelSendError } from "./Channel.js";

export interface OutboxEntry {
  readonly message: OutgoingMessage;
  readonly messageId: string;
}

export interface OutboxChannel extends Channel {
  /** Messages the outbox accepted, in order. */
  readonly sent: ReadonlyArray<OutboxEntry>;
  /** Every call of `send`, accepted or not, with its attempt number per idempotency key. */
  readonly attempts: ReadonlyArray<{ readonly idempotencyKey: string; readonly attempt: number; readonly ok: boolean }>;
}

export interface OutboxOptions {
  readonly id?: string;
  /**
   * Scripted failures: return a reason to refuse this attempt (1-based per idempotency key), or
   * undefined to accept it.
   */
  readonly fail?: (message: OutgoingMessage, attempt: number) => string | undefined;
}

/** An in-memory channel for tests and embedding hosts that drain messages themselves. */
export function outboxChannel(options: OutboxOptions = {}): OutboxChannel {
  const id = options.id ?? "outbox";
  const sent: OutboxEntry[] = [];
  const attempts: Array<{ idempotencyKey: string; attempt: number; ok: boolean }> = [];
  return {
    id,
    sent,
    attempts,
    send: async (message): Promise<ChannelReceipt> => {
      const attempt = attempts.filter((entry) => entry.idempotencyKey === message.idempotencyKey).length + 1;
      const refusal = options.fail?.(message, attempt);
      attempts.push({ idempotencyKey: message.idempotencyKey, attempt, ok: refusal === undefined });
      if (refusal !== undefined) throw new ChannelSendError({ reason: "refused", message: `${id}: ${refusal}` });
      const messageId = `${id}-${sent.length + 1}`;
      sent.push({ message, messageId });
      return { messageId };
    },
  };
}
