import { Effect } from "effect";
import { z } from "zod";
import { type ChannelReceipt, idempotencyKey, type OutgoingMessage, type ToolMessage } from "../../domain/delivery.js";
import type { Locale } from "../../domain/index.js";
import type { ToolDefinition } from "../tools/Tool.js";

/**
 * The one interface every channel adapter implements (console, SSE-less message channels, webhook,
 * the in-memory outbox, and whatever a host adds). Two callers use it:
 *
 * - the router's delivery actors (one per run and channel), for progress and final messages;
 * - the `send_message` tool's DELIVER (issue H): `send` resolves with the channel's own id for the
 *   message, which is what a DELIVER receipt needs as evidence (`message_id`). See `channelSendTool`.
 *
 * Contract of `send`:
 * - one attempt: resolve with `{ messageId }` (the channel's real, stable id for the message; never
 *   empty) once the channel has accepted the message, or reject. Retrying is the caller's: the
 *   delivery actor retries per its policy and logs every attempt;
 * - `message.idempotencyKey` (`<runId>:<kind>[:<n>]`) is the same on every attempt at the same
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

/** A channel refused or failed a message. `message` is one line and safe to log. */
export class ChannelSendError extends Error {
  override readonly name = "ChannelSendError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const SendMessageArgs = z.strictObject({
  text: z.string().min(1).describe("The message to send, as the user sees it."),
});

/**
 * A DELIVER tool that sends its `text` to `channel` as a `message` (idempotency key
 * `<runId>:message:<callId>`) and reports the channel's message id as evidence (`message_id`), so a
 * deliver contract is satisfied only by a message the channel accepted. A minimal building block for
 * the `send_message` tool; a failed send is an `error` result (the run's verifier sees no message id).
 */
export function channelSendTool(
  channel: Channel,
  options: { readonly name?: string; readonly description?: string; readonly locale?: Locale } = {},
): ToolDefinition<z.infer<typeof SendMessageArgs>> {
  return {
    name: options.name ?? "send_message",
    description: options.description ?? `Send a message to the user on the ${channel.id} channel.`,
    kind: "deliver",
    input: SendMessageArgs,
    execute: (args, context) => {
      const message: ToolMessage = {
        kind: "message",
        runId: context.runId,
        channelId: channel.id,
        idempotencyKey: idempotencyKey(context.runId, "message", context.callId),
        text: args.text,
        locale: options.locale ?? "en",
        callId: context.callId,
      };
      return Effect.tryPromise({
        try: () => channel.send(message, { signal: context.signal }),
        catch: (error) => error,
      }).pipe(
        Effect.map((receipt) => ({
          status: "ok" as const,
          output: { channelId: channel.id, messageId: receipt.messageId },
          evidence: { message_id: receipt.messageId, channel_id: channel.id },
        })),
      );
    },
  };
}
