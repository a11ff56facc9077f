import * as EffectOtelResource from "@effect/opentelemetry/Resource";
import { Resource } from "@effect/opentelemetry/Resource";
import * as OtelTracer from "@effect/opentelemetry/Tracer";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";

import type { OtelTracingOptions } from "./otel.js";

/** The layer `otelTracingLayer` loads on first use (see otel.ts). */
export function otelLayer(options: OtelTracingOptions): Layer.Layer<never> {
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
