import * as EffectOtelResource from "@effect/opentelemetry/Resource";
import { Resource } from "@effect/opentelemetry/Resource";
import * as OtelTracer from "@effect/opentelemetry/Tracer";
import { BasicTracerProvider, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Effect, Layer } from "effect";

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
 */
export function otelTracingLayer(options: OtelTracingOptions): Layer.Layer<never> {
  const provider = Layer.scoped(
    OtelTracer.OtelTracerProvider,
    Effect.flatMap(Resource, (resource) =>
      Effect.acquireRelease(
        Effect.sync(() => new BasicTracerProvider({ resource, spanProcessors: [...options.spanProcessors] })),
        (tracerProvider) =>
          Effect.promise(() => tracerProvider.forceFlush().then(() => tracerProvider.shutdown())).pipe(
            Effect.timeoutOption(3000),
            Effect.ignore,
          ),
      ),
    ),
  );
  const resource = EffectOtelResource.layer({
    serviceName: options.serviceName ?? "agentloop",
    ...(options.serviceVersion ? { serviceVersion: options.serviceVersion } : {}),
  });
  return Layer.provide(Layer.empty, OtelTracer.layer.pipe(Layer.provide(provider), Layer.provide(resource)));
}
