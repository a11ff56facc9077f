import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";

export interface OtelTracingOptions {
  /** Where spans go, e.g. `new BatchSpanProcessor(new OTLPTraceExporter())`, or an in-memory exporter in tests. */
  readonly spanProcessors: ReadonlyArray<SpanProcessor>;
  readonly serviceName?: string;
  readonly serviceVersion?: string;
}

/**
 * OpenTelemetry export for a runtime (`AgentRuntime.make({ tracing: otelTracingLayer(...) })`):
 * installs @effect/opentelemetry's Tracer over an OTel BasicTracerProvider with the host's span
 * processors. Off unless a host passes it; the provider is flushed and shut down with the runtime.
 * The OpenTelemetry packages load when the layer is built, so a host without tracing never
 * imports them.
 */
export function otelTracingLayer(options: OtelTracingOptions): Layer.Layer<never> {
  return Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => import("./otelLayer.js")),
      ({ otelLayer }) => otelLayer(options),
    ),
  );
}
