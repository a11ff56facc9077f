import * as Data from "effect/Data";
import type * as Effect from "effect/Effect";
import type {
  ContextMessage,
  ModelResponse,
  ProviderCapabilities,
  ToolChoice,
  ToolDescriptor,
} from "../../domain/index.js";

export interface ProviderRequest {
  readonly runId: string;
  readonly step: number;
  readonly messages: ReadonlyArray<ContextMessage>;
  /** Empty for providers without tool calling: they never see tool schemas. */
  readonly tools: ReadonlyArray<ToolDescriptor>;
  readonly toolChoice: ToolChoice;
  /**
   * Called with each piece of the answer's text as it streams in (the runtime turns them into the
   * run's `text_delta` events). A provider that does not stream never calls it; the response's
   * `text` is the whole text either way.
   */
  readonly onTextDelta?: ((delta: string) => void) | undefined;
}

export type ProviderErrorReason =
  | "rate_limited"
  | "server_error"
  | "timeout"
  | "connection"
  | "bad_request"
  | "auth"
  | "invalid_response"
  | "script_exhausted";

export class ProviderError extends Data.TaggedError("ProviderError")<{
  readonly reason: ProviderErrorReason;
  readonly message: string;
  readonly status?: number;
  /** From `retry-after` / `retry-after-ms`; the retry schedule waits at least this long. */
  readonly retryAfterMs?: number;
}> {}

/** Failures worth another attempt; everything else ends the run at once. */
export const RETRYABLE_PROVIDER_ERRORS: ReadonlySet<ProviderErrorReason> = new Set([
  "rate_limited",
  "server_error",
  "timeout",
  "connection",
]);

/**
 * The reason a run ends with when its provider call failed for good: a response that broke the
 * wire protocol (unreadable, of the wrong shape) is a protocol error of the provider, like a tool
 * finish without a parseable call; every other failure is `provider_error`.
 */
export function terminalReasonFor(
  error: ProviderError,
): "provider_error" | "provider_tool_protocol_invalid" | "script_exhausted" {
  if (error.reason === "script_exhausted") return "script_exhausted";
  if (error.reason === "invalid_response") return "provider_tool_protocol_invalid";
  return "provider_error";
}

/** Maps an HTTP status onto a provider-neutral reason. */
export function reasonForStatus(status: number): ProviderErrorReason {
  if (status === 429) return "rate_limited";
  if (status === 408) return "timeout";
  if (status === 401 || status === 403) return "auth";
  if (status >= 500) return "server_error";
  return "bad_request";
}

/** One model endpoint: samples one step. Interruption (run cancel) aborts the underlying request. */
export interface Provider {
  readonly id: string;
  readonly model: string;
  readonly apiFamily: string;
  readonly capabilities: ProviderCapabilities;
  readonly sample: (request: ProviderRequest) => Effect.Effect<ModelResponse, ProviderError>;
}
