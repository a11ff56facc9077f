import { Cause, Effect, Exit, type Tracer } from "effect";
import { SPAN } from "./spanNames.js";

/**
 * Recent runs' root spans and the tracer that made them, so a delivery made after the run can
 * still join its tree (without touching the runtime, which may be disposed by then).
 */
const recentRoots = new Map<string, { span: Tracer.Span; tracer: Tracer.Tracer }>();
const RECENT_ROOTS = 1024;

export function rememberRoot(runId: string, span: Tracer.Span, tracer: Tracer.Tracer) {
  recentRoots.set(runId, { span, tracer });
  if (recentRoots.size > RECENT_ROOTS) {
    const oldest = recentRoots.keys().next().value;
    if (oldest !== undefined) recentRoots.delete(oldest);
  }
}

/**
 * A channel delivery as a span of its run's tree (`agent.delivery.send`), for the router: wraps
 * one send attempt. A run this process did not start (or one long gone) gets no span.
 */
export async function traceDelivery<A>(
  target: {
    readonly runId: string;
    readonly channelId: string;
    readonly kind: string;
    readonly attempt?: number;
  },
  send: () => Promise<A>,
): Promise<A> {
  const root = recentRoots.get(target.runId);
  if (!root) return send();
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
        parent: root.span,
        kind: "producer",
        attributes: {
          "agentloop.run.id": target.runId,
          "agentloop.channel.id": target.channelId,
          "agentloop.delivery.kind": target.kind,
          ...(target.attempt === undefined ? {} : { "agentloop.delivery.attempt": target.attempt }),
        },
      }),
      Effect.withTracer(root.tracer),
    ),
  );
  if (Exit.isSuccess(exit)) return exit.value;
  // The channel's own error, untouched (Effect may have decorated the one in the cause).
  throw failure ? failure.error : Cause.squash(exit.cause);
}
