import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import { type Actor, createActor, fromPromise, toPromise } from "xstate";
import {
  ChannelReceipt,
  DEFAULT_DELIVERY_POLICY,
  type DeliveryAttempt,
  type DeliveryOutput,
  type DeliveryPolicy,
} from "../domain/delivery.js";
import type { AgentRunResult, Locale, LoopEvent } from "../domain/index.js";
import {
  type DeliveryInput,
  deliveryMachine,
  errorLine,
  type SendMessageInput,
  WORKING_ON_IT,
} from "../machines/delivery.machine.js";
import * as DeliveryLog from "../persistence/DeliveryLog.js";
import { redactText } from "../persistence/payloadHygiene.js";
import type { RunHandle, RuntimeServices } from "../runtime/AgentRuntime.js";
import { detectClaims } from "../services/claims.js";
import { recordProgressSuppressed } from "../services/observability/metrics.js";
import { type RunTrace, traceDelivery } from "../services/observability/runRoots.js";
import { type Channel, ChannelSendError } from "./channels/Channel.js";

/**
 * The channel router: for every run it is attached to, one delivery actor per
 * channel, fed with the run's LoopEvents (`handle.actor.on("*")`). The actors decide what reaches a
 * channel and when; the router only supplies their one effect (`sendMessage`: the channel adapter's
 * `send`), records every attempt in the delivery log (`agent_channel_deliveries`, never the run
 * ledger) and counts. Nothing it does can change a run's terminal state.
 */

export interface ChannelRoute {
  readonly channel: Channel;
  /** Default `final_only`. */
  readonly policy?: DeliveryPolicy;
  /** The locale of the channel's templates and progress marker (default: the router's). */
  readonly locale?: Locale;
  readonly maxAttempts?: number;
  readonly retryDelayMs?: number;
}

/** How the router reaches the runtime's database (an `AgentRuntime` is one). */
export interface RouterRuntime {
  run<A, E>(effect: Effect.Effect<A, E, RuntimeServices>): Promise<A>;
}

export interface RouterOptions {
  readonly runtime: RouterRuntime;
  readonly channels: ReadonlyArray<Channel | ChannelRoute>;
  readonly locale?: Locale;
  /** Attempts per message, the first included (default 3). */
  readonly maxAttempts?: number;
  /** Before the second attempt, doubling after (default 500 ms). */
  readonly retryDelayMs?: number;
  /** Where a delivery-log write that failed is reported (default: console.warn). */
  readonly onLogError?: (error: unknown) => void;
}

export type DeliveryActor = Actor<typeof deliveryMachine>;

export interface RunDelivery {
  readonly runId: string;
  /** The delivery actor of each channel, by channel id. */
  readonly actors: ReadonlyMap<string, DeliveryActor>;
  /** Every channel's output once its actor has ended and all its attempts are logged (never rejects on a send failure). */
  readonly done: Promise<ReadonlyArray<DeliveryOutput>>;
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_RETRY_DELAY_MS = 500;

/** Send attempts, by channel and status (`sent`, `failed`, `dropped`). */
export const channelDeliveriesTotal = Metric.counter("agent_channel_deliveries_total", {
  description: "channel send attempts by outcome",
  incremental: true,
});
/** Finals that could not be delivered after every attempt. */
export const channelUndeliverableTotal = Metric.counter("agent_channel_final_undeliverable_total", {
  description: "final messages no attempt could deliver",
  incremental: true,
});

const increment = (counter: Metric.Metric.Counter<number>, tags: Record<string, string>, by = 1) => {
  let tagged = counter;
  for (const [key, value] of Object.entries(tags)) tagged = Metric.tagged(tagged, key, value);
  Effect.runSync(Metric.incrementBy(tagged, by));
};

const routeOf = (entry: Channel | ChannelRoute): ChannelRoute => ("channel" in entry ? entry : { channel: entry });

/** The `sendMessage` actor of one channel: one attempt, a one-line redacted error on failure. */
export function sendMessageActor(channel: Channel, trace?: RunTrace) {
  return fromPromise<ChannelReceipt, SendMessageInput>(async ({ input, signal }) => {
    let receipt: unknown;
    try {
      receipt = await traceDelivery(
        trace,
        { runId: input.message.runId, channelId: channel.id, kind: input.message.kind, attempt: input.attempt },
        () => channel.send(input.message, { signal }),
      );
    } catch (error) {
      const message = redactText(errorLine(error));
      throw error instanceof ChannelSendError
        ? new ChannelSendError({
            reason: error.reason,
            message,
            ...(error.status === undefined ? {} : { status: error.status }),
          })
        : new ChannelSendError({ reason: "send_failed", message });
    }
    const parsed = ChannelReceipt.safeParse(receipt);
    if (!parsed.success) {
      throw new ChannelSendError({
        reason: "no_message_id",
        message: `${channel.id} accepted the message without a message id`,
      });
    }
    return parsed.data;
  });
}

export class ChannelRouter {
  private readonly routes: ReadonlyArray<ChannelRoute>;
  private readonly running = new Set<DeliveryActor>();
  /** Log writes, one after another, in the order the actors reported them. */
  private logQueue: Promise<void> = Promise.resolve();
  private log: Promise<DeliveryLog.DeliveryLogShape> | undefined;

  constructor(private readonly options: RouterOptions) {
    this.routes = options.channels.map(routeOf);
    const ids = this.routes.map((route) => route.channel.id);
    const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
    if (duplicate !== undefined) throw new Error(`two channels are named ${duplicate}`);
  }

  get channelIds(): ReadonlyArray<string> {
    return this.routes.map((route) => route.channel.id);
  }

  /**
   * Starts one delivery actor per channel (or per named channel) for the run. Attach right after
   * `runtime.startRun` (the run emits nothing before its first ledger write); a run that has already
   * ended is delivered from its result.
   */
  attach(handle: RunHandle, options: { readonly channels?: ReadonlyArray<string> } = {}): RunDelivery {
    const routes = options.channels
      ? options.channels.map((id) => {
          const route = this.routes.find((candidate) => candidate.channel.id === id);
          if (!route) throw new Error(`no channel named ${id}`);
          return route;
        })
      : this.routes;
    const actors = new Map<string, DeliveryActor>();
    for (const route of routes) actors.set(route.channel.id, this.startActor(handle, route));

    const forward = (event: LoopEvent) => {
      // Commentary that claims an action is judged only at the terminal: a channel is shown a
      // neutral line in its own locale instead, never the claim.
      const claims = event.type === "commentary" && detectClaims(event.text).length > 0;
      for (const [channelId, actor] of actors) {
        actor.send(claims ? { ...event, text: WORKING_ON_IT[this.localeOf(channelId, routes)] } : event);
      }
    };
    const snapshot = handle.actor.getSnapshot();
    let subscription: { unsubscribe(): void } | undefined;
    if (snapshot.status === "done" && snapshot.output) {
      for (const event of endEvents(snapshot.output)) forward(event);
    } else {
      subscription = handle.actor.on("*", (event) => forward(event as LoopEvent));
      // A run actor that crashed emits no `done`: say so honestly rather than leave the channel waiting.
      handle.result.catch(() => {
        forward({
          type: "done",
          runId: handle.runId,
          traceId: handle.traceId,
          terminalState: "failed",
          reason: "internal_error",
        });
      });
    }

    const done = Promise.all(
      [...actors.values()].map((actor) =>
        toPromise(actor).finally(() => {
          this.running.delete(actor);
        }),
      ),
    ).then(async (settled) => {
      subscription?.unsubscribe();
      // An actor stopped by `dispose` completes without output: its channel is left out.
      const outputs = settled.filter((output): output is DeliveryOutput => output !== undefined);
      for (const output of outputs) {
        if (output.suppressed > 0) recordProgressSuppressed(output.suppressed, output.channelId);
        if (output.final === "undeliverable") increment(channelUndeliverableTotal, { channel: output.channelId });
      }
      await this.logQueue;
      return outputs;
    });
    return { runId: handle.runId, actors, done };
  }

  /**
   * Stops every delivery actor still running (pending retries are abandoned; a run's `done` then
   * leaves those channels out) and waits for the log writes already queued.
   */
  async dispose(): Promise<void> {
    for (const actor of this.running) actor.stop();
    this.running.clear();
    await this.logQueue;
  }

  private localeOf(channelId: string, routes: ReadonlyArray<ChannelRoute>): Locale {
    const route = routes.find((candidate) => candidate.channel.id === channelId);
    return route?.locale ?? this.options.locale ?? "en";
  }

  private startActor(handle: RunHandle, route: ChannelRoute): DeliveryActor {
    const input: DeliveryInput = {
      runId: handle.runId,
      traceId: handle.traceId,
      channelId: route.channel.id,
      policy: route.policy ?? DEFAULT_DELIVERY_POLICY,
      locale: route.locale ?? this.options.locale ?? "en",
      maxAttempts: route.maxAttempts ?? this.options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      retryDelayMs: route.retryDelayMs ?? this.options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    };
    const machine = deliveryMachine.provide({ actors: { sendMessage: sendMessageActor(route.channel, handle.trace) } });
    const actor = createActor(machine, { id: `${handle.runId}:${route.channel.id}`, input });
    actor.on("delivery_attempt", (event) => this.record(event.record));
    this.running.add(actor);
    actor.start();
    return actor;
  }

  private record(attempt: DeliveryAttempt): void {
    increment(channelDeliveriesTotal, { channel: attempt.channelId, status: attempt.status });
    this.log ??= this.options.runtime.run(DeliveryLog.make());
    const log = this.log;
    this.logQueue = this.logQueue
      .then(async () => {
        const store = await log;
        await this.options.runtime.run(store.record(attempt));
      })
      .catch((error) => (this.options.onLogError ?? defaultLogError)(error));
  }
}

function defaultLogError(error: unknown): void {
  console.warn(`delivery log: ${redactText(errorLine(error))}`);
}

/** The `final` and `done` a run that already ended emitted, rebuilt from its result. */
function endEvents(result: AgentRunResult): LoopEvent[] {
  return [
    { type: "final", runId: result.runId, text: result.finalText, terminalState: result.terminalState },
    {
      type: "done",
      runId: result.runId,
      traceId: result.traceId,
      terminalState: result.terminalState,
      reason: result.terminalReason,
    },
  ];
}

export function makeRouter(options: RouterOptions): ChannelRouter {
  return new ChannelRouter(options);
}
