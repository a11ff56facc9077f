import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Tracer from "effect/Tracer";
import { SPAN } from "./spanNames.js";

/**
 * A traced run's root span and the tracer that made it. It travels with the run's handle, so a
 * delivery made after the run (even after its runtime was disposed) can still join the run's tree.
 */
export interface RunTrace {
  readonly span: Tracer.Span;
  readonly tracer: Tracer.Tracer;
}

/**
 * A channel delivery as a span of its run's tree (`agent.delivery.send`): wraps one send attempt.
 * A run without tracing gets no span.
 */
export async function traceDelivery<A>(
  trace: RunTrace | undefined,
  target: {
    readonly runId: string;
    readonly channelId: string;
    readonly kind: string;
    readonly attempt?: number;
  },
  send: () => Promise<A>,
): Promise<A> {
  if (!trace) return send();
  let failure: { readonly error: unknown } | undefined;
  const exit = await Effect.runPromiseExit(
    Effect.tryPromise({
      try: send,
      catch: (error) => {
        failure = { error };
        return error;
      },
    }).pipe(
      Effect.withSpan(SPAN.delivery, {
        parent: trace.span,
        kind: "producer",
        attributes: {
          "agentloop.run.id": target.runId,
          "agentloop.channel.id": target.channelId,
          "agentloop.delivery.kind": target.kind,
          ...(target.attempt === undefined ? {} : { "agentloop.delivery.attempt": target.attempt }),
        },
      }),
      Effect.withTracer(trace.tracer),
    ),
  );
  if (Exit.isSuccess(exit)) return exit.value;
  // The channel's own error, untouched (Effect may have decorated the one in the cause).
  throw failure ? failure.error : Cause.squash(exit.cause);
}
