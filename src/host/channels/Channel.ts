import * as Data from "effect/Data";
import type { ChannelReceipt, OutgoingMessage, ToolMessage } from "../../domain/delivery.js";
import type { Locale } from "../../domain/index.js";
import type { MessageSender } from "../../services/tools/builtin/sendMessage.js";

/**
 * The one interface every message channel adapter implements (console, webhook, the in-memory
 * outbox, and whatever a host adds; the SSE handler is not one: it streams the ledger to web UIs).
 * It is Promise-based, not an Effect, so a host can implement it without Effect. Two callers use it:
 *
 * - the router's delivery actors (one per run and channel), for progress and final messages;
 * - the `send_message` tool's DELIVER: `send` resolves with the channel's own id for the
 *   message, which is what a DELIVER receipt needs as evidence (`message_id`). See
 *   `channelMessageSender`, which turns a channel into the tool's `MessageSender`.
 *
 * Contract of `send`:
 * - one attempt: resolve with `{ messageId }` (the channel's real, stable id for the message; never
 *   empty) once the channel has accepted the message, or reject. Retrying is the caller's: the
 *   delivery actor retries per its policy and logs every attempt;
 * - `message.idempotencyKey` (`<runId>:progress:<n>`, `<runId>:final`, or the tool's key for a
 *   `message`) is the same on every attempt at the same
 *   message: an adapter whose transport supports it passes it on (the webhook sends it as the
 *   `Idempotency-Key` header), so a retry after a lost answer does not deliver twice;
 * - `options.signal` aborts the attempt (the actor was stopped); honour it where the transport can;
 * - a rejection's message should be one line without secrets; the router redacts it again anyway,
 *   and it never reaches a user: users only ever see the runtime's templates.
 */
export interface Channel {
  /** Unique among the router's channels: the log's `channel_id`. */
  readonly id: string;
  send(message: OutgoingMessage, options?: SendOptions): Promise<ChannelReceipt>;
}

export interface SendOptions {
  readonly signal?: AbortSignal;
}

export type ChannelSendErrorReason =
  /** The channel answered and refused the message (an HTTP error status, an outbox refusal). */
  | "refused"
  /** No answer: the request itself failed (network, timeout, abort). */
  | "request_failed"
  /** The adapter's `send` rejected with something that is not a ChannelSendError (the router's wrapper). */
  | "send_failed"
  /** The channel accepted the message without naming its id for it. */
  | "no_message_id";

/** A channel refused or failed a message. `message` is one line and safe to log. */
export class ChannelSendError extends Data.TaggedError("ChannelSendError")<{
  readonly reason: ChannelSendErrorReason;
  readonly message: string;
  /** The HTTP status of a refusal, when the transport has one. */
  readonly status?: number;
}> {}

/**
 * The `send_message` tool's view of a channel (its `MessageSender`, src/services/tools/builtin/
 * sendMessage.ts): `sendMessageTool([channelMessageSender(channel)])` delivers through this adapter,
 * and the DELIVER receipt's evidence is the channel's real message id. The tool's idempotency key
 * is `<runId>:<callId>`; the message is a `message` kind with that key, its run id and call id.
 */
export function channelMessageSender(channel: Channel, options: { readonly locale?: Locale } = {}): MessageSender {
  return {
    channelId: channel.id,
    send: ({ text, idempotencyKey }) => {
      const split = idempotencyKey.lastIndexOf(":");
      const message: ToolMessage = {
        kind: "message",
        runId: split > 0 ? idempotencyKey.slice(0, split) : idempotencyKey,
        channelId: channel.id,
        idempotencyKey,
        text,
        locale: options.locale ?? "en",
        callId: split > 0 ? idempotencyKey.slice(split + 1) || idempotencyKey : idempotencyKey,
      };
      return channel.send(message);
    },
  };
}
