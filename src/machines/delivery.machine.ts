import { assign, enqueueActions, fromPromise, setup } from "xstate";
import {
  type ChannelReceipt,
  type DeliveredMessage,
  type DeliveryAttempt,
  type DeliveryOutput,
  type DeliveryPolicy,
  type FailedDelivery,
  type FinalMessage,
  idempotencyKey,
  type OutgoingMessage,
  type ProgressMessage,
  type ProgressSource,
} from "../domain/delivery.js";
import { finalMessage, type Locale, type LoopEvent, type ProgressInput, progressMessage } from "../domain/index.js";

/**
 * The delivery policy of one run on one channel. The router spawns one
 * actor per (run, channel) and forwards the run's LoopEvents to it unchanged: they are this
 * machine's events. Pure: the one effect, sending a message, is the invoked `sendMessage` actor the
 * router provides; attempts are reported to the host as emitted `delivery_attempt` events (the
 * router writes them to the delivery log).
 *
 * - Nothing phrased or flagged as the answer reaches the channel before the run's `done`: progress
 *   is sent only under `progress_updates` (commentary and tool status) or `silent_tool_status`
 *   (tool status only), always as kind `progress` with the localised in-progress marker; under
 *   `final_only` it is suppressed and counted. Commentary that claims an action ("All done, I sent
 *   the report") is never forwarded before the run's receipts are judged: the router runs the claim
 *   detector on it and hands the machine the neutral `WORKING_ON_IT` line of the channel's locale
 *   instead.
 * - The `final` event's text is kept; the one final message is built when `done` arrives, rendered
 *   with the channel's locale (`done` carries state only, never the text again).
 * - Messages go out one at a time, in order. A failed send is retried after the named `retryDelay`
 *   up to `maxAttempts`; a progress message that still fails is dropped, a final that still fails
 *   ends the actor `undeliverable`. Nothing here can change the run's terminal state.
 */

export interface DeliveryInput {
  readonly runId: string;
  readonly traceId: string;
  readonly channelId: string;
  readonly policy: DeliveryPolicy;
  readonly locale: Locale;
  /** Attempts per message, the first included (at least 1). */
  readonly maxAttempts: number;
  /** The wait before the second attempt; it doubles for each further attempt. */
  readonly retryDelayMs: number;
}

/** What the `sendMessage` actor gets: the message and which attempt this is (1-based). */
export interface SendMessageInput {
  readonly message: OutgoingMessage;
  readonly attempt: number;
}

/** The run's LoopEvents, forwarded as they are. */
export type DeliveryEvent = LoopEvent;

/** Emitted for every attempt's outcome; the router records it in `agent_channel_deliveries`. */
export interface DeliveryAttemptEvent {
  readonly type: "delivery_attempt";
  readonly record: DeliveryAttempt;
}

type ProgressEvent = Extract<LoopEvent, { type: ProgressSource }>;
type FinalEvent = Extract<LoopEvent, { type: "final" }>;
type DoneEvent = Extract<LoopEvent, { type: "done" }>;

interface DeliveryContext extends DeliveryInput {
  /** Messages not yet settled, in order; the head is the one being sent. */
  readonly queue: ReadonlyArray<OutgoingMessage>;
  /** Which attempt at the head is next or in flight. */
  readonly attempt: number;
  /** Progress messages queued so far (their 1-based index). */
  readonly progressCount: number;
  /** Progress the policy kept from the channel. */
  readonly suppressed: number;
  /** The run's `final` event, kept until `done`. */
  readonly kept: { readonly text: string; readonly answer?: string } | null;
  /** `done` arrived: the final is queued, nothing the run sends after it counts. */
  readonly ended: boolean;
  readonly delivered: ReadonlyArray<DeliveredMessage>;
  readonly failed: ReadonlyArray<FailedDelivery>;
  readonly outcome: DeliveryOutput["final"] | null;
}

/** Which progress each policy lets through. */
export const POLICY_SHOWS: Readonly<Record<DeliveryPolicy, ReadonlySet<ProgressSource>>> = {
  final_only: new Set(),
  progress_updates: new Set(["commentary", "tool_started", "tool_result"]),
  silent_tool_status: new Set(["tool_started", "tool_result"]),
};

/** One line of an error for the log and the output: never a stack, never more than 300 characters. */
export function errorLine(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message || error.name;
  else if (typeof error === "string") text = error;
  else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  const line = (text.split(/\r?\n/)[0] ?? "").trim();
  return (line.length > 0 ? line : "send failed").slice(0, 300);
}

/** What a channel shows, in place of commentary that claims an action, while the run is still going. */
export const WORKING_ON_IT: Readonly<Record<Locale, string>> = {
  en: "Working on it…",
  zh: "正在处理…",
};

function progressOf(context: DeliveryContext, event: ProgressEvent): ProgressMessage {
  const index = context.progressCount + 1;
  const input: ProgressInput =
    event.type === "commentary"
      ? { source: "commentary", text: event.text }
      : event.type === "tool_started"
        ? { source: "tool_started", toolName: event.toolName }
        : { source: "tool_result", toolName: event.toolName, status: event.status };
  return {
    kind: "progress",
    runId: context.runId,
    channelId: context.channelId,
    idempotencyKey: idempotencyKey(context.runId, "progress", index),
    text: progressMessage(input, context.locale),
    locale: context.locale,
    index,
    source: event.type,
    step: event.step,
    ...(event.type === "commentary" ? {} : { toolName: event.toolName }),
    ...(event.type === "tool_result" ? { status: event.status } : {}),
  };
}

/**
 * The one final message: for `completed` the answer; otherwise the runtime template of the state
 * in the channel's locale, the model's text only as marked context, and `ref: <trace id>`.
 */
function finalOf(context: DeliveryContext, event: DoneEvent): FinalMessage {
  const kept = context.kept;
  const modelText = event.terminalState === "completed" ? (kept?.answer ?? kept?.text ?? "") : (kept?.answer ?? "");
  const traceId = event.traceId || context.traceId;
  return {
    kind: "final",
    runId: context.runId,
    channelId: context.channelId,
    idempotencyKey: idempotencyKey(context.runId, "final"),
    text: finalMessage({
      terminalState: event.terminalState,
      reason: event.reason,
      modelText,
      traceId,
      locale: context.locale,
    }),
    locale: context.locale,
    terminalState: event.terminalState,
    reason: event.reason,
    traceId,
  };
}

function attemptRecord(
  context: DeliveryContext,
  status: DeliveryAttempt["status"],
  outcome: { messageId?: string; error?: string },
): DeliveryAttempt {
  const head = context.queue[0]!;
  return {
    runId: context.runId,
    channelId: context.channelId,
    kind: head.kind,
    idempotencyKey: head.idempotencyKey,
    status,
    attempt: context.attempt,
    messageId: outcome.messageId ?? null,
    error: outcome.error ?? null,
  };
}

export const deliveryMachine = setup({
  types: {
    context: {} as DeliveryContext,
    input: {} as DeliveryInput,
    events: {} as DeliveryEvent,
    emitted: {} as DeliveryAttemptEvent,
    output: {} as DeliveryOutput,
  },
  actors: {
    sendMessage: fromPromise<ChannelReceipt, SendMessageInput>(async () => {
      throw new Error("sendMessage must be provided by the router");
    }),
  },
  guards: {
    runOpen: ({ context }) => !context.ended,
    shows: ({ context }, params: { source: ProgressSource }) =>
      !context.ended && POLICY_SHOWS[context.policy].has(params.source),
    headIsFinal: ({ context }) => context.queue[0]?.kind === "final",
    moreQueued: ({ context }) => context.queue.length > 1,
    attemptsLeft: ({ context }) => context.attempt < context.maxAttempts,
  },
  actions: {
    enqueueProgress: assign(({ context }, params: { event: ProgressEvent }) => ({
      queue: [...context.queue, progressOf(context, params.event)],
      progressCount: context.progressCount + 1,
    })),
    countSuppressed: assign({ suppressed: ({ context }) => context.suppressed + 1 }),
    keepFinal: assign({
      kept: (_, params: { event: FinalEvent }) => ({
        text: params.event.text,
        ...(params.event.answer === undefined ? {} : { answer: params.event.answer }),
      }),
    }),
    enqueueFinal: assign(({ context }, params: { event: DoneEvent }) => ({
      ended: true,
      queue: [...context.queue, finalOf(context, params.event)],
    })),
    recordSent: enqueueActions(({ context, enqueue }, params: { receipt: ChannelReceipt }) => {
      const [head, ...rest] = context.queue;
      enqueue.emit({
        type: "delivery_attempt",
        record: attemptRecord(context, "sent", { messageId: params.receipt.messageId }),
      });
      enqueue.assign({
        queue: rest,
        attempt: 1,
        delivered: [
          ...context.delivered,
          { message: head!, messageId: params.receipt.messageId, attempts: context.attempt },
        ],
      });
    }),
    recordFailedAttempt: enqueueActions(({ context, enqueue }, params: { error: unknown }) => {
      enqueue.emit({
        type: "delivery_attempt",
        record: attemptRecord(context, "failed", { error: errorLine(params.error) }),
      });
      enqueue.assign({ attempt: context.attempt + 1 });
    }),
    dropProgress: enqueueActions(({ context, enqueue }, params: { error: unknown }) => {
      const [head, ...rest] = context.queue;
      const error = errorLine(params.error);
      enqueue.emit({ type: "delivery_attempt", record: attemptRecord(context, "dropped", { error }) });
      enqueue.assign({
        queue: rest,
        attempt: 1,
        failed: [...context.failed, { message: head!, attempts: context.attempt, error, outcome: "dropped" }],
      });
    }),
    giveUpFinal: enqueueActions(({ context, enqueue }, params: { error: unknown }) => {
      const error = errorLine(params.error);
      enqueue.emit({ type: "delivery_attempt", record: attemptRecord(context, "failed", { error }) });
      enqueue.assign({
        failed: [
          ...context.failed,
          { message: context.queue[0]!, attempts: context.attempt, error, outcome: "undeliverable" },
        ],
      });
    }),
    markDelivered: assign({ outcome: "delivered" }),
    markUndeliverable: assign({ outcome: "undeliverable" }),
  },
  delays: {
    retryDelay: ({ context }) => context.retryDelayMs * 2 ** Math.max(0, context.attempt - 2),
  },
}).createMachine({
  id: "delivery",
  initial: "active",
  context: ({ input }) => ({
    ...input,
    maxAttempts: Math.max(1, Math.floor(input.maxAttempts)),
    retryDelayMs: Math.max(0, input.retryDelayMs),
    queue: [],
    attempt: 1,
    progressCount: 0,
    suppressed: 0,
    kept: null,
    ended: false,
    delivered: [],
    failed: [],
    outcome: null,
  }),
  states: {
    active: {
      initial: "idle",
      // While a message is in flight or waiting for its retry, the run's events only queue up.
      on: {
        commentary: [
          {
            guard: { type: "shows", params: { source: "commentary" } },
            actions: { type: "enqueueProgress", params: ({ event }) => ({ event }) },
          },
          { guard: "runOpen", actions: "countSuppressed" },
        ],
        tool_started: [
          {
            guard: { type: "shows", params: { source: "tool_started" } },
            actions: { type: "enqueueProgress", params: ({ event }) => ({ event }) },
          },
          { guard: "runOpen", actions: "countSuppressed" },
        ],
        tool_result: [
          {
            guard: { type: "shows", params: { source: "tool_result" } },
            actions: { type: "enqueueProgress", params: ({ event }) => ({ event }) },
          },
          { guard: "runOpen", actions: "countSuppressed" },
        ],
        final: { guard: "runOpen", actions: { type: "keepFinal", params: ({ event }) => ({ event }) } },
        done: { guard: "runOpen", actions: { type: "enqueueFinal", params: ({ event }) => ({ event }) } },
      },
      states: {
        idle: {
          on: {
            commentary: {
              guard: { type: "shows", params: { source: "commentary" } },
              target: "sending",
              actions: { type: "enqueueProgress", params: ({ event }) => ({ event }) },
            },
            tool_started: {
              guard: { type: "shows", params: { source: "tool_started" } },
              target: "sending",
              actions: { type: "enqueueProgress", params: ({ event }) => ({ event }) },
            },
            tool_result: {
              guard: { type: "shows", params: { source: "tool_result" } },
              target: "sending",
              actions: { type: "enqueueProgress", params: ({ event }) => ({ event }) },
            },
            done: { target: "sending", actions: { type: "enqueueFinal", params: ({ event }) => ({ event }) } },
          },
        },
        sending: {
          invoke: {
            id: "send",
            src: "sendMessage",
            input: ({ context }) => ({ message: context.queue[0]!, attempt: context.attempt }),
            onDone: [
              {
                guard: "headIsFinal",
                target: "#delivery.delivered",
                actions: { type: "recordSent", params: ({ event }) => ({ receipt: event.output }) },
              },
              {
                guard: "moreQueued",
                target: "sending",
                reenter: true,
                actions: { type: "recordSent", params: ({ event }) => ({ receipt: event.output }) },
              },
              { target: "idle", actions: { type: "recordSent", params: ({ event }) => ({ receipt: event.output }) } },
            ],
            onError: [
              {
                guard: "attemptsLeft",
                target: "retrying",
                actions: { type: "recordFailedAttempt", params: ({ event }) => ({ error: event.error }) },
              },
              {
                guard: "headIsFinal",
                target: "#delivery.undeliverable",
                actions: { type: "giveUpFinal", params: ({ event }) => ({ error: event.error }) },
              },
              {
                guard: "moreQueued",
                target: "sending",
                reenter: true,
                actions: { type: "dropProgress", params: ({ event }) => ({ error: event.error }) },
              },
              { target: "idle", actions: { type: "dropProgress", params: ({ event }) => ({ error: event.error }) } },
            ],
          },
        },
        retrying: {
          after: { retryDelay: { target: "sending" } },
        },
      },
    },
    delivered: { type: "final", entry: "markDelivered" },
    undeliverable: { type: "final", entry: "markUndeliverable" },
  },
  output: ({ context }) => ({
    runId: context.runId,
    channelId: context.channelId,
    delivered: [...context.delivered],
    failed: [...context.failed],
    suppressed: context.suppressed,
    final: context.outcome ?? "undeliverable",
  }),
});
