import * as Effect from "effect/Effect";
import {
  type CassetteModelStep,
  type JsonValue,
  type ModelResponse,
  type ProviderCapabilities,
  ProviderCapabilities as ProviderCapabilitiesSchema,
  type ToolCall,
} from "../../domain/index.js";
import { type Provider, ProviderError, type ProviderRequest, reasonForStatus } from "./Provider.js";

/** A cassette argument string is parsed when it is valid JSON; otherwise it stays raw (malformed). */
function scriptedArguments(raw: Record<string, JsonValue> | string): ToolCall["arguments"] {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return raw;
  }
}

export function scriptedResponse(step: CassetteModelStep): ModelResponse {
  const toolCalls = (step.toolCalls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    arguments: scriptedArguments(call.arguments),
  }));
  return {
    text: step.text ?? "",
    toolCalls,
    malformedToolCalls: [],
    anomalies: [],
    streamed: false,
    finishReason: step.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
  };
}

/**
 * Replays a cassette's `model` steps, one per provider call (retries included). When the
 * script runs out and the run asks again, the call fails with `script_exhausted`.
 */
export function scriptedProvider(
  steps: ReadonlyArray<CassetteModelStep>,
  options: { capabilities?: Partial<ProviderCapabilities>; model?: string } = {},
): Provider {
  let next = 0;
  const sample = (request: ProviderRequest) =>
    Effect.gen(function* () {
      const step = steps[next];
      next += 1;
      if (!step) {
        return yield* new ProviderError({
          reason: "script_exhausted",
          message: `the model script has ${steps.length} step(s) and the run asked for step ${next}`,
        });
      }
      if (step.delayMs) yield* Effect.sleep(step.delayMs);
      const seen = request.messages
        .map((message) =>
          message.role === "assistant" ? `${message.content}\n${JSON.stringify(message.toolCalls)}` : message.content,
        )
        .join("\n");
      const absent = (step.expectContext ?? []).filter((text) => !seen.includes(text));
      if (absent.length > 0) {
        return yield* new ProviderError({
          reason: "bad_request",
          message: `context_mismatch: step ${next} expected the context to contain ${absent.map((text) => JSON.stringify(text)).join(", ")}`,
        });
      }
      if (step.error) {
        return yield* new ProviderError({
          reason: reasonForStatus(step.error.status),
          status: step.error.status,
          message: step.error.message ?? `provider returned ${step.error.status}`,
        });
      }
      return scriptedResponse(step);
    });
  return {
    id: "scripted",
    model: options.model ?? "cassette",
    apiFamily: "scripted",
    capabilities: ProviderCapabilitiesSchema.parse(options.capabilities ?? {}),
    sample,
  };
}
