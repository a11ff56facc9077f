import { z } from "zod";
import { ReceiptStatus } from "./receipt.js";
import { ReasonCode, TerminalState } from "./terminal.js";
import { Locale } from "./terminalMessages.js";

/**
 * Channel delivery: what a run's delivery actor sends to one channel.
 * Channels get only the final by default; progress is never phrased or flagged as the answer.
 */

/** `final_only` (default): nothing before the terminal state. `progress_updates`: commentary and tool status in
 * the in-progress style. `silent_tool_status`: tool status only, no commentary. */
export const DeliveryPolicy = z.enum(["final_only", "progress_updates", "silent_tool_status"]);
export type DeliveryPolicy = z.infer<typeof DeliveryPolicy>;
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = "final_only";

/** The LoopEvents a channel may show while the run is still going. */
export const ProgressSource = z.enum(["commentary", "tool_started", "tool_result"]);
export type ProgressSource = z.infer<typeof ProgressSource>;

/**
 * `progress`: an in-progress update (never the answer). `final`: the one message of a finished run.
 * `message`: a message a tool sends on the run's behalf (the `send_message` tool's DELIVER).
 */
export const MessageKind = z.enum(["progress", "final", "message"]);
export type MessageKind = z.infer<typeof MessageKind>;

const MessageBase = {
  runId: z.string().min(1),
  channelId: z.string().min(1),
  /** `<runId>:<kind>[:<n>]`: the same message always carries the same key, whatever the attempt. */
  idempotencyKey: z.string().min(1),
  text: z.string(),
  locale: z.enum(Locale),
};

export const ProgressMessage = z.strictObject({
  kind: z.literal("progress"),
  ...MessageBase,
  /** 1-based position among this run's progress messages on this channel. */
  index: z.number().int().positive(),
  source: ProgressSource,
  step: z.number().int().nonnegative(),
  toolName: z.string().optional(),
  status: ReceiptStatus.optional(),
});
export type ProgressMessage = z.infer<typeof ProgressMessage>;

export const FinalMessage = z.strictObject({
  kind: z.literal("final"),
  ...MessageBase,
  terminalState: TerminalState,
  reason: ReasonCode,
  /** The admin reference the text ends with when the run did not complete. */
  traceId: z.string(),
});
export type FinalMessage = z.infer<typeof FinalMessage>;

export const ToolMessage = z.strictObject({
  kind: z.literal("message"),
  ...MessageBase,
  /** The tool call that sends it (the `send_message` tool's key is `<runId>:<callId>`). */
  callId: z.string().min(1),
});
export type ToolMessage = z.infer<typeof ToolMessage>;

/** What a channel adapter's `send` receives; its JSON is the webhook body. */
export const OutgoingMessage = z.discriminatedUnion("kind", [ProgressMessage, FinalMessage, ToolMessage]);
export type OutgoingMessage = z.infer<typeof OutgoingMessage>;

export const idempotencyKey = (runId: string, kind: MessageKind, n?: number | string): string =>
  n === undefined ? `${runId}:${kind}` : `${runId}:${kind}:${n}`;

/** What a channel answers for a message it accepted: its own id for it (a DELIVER receipt's evidence). */
export const ChannelReceipt = z.strictObject({ messageId: z.string().min(1) });
export type ChannelReceipt = z.infer<typeof ChannelReceipt>;

/** One row of `agent_channel_deliveries`: the outcome of one attempt to send one message. */
export const DeliveryStatus = z.enum(["sent", "failed", "dropped"]);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const DeliveryAttempt = z.strictObject({
  runId: z.string().min(1),
  channelId: z.string().min(1),
  kind: MessageKind,
  idempotencyKey: z.string().min(1),
  /** `failed`: this attempt failed (another may follow, or the final is undeliverable); `dropped`: the last
   * attempt of a progress message failed and it is given up. */
  status: DeliveryStatus,
  attempt: z.number().int().positive(),
  messageId: z.string().nullable(),
  /** One line, never a stack; redacted before it is stored. */
  error: z.string().nullable(),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const DeliveredMessage = z.strictObject({
  message: OutgoingMessage,
  messageId: z.string().min(1),
  attempts: z.number().int().positive(),
});
export type DeliveredMessage = z.infer<typeof DeliveredMessage>;

export const FailedDelivery = z.strictObject({
  message: OutgoingMessage,
  attempts: z.number().int().positive(),
  error: z.string(),
  /** A progress message is dropped; a final that cannot be sent leaves the delivery undeliverable. */
  outcome: z.enum(["dropped", "undeliverable"]),
});
export type FailedDelivery = z.infer<typeof FailedDelivery>;

/** What a delivery actor ends with. A send failure never changes the run's terminal state. */
export const DeliveryOutput = z.strictObject({
  runId: z.string(),
  channelId: z.string(),
  delivered: z.array(DeliveredMessage),
  failed: z.array(FailedDelivery),
  /** Progress the policy kept from the channel (agent_channel_progress_suppressed_total). */
  suppressed: z.number().int().nonnegative(),
  final: z.enum(["delivered", "undeliverable"]),
});
export type DeliveryOutput = z.infer<typeof DeliveryOutput>;
