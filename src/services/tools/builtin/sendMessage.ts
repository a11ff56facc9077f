import * as Effect from "effect/Effect";
import { z } from "zod";
import { defineTool, type ToolResult } from "../Tool.js";

/** What `send_message` needs from a channel: deliver a text, return the channel's own message id. */
export interface MessageSender {
  readonly channelId: string;
  readonly send: (message: {
    readonly text: string;
    readonly idempotencyKey: string;
  }) => Promise<{ readonly messageId: string }>;
}

/**
 * `send_message`: delivers through a channel adapter; the receipt's evidence is the channel's
 * real message id — the stable external id DELIVER needs. A send that returns no id fails.
 */
export const sendMessageTool = (senders: ReadonlyArray<MessageSender>) =>
  defineTool({
    name: "send_message",
    description: `Send a message to a channel (${senders.map((sender) => sender.channelId).join(", ") || "none configured"}).`,
    kind: "deliver",
    input: z.object({ channel: z.string().optional(), text: z.string().min(1) }),
    execute: ({ channel, text }, context) =>
      Effect.tryPromise({
        try: async (): Promise<ToolResult> => {
          const sender = channel ? senders.find((candidate) => candidate.channelId === channel) : senders[0];
          if (!sender) return { status: "error", output: { error: `no channel named ${channel ?? "(default)"}` } };
          const { messageId } = await sender.send({ text, idempotencyKey: `${context.runId}:${context.callId}` });
          // A blank id is no id: it could not satisfy DELIVER, so it must not look like a delivery.
          if (typeof messageId !== "string" || !messageId.trim()) {
            return { status: "error", output: { error: "the channel returned no message id" } };
          }
          return {
            status: "ok",
            output: { sent: true, channel: sender.channelId, messageId },
            evidence: { message_id: messageId, channel: sender.channelId },
          };
        },
        catch: (error) => error,
      }),
  });
